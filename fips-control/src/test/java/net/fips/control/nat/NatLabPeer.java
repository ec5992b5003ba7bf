package net.fips.control.nat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import net.fips.control.config.ConfigLoader;
import net.fips.control.config.HostEnvironment;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;
import net.fips.dataplane.udp.TraversalSocket;

/**
 * One host of the NAT lab ({@link NatLabNamespaceTest}), in its own namespace behind a router: a node with NAT
 * adoption slots; a traversal socket on {@code 0.0.0.0:0}; STUN; then, told the peer's reflexive address and a start
 * time on stdin (the lab stands in for the signal relays), the punch, the adoption and the link. Prints one line
 * per step: {@code reflexive}, {@code punched}, {@code adopted}, {@code linked} or {@code failed}.
 */
public final class NatLabPeer {
    private NatLabPeer() {
    }

    /**
     * @param args our nsec, the peer's npub, the STUN server ({@code ip:port}), a scratch directory
     * @throws Exception on set-up errors (printed by the JVM; the lab sees no {@code linked})
     */
    public static void main(final String[] args) throws Exception {
        final String yaml = "node:\n  identity:\n    nsec: \"" + args[0] + "\"\n  control:\n    enabled: false\n"
                + "  discovery:\n    nostr:\n      enabled: true\n"
                + "dns:\n  enabled: false\ntransports:\n  udp:\n    bind_addr: \"127.0.0.1:2121\"\npeers: []\n";
        final Path scratch = Files.createDirectories(Path.of(args[3]));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Node node = Node.start(new ConfigLoader(HostEnvironment.system()).load(yaml, "nat lab"),
                new NodeOptions().aclDirectory(scratch.resolve("acl")));
             TraversalSocket socket = TraversalSocket.open(new InetSocketAddress("0.0.0.0", 0))) {
            final StunClient.Result r = StunClient.system().discover(DatagramPort.of(socket), List.of(args[2]),
                    StunClient.TRAVERSAL_TIMEOUT_MS);
            say("reflexive " + (r.reflexive() == null ? "none"
                    : r.reflexive().getAddress().getHostAddress() + ":" + r.reflexive().getPort()));
            final String[] peer = in.readLine().split(" ");
            final InetSocketAddress target = PunchPlan.parse(peer[0]);
            final PunchRunner.Outcome out;
            try {
                out = new PunchRunner(System::nanoTime, System::currentTimeMillis).run(DatagramPort.of(socket),
                        peer[2], List.of(target), Long.parseLong(peer[1]), 200, 10_000,
                        TimeUnit.SECONDS.toNanos(10), () -> false);
            } catch (final PunchFailure e) {
                say("failed " + e.reason());
                in.readLine();
                return;
            }
            say("punched " + out.remote().getAddress().getHostAddress() + ":" + out.remote().getPort());
            final int id = node.natAdopter().orElseThrow().adopt(args[1], socket, out.remote());
            say("adopted " + id);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            PeerSnapshot p = null;
            while (p == null && System.nanoTime() < deadline) {
                p = node.linkSnapshot().peer(args[1]);
                LockSupport.parkNanos(10_000_000L);
            }
            say(p == null ? "failed no-link" : "linked " + p.address() + " transport " + p.transportId());
            in.readLine();   // until the lab is done
        }
    }

    private static void say(final String line) {
        System.out.println(line);
        System.out.flush();
    }
}
