package net.fips.control.nat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.config.ConfigLoader;
import net.fips.control.config.HostEnvironment;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;

/**
 * One host of the NAT lab's end-to-end case ({@link NatLabNamespaceTest}): a node configured with only the other
 * host's npub and {@code addr: nat}, the lab's relay and STUN server, nothing else. Its own Nostr runtime and
 * traversal engine do the rest. Prints {@code linked <remote> transport <id> after <ms>} (from node start) and then
 * {@code data <packets in> <packets out>} once the link has carried packets both ways, or {@code cooldown <failed>
 * <initiated> <signals sent>} when its traversals ended in the failure cooldown, followed some seconds later by
 * {@code after <initiated> <signals sent>}; {@code failed <why>} when neither happens in time. The optional eighth
 * argument is a comma-separated list of flags: with {@code tun} the node also runs its TUN {@code fips0} and the
 * {@code .fips} DNS responder on {@code [::1]:53} (as {@code tests/netns/lib.sh} configures daemons), so the lab can
 * {@code ping -6 <npub>.fips}; with {@code share} it sets {@code share_local_candidates: true}.
 */
public final class NatLabNode {
    private NatLabNode() {
    }

    /**
     * @param args our nsec, the peer's npub, the relay URL, the STUN server ({@code ip:port}), a scratch directory,
     *             the seconds to wait for an outcome, the seconds to stay watching after a cooldown, optionally
     *             flags ({@code tun}: TUN and DNS on; {@code share}: host candidates shared)
     * @throws Exception on set-up errors (printed by the JVM; the lab sees no outcome line)
     */
    public static void main(final String[] args) throws Exception {
        final Set<String> flags = args.length > 7 ? Set.of(args[7].split(",")) : Set.of();
        final String yaml = "node:\n  identity:\n    nsec: \"" + args[0] + "\"\n  control:\n    enabled: false\n"
                + "  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n"
                + "  discovery:\n    nostr:\n      enabled: true\n"
                + "      advert_relays: [\"" + args[2] + "\"]\n      dm_relays: [\"" + args[2] + "\"]\n"
                + "      stun_servers: [\"stun:" + args[3] + "\"]\n      failure_streak_threshold: 2\n"
                + "      signal_ttl_secs: 15\n"
                + "      share_local_candidates: " + flags.contains("share") + "\n"
                + tunAndDns(flags.contains("tun"))
                + "transports:\n  udp:\n    bind_addr: \"0.0.0.0:2121\"\n"
                + "    advertise_on_nostr: true\n"
                + "peers:\n  - npub: \"" + args[1] + "\"\n    addresses: [{transport: udp, addr: nat}]\n";
        final Path scratch = Files.createDirectories(Path.of(args[4]));
        final long waitNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[5]));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final long started = System.nanoTime();
        try (Node node = Node.start(new ConfigLoader(HostEnvironment.system()).load(yaml, "nat lab"),
                new NodeOptions().aclDirectory(scratch.resolve("acl")))) {
            final long deadline = started + waitNanos;
            while (System.nanoTime() < deadline) {
                final PeerSnapshot p = node.linkSnapshot().peer(args[1]);
                if (p != null) {
                    say("linked " + p.address() + " transport " + p.transportId() + " after "
                            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    data(node, args[1], deadline);
                    in.readLine();
                    return;
                }
                final JsonNode dials = node.controlApi().showNostr().get("dials");
                if (!dials.isEmpty() && "cooldown".equals(dials.get(0).get("outcome").asText())) {
                    final JsonNode t = node.controlApi().showNostr().get("traversals").get(0);
                    say("cooldown " + t.get("failed").asLong() + " " + t.get("initiated").asLong() + " "
                            + node.controlApi().showNostr().get("counters").get("signals_sent").asLong());
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(Long.parseLong(args[6])));
                    final JsonNode n = node.controlApi().showNostr();
                    say("after " + n.get("traversals").get(0).get("initiated").asLong() + " "
                            + n.get("counters").get("signals_sent").asLong());
                    in.readLine();
                    return;
                }
                LockSupport.parkNanos(20_000_000L);
            }
            say("failed no outcome: " + node.controlApi().showNostr());
            in.readLine();
        }
    }

    /** The {@code tun:} and {@code dns:} sections: both on (fips0, DNS on [::1]:53) or DNS off and no TUN. */
    private static String tunAndDns(final boolean on) {
        return on
                ? "tun:\n  enabled: true\n  name: fips0\ndns:\n  enabled: true\n  bind_addr: \"::1\"\n  port: 53\n"
                : "dns:\n  enabled: false\n";
    }

    /** Waits until the link has carried packets both ways (heartbeats, at least). */
    private static void data(final Node node, final String npub, final long deadline) {
        while (System.nanoTime() < deadline) {
            final PeerSnapshot p = node.linkSnapshot().peer(npub);
            if (p != null && p.packetsIn() > 0 && p.packetsOut() > 0) {
                say("data " + p.packetsIn() + " " + p.packetsOut());
                return;
            }
            LockSupport.parkNanos(50_000_000L);
        }
        say("failed no data");
    }

    private static void say(final String line) {
        System.out.println(line);
        System.out.flush();
    }
}
