package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.ask;
import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.testing.FreePorts;

/**
 * Real nodes over loopback UDP, A - B - C, B's link to C on a UDP instance with a smaller MTU (1280) than A's link
 * (1500): packets queued for a session show in A's {@code show_routing.pending_tun_*}; a datagram that fits A - B
 * but not B - C is dropped at B in {@code forwarding.drop_mtu_exceeded_*}, B answers A with MtuExceeded
 * ({@code error_signals.mtu_exceeded}), and A's session path MTU comes down to what B - C carries.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeTransitMtuTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
            dns:
              enabled: false
            """;
    /** B - C; A - B and B's other instance carry {@link #BIG_MTU}. */
    private static final int SMALL_MTU = 1280;
    private static final int BIG_MTU = 1500;

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node start(final String yaml) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .ipv6Sink(() -> (segment, offset, length) -> length));
        nodes.add(n);
        return n;
    }

    @Test
    void tooBigForTheNextHopIsCountedSignalledAndLowersTheSourcesPathMtu() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final NodeIdentity idC = NodeIdentity.generate();
        final NodeIdentity idD = NodeIdentity.generate();
        final int pbMain = FreePorts.udp();
        final int pbSmall = FreePorts.udp();
        // B: two UDP instances, the one C uses with MTU 1280 (smaller breaks FilterAnnounce), the other 1500.
        final String yamlB = yaml(idB, pbMain, dir.resolve("b.sock"), NODE).replace(
                "transports:\n  udp:\n    bind_addr: \"127.0.0.1:" + pbMain + "\"\n",
                "transports:\n  udp:\n    main:\n      bind_addr: \"127.0.0.1:" + pbMain + "\"\n      mtu: " + BIG_MTU
                        + "\n"
                        + "    small:\n      bind_addr: \"127.0.0.1:" + pbSmall + "\"\n      mtu: " + SMALL_MTU
                        + "\n");
        assertTrue(yamlB.contains("small:"), yamlB);
        final Node b = start(yamlB);
        final int pa = FreePorts.udp();
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE, new Peer(idB, "b", pbMain, true)).replace(
                "    bind_addr: \"127.0.0.1:" + pa + "\"\n",
                "    bind_addr: \"127.0.0.1:" + pa + "\"\n    mtu: " + BIG_MTU + "\n"));
        final Node c = start(yaml(idC, FreePorts.udp(), dir.resolve("c.sock"), NODE, new Peer(idB, "b", pbSmall,
                true)));
        final Node d = start(yaml(idD, FreePorts.udp(), dir.resolve("d.sock"), NODE, new Peer(idB, "b", pbMain, true)));
        until(Duration.ofSeconds(10), () -> linked(a, b) && linked(c, b) && linked(d, b), () -> "links up");
        until(Duration.ofSeconds(15),
                () -> a.meshSnapshot().root().equals(c.meshSnapshot().root())
                        && a.meshSnapshot().root().equals(b.meshSnapshot().root())
                        && a.meshSnapshot().root().equals(d.meshSnapshot().root()),
                () -> "one tree");

        // A's first packets for C are big: 40 + 8 + 1300 bytes of IPv6, under A's 1500 link but over B - C's 1280
        // once sealed and framed. They wait for the session and leave when it is up, before C's path MTU echo can
        // tell A (sent again every 500 ms, as ping would, since a lookup before the filters have spread fails).
        assertTrue(a.learnIdentity(idC.toPeer()));
        final String cAddr = idC.nodeAddr().toString();
        final long deadline = System.nanoTime() + 20_000_000_000L;
        long nextSend = 0;
        int big = 0;
        while (!established(a, cAddr)) {
            assertTrue(System.nanoTime() - deadline < 0, () -> "a session A - C: " + describe(a));
            if (System.nanoTime() - nextSend >= 0) {
                a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idC.nodeAddr(), big++, 1300));
                nextSend = System.nanoTime() + 500_000_000L;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        // The packets sent while the session came up may all have been answered at A (no route yet) rather than
        // queued: keep sending one every 500 ms until B has dropped one.
        final long dropDeadline = System.nanoTime() + 10_000_000_000L;
        while (b.dataPlane().counter(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED) < 1) {
            assertTrue(System.nanoTime() - dropDeadline < 0, () -> "B drops it: " + describe(b));
            if (System.nanoTime() - nextSend >= 0) {
                a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idC.nodeAddr(), big++, 1300));
                nextSend = System.nanoTime() + 500_000_000L;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        until(Duration.ofSeconds(5),
                () -> ask(b, "show_routing").path("error_signals").path("mtu_exceeded").asLong() >= 1,
                () -> "B signals A: " + ask(b, "show_routing"));
        final JsonNode fwd = ask(b, "show_status").get("forwarding");
        assertTrue(fwd.get("drop_mtu_exceeded_packets").asLong() >= 1, fwd::toString);
        assertTrue(fwd.get("drop_mtu_exceeded_bytes").asLong() > 1300, fwd::toString);
        until(Duration.ofSeconds(5), () -> pathMtu(a, cAddr) <= SMALL_MTU, () -> "A's path MTU: " + ask(a, "show_mmp"));

        // pending_tun_*: D dies without a word; B still claims it, so A's packets for D wait behind a lookup
        // nobody answers. Sent again until one queues (a send before A's filters hold D is a bloom miss).
        d.closeSilently();
        assertTrue(a.learnIdentity(idD.toPeer()));
        final long until = System.nanoTime() + 15_000_000_000L;
        long next = 0;
        int seq = 0;
        while (ask(a, "show_routing").path("pending_tun_packets").asLong() == 0) {
            assertTrue(System.nanoTime() - until < 0, () -> "a packet pending for D: " + ask(a, "show_routing"));
            if (System.nanoTime() - next >= 0) {
                a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idD.nodeAddr(), seq++, 40));
                next = System.nanoTime() + 300_000_000L;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        final JsonNode r = ask(a, "show_routing");
        assertEquals(1, r.get("pending_tun_destinations").asLong(), r::toString);
        final long queued = r.get("pending_tun_packets").asLong();
        a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idD.nodeAddr(), 1000, 40));
        a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idD.nodeAddr(), 1001, 40));
        // at least two more: a packet the loop above sent may still have been on its way to the session layer
        until(Duration.ofSeconds(5), () -> ask(a, "show_routing").path("pending_tun_packets").asLong() >= queued + 2,
                () -> "two more pending (had " + queued + "): " + ask(a, "show_routing"));
    }

    private static boolean established(final Node n, final String remote) {
        for (final JsonNode s : ask(n, "show_sessions").path("sessions")) {
            if (remote.equals(s.path("remote_addr").asText())) {
                return "established".equals(s.path("state").asText());
            }
        }
        return false;
    }

    /** The session path MTU toward {@code remote} in show_mmp, or Long.MAX_VALUE while there is none. */
    private static long pathMtu(final Node n, final String remote) {
        for (final JsonNode s : ask(n, "show_mmp").path("sessions")) {
            if (s.toString().contains(remote) && s.path("session_layer").path("path_mtu").isNumber()) {
                return s.path("session_layer").path("path_mtu").asLong();
            }
        }
        return Long.MAX_VALUE;
    }
}
