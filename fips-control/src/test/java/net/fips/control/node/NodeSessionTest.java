package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.ask;
import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.seqOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Collector;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.testing.FreePorts;

/**
 * End-to-end sessions between real nodes over loopback UDP, A - B - C with A and C not neighbours, no TUN device:
 * an IPv6 packet A hands its data plane for C's FIPS address starts the XK handshake (A knows C's key, as a DNS
 * answer would tell it), waits in the queue, and arrives at C byte for byte (addresses rebuilt from the session),
 * sealed twice at A, re-sealed at B, opened twice at C; C's answer takes the established session back; the session
 * rekeys under traffic without loss or reordering.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeSessionTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
              rekey:
                enabled: true
                after_secs: 4
            dns:
              enabled: false
            """;

    @TempDir
    Path dir;

    private RunningNodes nodes;

    @BeforeEach
    void setUp() {
        nodes = new RunningNodes(dir);
    }

    @AfterEach
    void closeAll() {
        nodes.close();
    }

    private Node start(final String yaml, final Collector sink) throws Exception {
        return nodes.start(yaml, sink);
    }

    /** A UDP-in-IPv6 packet from {@code src}'s FIPS address to {@code dst}'s carrying {@code seq}. */
    static byte[] udpPacket(final NodeAddr src, final NodeAddr dst, final long seq, final int payload) {
        final ByteBuffer b = ByteBuffer.allocate(40 + 8 + payload);
        b.putInt(0x6000_0000).putShort((short) (8 + payload)).put((byte) 17).put((byte) 64);
        b.putLong(Ipv6Packet.fipsAddressHi(src.hi())).putLong(Ipv6Packet.fipsAddressLo(src.hi(), src.lo()));
        b.putLong(Ipv6Packet.fipsAddressHi(dst.hi())).putLong(Ipv6Packet.fipsAddressLo(dst.hi(), dst.lo()));
        b.putShort((short) 4000).putShort((short) 5000).putShort((short) (8 + payload)).putShort((short) 0);
        b.putLong(seq);
        return b.array();
    }

    /** Packets with a sequence number of at least {@code from}. */
    private static long count(final Collector c, final long from) {
        return c.packets.stream().filter(p -> seqOf(p) >= from).count();
    }

    @Test
    void aPacketForAFarNodeStartsASessionThroughTheMiddleAndComesBack() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final NodeIdentity idC = NodeIdentity.generate();
        final int pb = FreePorts.udp();
        final Collector atA = new Collector();
        final Collector atB = new Collector();
        final Collector atC = new Collector();
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE), atB);
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), NODE, new Peer(idB, "b", pb, true)),
                atA);
        final Node c = start(yaml(idC, FreePorts.udp(), dir.resolve("c.sock"), NODE, new Peer(idB, "b", pb, true)),
                atC);
        until(Duration.ofSeconds(10), () -> linked(a, b) && linked(c, b), () -> "links up");
        until(Duration.ofSeconds(15),
                () -> a.meshSnapshot().root().equals(c.meshSnapshot().root())
                        && a.meshSnapshot().root().equals(b.meshSnapshot().root()),
                () -> "one tree");
        assertTrue(a.learnIdentity(idC.toPeer()));

        // The first packet finds no session: queued behind discovery and the handshake, then delivered intact.
        // Sent again every 500 ms, as ping would, since a lookup made before the bloom filters have spread fails.
        final byte[] first = udpPacket(idA.nodeAddr(), idC.nodeAddr(), 0, 100);
        final long deadline = System.nanoTime() + 20_000_000_000L;
        long nextSend = 0;
        while (atC.packets.isEmpty() && System.nanoTime() - deadline < 0) {
            if (System.nanoTime() - nextSend >= 0) {
                a.dataPlane().sendIpv6(first);
                nextSend = System.nanoTime() + 500_000_000L;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        until(Duration.ofMillis(1), () -> !atC.packets.isEmpty(),
                () -> "C got the first packet; A " + describe(a) + " B " + describe(b) + " C " + describe(c)
                        + " routing A " + ask(a, "show_routing") + " C " + ask(c, "show_routing"));
        assertArrayEquals(first, atC.packets.poll(), "the IPv6 packet arrives byte for byte");
        // Copies of it that were still queued may arrive later: the checks below skip sequence 0.
        assertTrue(b.dataPlane().counter(DataPlaneCounter.FORWARDED) >= 1, "through B");
        assertEquals(0, atB.packets.size(), "nothing for B itself");

        // C answers through the session it now holds as responder.
        final byte[] reply = udpPacket(idC.nodeAddr(), idA.nodeAddr(), 1, 50);
        c.dataPlane().sendIpv6(reply);
        // A's sink may also hold ICMPv6 Destination Unreachable answers to the first tries, sent while no peer's
        // filter held C yet (next header 58); the reply is the UDP packet.
        until(Duration.ofSeconds(10), () -> atA.packets.stream().anyMatch(p -> p[6] == 17),
                () -> "A got the reply: " + describe(c));
        assertArrayEquals(reply, atA.packets.stream().filter(p -> p[6] == 17).findFirst().orElseThrow());
        assertTrue(atA.packets.stream().allMatch(p -> p[6] == 17 || p[6] == 58 && p[40] == 1),
                "nothing else: the reply and unreachable answers to A's own early tries");

        // The operator's view: one established session at each end, A the initiator, in the reference's keys.
        // show_sessions is rendered once per tick: wait for a rendering that has caught up with the traffic above
        // (established at A, A's send counted), not just for one that lists the sessions.
        until(Duration.ofSeconds(5),
                () -> ask(a, "show_sessions").path("sessions").size() == 1
                        && ask(c, "show_sessions").path("sessions").size() == 1
                        && "established".equals(
                                ask(a, "show_sessions").path("sessions").path(0).path("state").asText())
                        && ask(a, "show_sessions").path("sessions").path(0).path("stats").path("packets_sent")
                                .asLong() >= 1,
                () -> "sessions: " + ask(a, "show_sessions"));
        final JsonNode sa = ask(a, "show_sessions").get("sessions").get(0);
        assertEquals(idC.nodeAddr().toString(), sa.get("remote_addr").asText());
        assertEquals("established", sa.get("state").asText());
        assertTrue(sa.get("is_initiator").asBoolean());
        assertEquals(idC.npub(), sa.get("npub").asText());
        for (final String k : List.of("display_name", "last_activity_ms", "stats", "session_start_ms",
                "current_k_bit", "coords_warmup_remaining", "is_draining")) {
            assertTrue(sa.has(k), () -> k + " in " + sa);
        }
        assertTrue(sa.get("stats").get("packets_sent").asLong() >= 1, sa::toString);
        assertEquals(false, ask(c, "show_sessions").get("sessions").get(0).get("is_initiator").asBoolean());
        assertEquals(1, ask(a, "show_status").get("session_count").asInt());
        final JsonNode mmp = ask(a, "show_mmp");
        assertEquals(1, mmp.get("peers").size());
        assertEquals(1, mmp.get("sessions").size());
        // Session MMP: ReceiverReports each way give an SRTT (timestamp echo) and, over two reports, the loss of a
        // lossless loopback path.
        until(Duration.ofSeconds(10), () -> {
            final JsonNode s0 = ask(a, "show_sessions").get("sessions").get(0);
            return s0.path("mmp").has("srtt_ms");
        }, () -> "an SRTT from the session's reports: " + ask(a, "show_sessions"));
        assertTrue(mmp.get("sessions").get(0).get("session_layer").has("path_mtu"));
        assertTrue(mmp.get("peers").get(0).get("link_layer").get("spin_bit_role").isNull(), "no spin bit: null");
        assertTrue(ask(a, "show_status").get("forwarding").get("originated_packets").asLong() >= 1,
                "A's sealed session datagrams count as originated");

        // A steady stream across several rekeys (every ~4 s): every packet, in order.
        final int total = 3_000;
        final long startRekeys = rekeyCount(a) + rekeyCount(c);
        for (int i = 0; i < total; i++) {
            final byte[] p = udpPacket(idA.nodeAddr(), idC.nodeAddr(), 10 + i, 200);
            a.dataPlane().sendIpv6(p);
            if (i % 100 == 99) {
                final int want = i + 1;
                until(Duration.ofSeconds(10), () -> count(atC, 10) >= want - 50, () -> "C keeps up: " + count(atC, 10));
            }
            if (i == total / 2) {
                // Let at least one rekey happen mid-stream.
                until(Duration.ofSeconds(20), () -> rekeyCount(a) + rekeyCount(c) > startRekeys,
                        () -> "a rekey under traffic");
            }
        }
        until(Duration.ofSeconds(10), () -> count(atC, 10) >= total, () -> "C got " + count(atC, 10) + " of " + total);
        long expect = 10;
        for (final byte[] p : atC.packets) {
            if (seqOf(p) != 0) {
                assertEquals(expect++, seqOf(p), "no loss, no reordering");
            }
        }
        assertEquals(10 + total, expect);
        assertTrue(rekeyCount(a) + rekeyCount(c) > startRekeys, "the session rekeyed during the stream");
        until(Duration.ofSeconds(10),
                () -> ask(a, "show_sessions").get("sessions").get(0).path("mmp").path("loss_rate").isNumber(),
                () -> "a measured loss rate: " + ask(a, "show_sessions"));
        assertTrue(ask(a, "show_sessions").get("sessions").get(0).get("mmp").get("loss_rate").asDouble() < 0.05,
                () -> "no loss on loopback: " + ask(a, "show_sessions"));
    }

    /**
     * Nothing lost behind a handshake: three packets handed over at once, with no session yet, wait at A for the
     * handshake, go out right behind msg3 (pipelined, as the reference's initiator sends too), and all three reach
     * B in order. B's data plane holds them while its control thread reads msg3 (before, they were dropped as an
     * unknown session: a new user's first curl failed); the links came up without a frame dropped as an unknown
     * index, though each responder sends its TreeAnnounce right behind its msg2.
     */
    @Test
    void packetsSentRightBehindTheHandshakeAreNotLost() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int pb = FreePorts.udp();
        final Collector atA = new Collector();
        final Collector atB = new Collector();
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE), atB);
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), NODE, new Peer(idB, "b", pb, true)),
                atA);
        until(Duration.ofSeconds(10), () -> linked(a, b), () -> "link up");
        until(Duration.ofSeconds(10), () -> a.meshSnapshot().root().equals(b.meshSnapshot().root()), () -> "one tree");
        assertTrue(a.learnIdentity(idB.toPeer()));

        for (int i = 0; i < 3; i++) {
            a.dataPlane().sendIpv6(udpPacket(idA.nodeAddr(), idB.nodeAddr(), i, 100));
        }
        until(Duration.ofSeconds(10), () -> atB.packets.size() >= 3,
                () -> "B got " + atB.packets.size() + " of 3; A " + describe(a) + " B " + describe(b));
        long expect = 0;
        for (final byte[] p : atB.packets) {
            assertEquals(expect++, seqOf(p), "in order, none lost");
        }
        assertEquals(0, b.dataPlane().counter(DataPlaneCounter.DROP_SESSION_UNKNOWN), () -> describe(b));
        assertEquals(0, b.dataPlane().counter(DataPlaneCounter.DROP_SESSION_HELD_EXPIRED));
        for (final Node n : List.of(a, b)) {
            assertEquals(0, n.dataPlane().counter(DataPlaneCounter.DROP_UNKNOWN_INDEX), () -> describe(n));
            assertEquals(0, n.dataPlane().counter(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED), () -> describe(n));
        }
    }

    private static long rekeyCount(final Node n) {
        return n.dataPlane().counter(DataPlaneCounter.SESSION_CUTOVERS);
    }
}
