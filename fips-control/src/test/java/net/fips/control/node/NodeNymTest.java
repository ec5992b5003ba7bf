package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.deliver;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.seqOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import net.fips.dataplane.nym.NymCounters;
import net.fips.testing.FreePorts;

/**
 * Two real nodes linked over the Nym transport, with Debian's {@code microsocks} (no authentication, as
 * {@code nym-socks5-client} speaks it) standing in for the Nym SOCKS5 client: A dials B's plain TCP listener through
 * the proxy, a session carries packets both ways, and {@code show_transports} renders the reference's Nym stats.
 * Then the proxy process is killed under the established stream: A counts it ({@code recv_errors}), and once a
 * proxy runs on the port again A's link to B comes back by the node's retry schedule. Nothing here is a mixnet: the
 * transport has never run through a real one. Skipped when microsocks is not installed; the data-plane tests
 * ({@code NymTransportTest}) cover the same paths with an in-test mock proxy.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeNymTest {
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

    private void startMicrosocks(final int port) throws Exception {
        microsocks = Microsocks.start(port);
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
    void aDialsBThroughTheSocksProxyAndRedialsAfterTheProxyDies() throws Exception {
        final int socks = FreePorts.tcp();
        startMicrosocks(socks);
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.tcp();
        final Collector atA = new Collector();
        final Collector atB = new Collector();
        final Node b = start(header(idB, dir.resolve("b.sock")) + "transports:\n  tcp:\n"
                + "    bind_addr: \"127.0.0.1:" + portB + "\"\npeers: []\n", atB);
        final Node a = start(header(idA, dir.resolve("a.sock")) + "transports:\n  nym:\n"
                + "    socks5_addr: \"127.0.0.1:" + socks + "\"\n    startup_timeout_secs: 5\n"
                + "peers:\n  - npub: \"" + idB.npub() + "\"\n    alias: \"peer\"\n    addresses:\n"
                + "      - transport: nym\n        addr: \"127.0.0.1:" + portB + "\"\n", atA);
        until(Duration.ofSeconds(20), () -> linked(a, b),
                () -> "link over Nym/SOCKS5: A " + describe(a) + " B " + describe(b));

        final TransportSnapshot ta = a.controlApi().showTransports().getFirst();
        assertEquals("nym", ta.type());
        assertEquals(1400, ta.mtu());
        assertEquals(NymCounters.NYM_STATS_ORDER, List.copyOf(ta.stats().keySet()));
        assertEquals(1L, ta.stats().get("connections_established"));
        assertEquals(0L, ta.stats().get("socks5_errors"));

        assertTrue(a.learnIdentity(idB.toPeer()));
        final byte[] p1 = NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 1, 600);
        deliver(a, atB, p1, 1);
        assertArrayEquals(p1, atB.packets.stream().filter(p -> seqOf(p) == 1).findFirst().orElseThrow());
        final byte[] r1 = NodeSessionTest.udpPacket(idB.nodeAddr(), idA.nodeAddr(), 2, 1000);
        deliver(b, atA, r1, 2);

        // The proxy dies under the established stream: A counts the dropped stream and loses the link.
        microsocks.destroyForcibly().waitFor();
        until(Duration.ofSeconds(20), () -> a.controlApi().showTransports().getFirst().stats().get("recv_errors") >= 1,
                () -> "the dropped stream counted: " + a.controlApi().showTransports().getFirst().stats());
        until(Duration.ofSeconds(20), () -> !linked(a, b), () -> "the link went down: A " + describe(a));
        // A proxy on the port again: the retry schedule redials through it.
        startMicrosocks(socks);
        until(Duration.ofSeconds(30), () -> linked(a, b),
                () -> "relinked over Nym/SOCKS5: A " + describe(a) + " B " + describe(b) + " "
                        + a.controlApi().showTransports().getFirst().stats());
        assertEquals(2L, a.controlApi().showTransports().getFirst().stats().get("connections_established"));
        final byte[] p3 = NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 3, 600);
        deliver(a, atB, p3, 3);
    }

    /** No proxy at start: the start waits startup_timeout_secs, warns, and runs; dials count socks5_errors. */
    @Test
    void withoutAProxyTheNodeStartsAnywayAndCountsFailedDials() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int socks = FreePorts.tcp();
        final Node a = start(header(idA, dir.resolve("a.sock")) + "transports:\n  nym:\n"
                + "    socks5_addr: \"127.0.0.1:" + socks + "\"\n    startup_timeout_secs: 0\n"
                + "peers:\n  - npub: \"" + idB.npub() + "\"\n    addresses:\n"
                + "      - transport: nym\n        addr: \"peer:8443\"\n", new Collector());
        until(Duration.ofSeconds(20),
                () -> a.controlApi().showTransports().getFirst().stats().get("socks5_errors") >= 2,
                () -> "failed dials counted: " + a.controlApi().showTransports().getFirst().stats());
        assertEquals("nym", a.controlApi().showTransports().getFirst().type());
        assertEquals(0L, a.controlApi().showTransports().getFirst().stats().get("connections_established"));
    }
}
