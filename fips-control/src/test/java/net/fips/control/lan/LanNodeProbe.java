package net.fips.control.lan;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import net.fips.control.config.ConfigLoader;
import net.fips.control.config.HostEnvironment;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;

/**
 * One node of {@link LanNodeNamespaceTest}, run in a network namespace of its own: LAN discovery on (the test's
 * service type), a UDP transport bound to {@code [::]:2121}, no peers configured, mDNS on every interface address the
 * node finds itself ({@link LanDiscovery#interfaceAddresses}). Prints {@code linked <address> after <ms>} once the
 * other npub is linked, then {@code lan <show_lan JSON>} once that lists the other at an address, or {@code failed
 * <show_lan JSON>} when the wait runs out; then waits for a line on stdin (so both stay up until the test has read
 * both) and stops.
 */
public final class LanNodeProbe {
    private LanNodeProbe() {
    }

    /**
     * @param args our nsec, the other npub, the service type, a scratch directory, the seconds to wait
     * @throws Exception on set-up errors (printed by the JVM; the test sees no outcome line)
     */
    public static void main(final String[] args) throws Exception {
        final String yaml = "node:\n  identity:\n    nsec: \"" + args[0] + "\"\n  control:\n    enabled: false\n"
                + "  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n"
                + "  discovery:\n    lan:\n      enabled: true\n      service_type: \"" + args[2] + "\"\n"
                + "dns:\n  enabled: false\n"
                + "transports:\n  udp:\n    bind_addr: \"[::]:2121\"\n";
        final Path scratch = Files.createDirectories(Path.of(args[3]));
        final long started = System.nanoTime();
        final long deadline = started + TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Node node = Node.start(new ConfigLoader(HostEnvironment.system()).load(yaml, "lan probe"),
                new NodeOptions().aclDirectory(scratch.resolve("acl")))) {
            boolean linked = false;
            while (System.nanoTime() < deadline) {
                final PeerSnapshot p = node.linkSnapshot().peer(args[1]);
                if (!linked && p != null) {
                    say("linked " + p.address() + " after "
                            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    linked = true;
                }
                final String lan = node.controlApi().showLan().toString();
                if (linked && lan.contains(args[1])) {
                    say("lan " + lan);
                    in.readLine();
                    return;
                }
                LockSupport.parkNanos(50_000_000L);
            }
            say("failed " + node.controlApi().showLan());
            in.readLine();
        }
    }

    private static void say(final String line) {
        System.out.println(line);
        System.out.flush();
    }
}
