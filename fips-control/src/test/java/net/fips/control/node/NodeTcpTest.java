package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.deliver;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.seqOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Locale;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.TransportSnapshot;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Collector;
import net.fips.testing.FreePorts;

/**
 * Two real nodes over loopback TCP only (no UDP transport at all): B listens, A dials it from an outbound-only
 * TCP transport; the link comes up, an end-to-end session carries IPv6 packets both ways, show_transports renders
 * the reference's TCP shape, and after B crashes and a new B starts on the same port A's TCP transport reconnects:
 * A's sends find no connection and dial again, A's link to the old B dies of silence (link_dead_timeout_secs),
 * and the configured peer is dialled again over the new connection.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeTcpTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              link_dead_timeout_secs: 4
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

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    static String yaml(final NodeIdentity self, final Path socket, final Integer listenPort, final NodeIdentity peer,
                       final Integer peerPort) {
        final StringBuilder sb = new StringBuilder();
        sb.append("node:\n  identity:\n    nsec: \"").append(self.nsec()).append("\"\n");
        sb.append("  control:\n    enabled: true\n    socket_path: \"").append(socket).append("\"\n");
        sb.append(NODE);
        sb.append("transports:\n  tcp:\n");
        if (listenPort != null) {
            sb.append("    bind_addr: \"127.0.0.1:").append(listenPort).append("\"\n");
        } else {
            sb.append("    mtu: 1400\n");
        }
        if (peer == null) {
            sb.append("peers: []\n");
        } else {
            sb.append("peers:\n  - npub: \"").append(peer.npub()).append("\"\n    alias: \"peer\"\n");
            sb.append("    addresses:\n      - transport: tcp\n        addr: \"127.0.0.1:").append(peerPort)
                    .append("\"\n");
        }
        return sb.toString();
    }

    private Node start(final String yaml, final Collector sink) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .ipv6Sink(sink::sink));
        nodes.add(n);
        return n;
    }

    @Test
    void twoNodesOverTcpCarrySessionsAndReconnectAfterARestart() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.tcp();
        final Collector atA = new Collector();
        final Collector atB = new Collector();
        final Node b = start(yaml(idB, dir.resolve("b.sock"), portB, null, null), atB);
        final Node a = start(yaml(idA, dir.resolve("a.sock"), null, idB, portB), atA);
        until(Duration.ofSeconds(15), () -> linked(a, b),
                () -> "link over TCP: A " + describe(a) + " B " + describe(b));
        assertEquals(0, peerOf(a, b).transportId());

        // show_transports: the reference's TCP shape.
        final TransportSnapshot ta = a.controlApi().showTransports().getFirst();
        final TransportSnapshot tb = b.controlApi().showTransports().getFirst();
        assertEquals("tcp", ta.type());
        assertEquals(1400, ta.mtu());
        assertEquals("up", ta.state().toString().toLowerCase(Locale.ROOT));
        assertNull(ta.localAddr(), "an outbound-only TCP transport has no local address");
        assertEquals("127.0.0.1:" + portB, tb.localAddr());
        assertEquals(List.of("packets_sent", "bytes_sent", "packets_recv", "bytes_recv", "send_errors",
                "recv_errors", "mtu_exceeded", "connections_established", "connections_accepted",
                "connections_rejected", "connect_timeouts", "connect_refused", "pool_inbound", "pool_outbound"),
                List.copyOf(ta.stats().keySet()));
        assertEquals(1L, ta.stats().get("connections_established"));
        assertEquals(1L, ta.stats().get("pool_outbound"));
        assertEquals(1L, tb.stats().get("connections_accepted"));
        assertEquals(1L, tb.stats().get("pool_inbound"));
        final JsonNode status = NodeTestSupport.ask(a, "show_status");
        assertEquals(1, status.get("transport_peer_counts").get("tcp").asInt(), status::toString);
        final JsonNode links = NodeTestSupport.ask(a, "show_links");
        assertTrue(links.toString().contains("127.0.0.1:" + portB), links::toString);

        // A session both ways over the TCP link.
        assertTrue(a.learnIdentity(idB.toPeer()));
        final byte[] p1 = NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 1, 600);
        deliver(a, atB, p1, 1);
        assertArrayEquals(p1, atB.packets.stream().filter(p -> seqOf(p) == 1).findFirst().orElseThrow());
        final byte[] r1 = NodeSessionTest.udpPacket(idB.nodeAddr(), idA.nodeAddr(), 2, 1000);
        deliver(b, atA, r1, 2);
        for (int i = 0; i < 500; i++) {
            a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 100 + i, 1000));
            if (i % 50 == 49) {
                final long want = i - 10;
                until(Duration.ofSeconds(10), () -> atB.packets.stream().filter(p -> seqOf(p) >= 100).count() >= want,
                        () -> "B keeps up");
            }
        }
        until(Duration.ofSeconds(10), () -> atB.packets.stream().filter(p -> seqOf(p) >= 100).count() == 500,
                () -> "all 500 over TCP: " + atB.packets.size());
        long expect = 100;
        for (final byte[] p : atB.packets) {
            if (seqOf(p) >= 100) {
                assertEquals(expect++, seqOf(p), "TCP: in order, nothing lost");
            }
        }

        // B crashes (no Disconnect); a new B on the same port: A's TCP transport reconnects and the link returns.
        final long oldLink = peerOf(a, b).linkId();
        b.closeSilently();
        nodes.remove(b);
        final Collector atB2 = new Collector();
        final Node b2 = start(yaml(idB, dir.resolve("b2.sock"), portB, null, null), atB2);
        until(Duration.ofSeconds(30),
                () -> peerOf(a, b2) != null && peerOf(b2, a) != null && peerOf(a, b2).linkId() != oldLink,
                () -> "relink after the restart: A " + describe(a) + " B2 " + describe(b2));
        final TransportSnapshot ta2 = a.controlApi().showTransports().getFirst();
        assertTrue(ta2.stats().get("connections_established") >= 2, ta2.stats()::toString);
        assertEquals(1L, ta2.stats().get("pool_outbound"), "the dead connection left the pool");
        assertNotEquals(0L, ta2.stats().get("packets_recv"));
        final byte[] p3 = NodeSessionTest.udpPacket(idA.nodeAddr(), idB.nodeAddr(), 5000, 300);
        deliver(a, atB2, p3, 5000);
    }
}
