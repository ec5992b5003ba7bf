package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.deliver;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.seqOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.TransportSnapshot;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Collector;
import net.fips.testing.FreePorts;

/**
 * Two real nodes linked over the Tor transport, with Debian's {@code microsocks} standing in for Tor's SocksPort
 * (transports.md §8.5): B runs in directory mode (its onion name read from a hostname file, its listener where
 * torrc's HiddenServicePort would point), A in socks5 mode dials B's listener through the proxy with a SOCKS5
 * CONNECT to the clearnet form {@code 127.0.0.1:port}. The link comes up, a session carries IPv6 packets both
 * ways in order, and show_transports renders the reference's Tor shape (tor_mode, onion_address, the TCP counters
 * plus socks5_errors and control_errors). Skipped when microsocks is not installed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeTorTest {
    private static final String ONION = "vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion";
    private static final String NODE = """
              heartbeat_interval_secs: 1
              link_dead_timeout_secs: 6
              rate_limit:
                handshake_timeout_secs: 1
              retry:
                base_interval_secs: 1
                max_backoff_secs: 2
              rekey:
                enabled: false
            dns:
              enabled: false
            """;

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private Process microsocks;

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
        if (microsocks != null) {
            microsocks.destroyForcibly();
        }
    }

    private int startMicrosocks() throws Exception {
        final int port = FreePorts.tcp();
        microsocks = Microsocks.start(port);
        return port;
    }

    private static String header(final NodeIdentity self, final Path socket) {
        return "node:\n  identity:\n    nsec: \"" + self.nsec() + "\"\n  control:\n    enabled: true\n"
                + "    socket_path: \"" + socket + "\"\n" + NODE;
    }

    private Node start(final String yaml, final Collector sink) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .ipv6Sink(sink::sink));
        nodes.add(n);
        return n;
    }

    @Test
    void aDialsBsOnionListenerThroughSocks5AndASessionCarriesTraffic() throws Exception {
        final int socks = startMicrosocks();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.tcp();
        final Path hostname = Files.writeString(dir.resolve("hostname"), ONION + "\n");
        final Collector atA = new Collector();
        final Collector atB = new Collector();
        final Node b = start(header(idB, dir.resolve("b.sock")) + "transports:\n  tor:\n    mode: directory\n"
                + "    socks5_addr: \"127.0.0.1:" + socks + "\"\n    directory_service:\n"
                + "      hostname_file: \"" + hostname + "\"\n      bind_addr: \"127.0.0.1:" + portB + "\"\n"
                + "peers: []\n", atB);
        final Node a = start(header(idA, dir.resolve("a.sock")) + "transports:\n  tor:\n"
                + "    socks5_addr: \"127.0.0.1:" + socks + "\"\n"
                + "peers:\n  - npub: \"" + idB.npub() + "\"\n    alias: \"peer\"\n    addresses:\n"
                + "      - transport: tor\n        addr: \"127.0.0.1:" + portB + "\"\n", atA);
        until(Duration.ofSeconds(20), () -> linked(a, b),
                () -> "link over Tor/SOCKS5: A " + describe(a) + " B " + describe(b));

        final TransportSnapshot ta = a.controlApi().showTransports().getFirst();
        final TransportSnapshot tb = b.controlApi().showTransports().getFirst();
        assertEquals("tor", ta.type());
        assertEquals(1400, ta.mtu());
        assertEquals("socks5", ta.torMode());
        assertNull(ta.onionAddress());
        assertNull(ta.torMonitoring(), "no control port in socks5 mode");
        assertEquals("directory", tb.torMode());
        assertEquals(ONION, tb.onionAddress());
        assertEquals(List.of("packets_sent", "bytes_sent", "packets_recv", "bytes_recv", "send_errors",
                "recv_errors", "mtu_exceeded", "connections_established", "connect_timeouts", "connect_refused",
                "socks5_errors", "connections_accepted", "connections_rejected", "control_errors", "pool_inbound",
                "pool_outbound"), List.copyOf(ta.stats().keySet()));
        assertEquals(1L, ta.stats().get("connections_established"));
        assertEquals(1L, ta.stats().get("pool_outbound"));
        assertEquals(0L, ta.stats().get("socks5_errors"));
        assertEquals(1L, tb.stats().get("connections_accepted"));
        assertEquals(1L, tb.stats().get("pool_inbound"));

        assertTrue(a.learnIdentity(idB.toPeer()));
        final byte[] p1 = NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 1, 600);
        deliver(a, atB, p1, 1);
        assertArrayEquals(p1, atB.packets.stream().filter(p -> seqOf(p) == 1).findFirst().orElseThrow());
        final byte[] r1 = NodeSessionTest.udpPacket(idB.nodeAddr(), idA.nodeAddr(), 2, 1000);
        deliver(b, atA, r1, 2);
        for (int i = 0; i < 200; i++) {
            a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 100 + i, 1000));
            if (i % 50 == 49) {
                final long want = i - 10;
                until(Duration.ofSeconds(10), () -> atB.packets.stream().filter(p -> seqOf(p) >= 100).count() >= want,
                        () -> "B keeps up");
            }
        }
        until(Duration.ofSeconds(10), () -> atB.packets.stream().filter(p -> seqOf(p) >= 100).count() == 200,
                () -> "all 200 over Tor/SOCKS5: " + atB.packets.size());
        long expect = 100;
        for (final byte[] p : atB.packets) {
            if (seqOf(p) >= 100) {
                assertEquals(expect++, seqOf(p), "in order, nothing lost");
            }
        }
        assertTrue(a.controlApi().showTransports().getFirst().stats().get("packets_sent") > 200);
    }

    /** A dial the proxy answers with reply 05 (nothing listens at the destination) counts connect_refused. */
    @Test
    void failedDialsAreCountedInShowTransports() throws Exception {
        final int socks = startMicrosocks();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int closed = FreePorts.tcp();
        final Node a = start(header(idA, dir.resolve("a.sock")) + "transports:\n  tor:\n"
                + "    ok: { socks5_addr: \"127.0.0.1:" + socks + "\" }\n"
                + "peers:\n  - npub: \"" + idB.npub() + "\"\n    addresses:\n"
                + "      - transport: tor\n        addr: \"127.0.0.1:" + closed + "\"\n", new Collector());
        until(Duration.ofSeconds(20), () -> a.controlApi().showTransports().get(0).stats().get("connect_refused") >= 1,
                () -> "refused dial counted: " + a.controlApi().showTransports().get(0).stats());
        assertEquals(0L, a.controlApi().showTransports().get(0).stats().get("socks5_errors"));
        assertEquals("ok", a.controlApi().showTransports().get(0).name());
        assertEquals(0L, a.controlApi().showTransports().get(0).stats().get("pool_outbound"));
    }
}
