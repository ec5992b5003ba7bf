package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionSetup;

/**
 * Transit forwarding: the data plane under test is B, in SHARED mode with a manual clock; A and C are plain
 * DatagramChannels speaking FMP with test-side framing ({@link FrameCodec}), so the test sees the exact frames B
 * forwards: flags, counters, payload_len, TTL, path_mtu and content.
 *
 * <pre>
 *   A(addr 0x30) --link 1-- B(addr 0x20) --link 2-- C(addr 0x10, root)      tree: C - B - A
 * </pre>
 * With two workers, link 1 is pinned to worker 1 and link 2 to worker 0, so every forward crosses workers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataPlaneTransitTest extends TransitHarness {
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void forwardsBothWaysWithTtlPathMtuCeAndOrder(final int workers) throws Exception {
        start(workers, true);
        final int n = 40;
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final byte[] d = datagram(10 + i % 5, i % 2 == 0 ? 1400 : 1000, A, C, payload(i, 60 + i));
            sent.add(d);
            fromA(i % 3 == 0 ? 0x02 : 0, d);
        }
        for (int i = 0; i < n; i++) {
            final Frame f = receive(c, B_TO_C);
            assertEquals(i, f.counter(), "B's counter on link C, in order");
            assertForwarded(f, C_IDX, i % 3 == 0 ? 0x02 : 0, sent.get(i), LINK_MTU_C);
        }
        // And back: C to A through B, path_mtu folded with A's 1280.
        for (int i = 0; i < n; i++) {
            final byte[] d = datagram(64, 65535, C, A, payload(1000 + i, 100));
            fromC(i % 2 == 0 ? 0x02 : 0, d);
            final Frame f = receive(a, B_TO_A);
            assertForwarded(f, A_IDX, i % 2 == 0 ? 0x02 : 0, d, 1280);
        }
        assertEquals(2L * n, dp.counter(DataPlaneCounter.FORWARDED));
        assertEquals(2L * n, dp.counter(DataPlaneCounter.ROUTE_DIRECT_PEER));
        assertEquals(workers == 2 ? 2L * n : 0, dp.counter(DataPlaneCounter.HANDOFFS));
        assertEquals(0, dp.counter(DataPlaneCounter.DATAGRAMS_DELIVERED));
        assertTrue(delivered.isEmpty());
        assertNull(dp.agentFailure());
    }

    /**
     * ECN (routing-session §6.6): CE_out = CE_in OR congestion of the next hop's link. A congested link C marks
     * every transit datagram towards C (counted as congestion_detected and ce_forwarded), not those towards A;
     * a link message we originate on C is never marked; clearing the flag stops the marking.
     */
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void congestedNextHopMarksTransitCeOnlyAndNeverOurOwnFrames(final int workers) throws Exception {
        start(workers, true);
        final byte[] plain = datagram(9, 1280, A, C, payload(1, 60));
        fromA(0, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, plain, LINK_MTU_C);
        fromA(0x02, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0x02, plain, LINK_MTU_C);
        assertEquals(1, dp.counter(DataPlaneCounter.CE_FORWARDED), "a relayed CE counts");
        assertEquals(0, dp.counter(DataPlaneCounter.CONGESTION_DETECTED));

        dp.setLinkCongested(LINK_C, true);
        fromA(0, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0x02, plain, LINK_MTU_C);
        fromA(0x02, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0x02, plain, LINK_MTU_C);
        assertEquals(2, dp.counter(DataPlaneCounter.CONGESTION_DETECTED));
        assertEquals(3, dp.counter(DataPlaneCounter.CE_FORWARDED));
        // The other direction's link is not congested: no mark.
        final byte[] back = datagram(9, 1280, C, A, payload(2, 60));
        fromC(0, back);
        assertForwarded(receive(a, B_TO_A), A_IDX, 0, back, 1280);
        // Our own frame on the congested link: never CE.
        dp.sendLinkMessage(LINK_C, datagram(5, 1280, B, C, payload(3, 40)));
        assertEquals(0, receive(c, B_TO_C).flags() & 0x02, "originated frames carry no CE");

        dp.setLinkCongested(LINK_C, false);
        fromA(0, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, plain, LINK_MTU_C);
        assertEquals(2, dp.counter(DataPlaneCounter.CONGESTION_DETECTED));
        assertEquals(3, dp.counter(DataPlaneCounter.CE_FORWARDED));
        assertEquals(6, dp.counter(DataPlaneCounter.FORWARDED));
        assertNull(dp.agentFailure());
    }

    /**
     * Two workers keep order across the hand-off with the agents on their own threads (the handoff rings between two
     * worker threads), and with both workers on the one compact thread.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "COMPACT"})
    void threadedTwoWorkersKeepOrderAcrossTheHandoff(final ThreadingMode mode) throws Exception {
        dedicated = true;
        start(2, true, mode);
        final int n = 300;
        final int burst = 20;   // small enough for the receiving socket's buffer
        for (int b = 0; b < n; b += burst) {
            final List<byte[]> sent = new ArrayList<>();
            for (int i = b; i < b + burst; i++) {
                final byte[] d = datagram(30, 1400, A, C, payload(i, 80 + i % 200));
                sent.add(d);
                fromA(i % 7 == 0 ? 0x02 : 0, d);
            }
            for (int i = b; i < b + burst; i++) {
                final Frame f = receive(c, B_TO_C);
                assertEquals(i, f.counter(), "in order");
                assertForwarded(f, C_IDX, i % 7 == 0 ? 0x02 : 0, sent.get(i - b), LINK_MTU_C);
            }
        }
        assertEquals(n, dp.counter(DataPlaneCounter.HANDOFFS));
        assertNull(dp.agentFailure());
    }

    /**
     * Two workers, but both of B's links pinned to worker 1 (ids 3 and 1): a forward is re-sealed on the worker that
     * opened it, with no hand-off. Both directions are interleaved in bursts, so a forward sent out of the wrong
     * link would fail to open with that link's key (or land on the wrong channel), and one sent out of order would
     * break the per-link counter sequence; every datagram's content is compared. Run single-threaded, on the
     * compact thread, and with every agent on its own thread.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ThreadingMode.class, names = {"SHARED", "DEDICATED", "COMPACT"})
    void linksOnOneWorkerForwardWithoutHandoffInOrderBothWays(final ThreadingMode mode) throws Exception {
        dedicated = mode != ThreadingMode.SHARED;
        linkA = 3;
        linkC = 1;
        assertEquals(Pinning.ofLink(linkA, 2), Pinning.ofLink(linkC, 2), "both links on one worker");
        start(2, true, mode);
        final int rounds = 12;
        final int burst = 10;   // small enough for the receiving sockets' buffers
        long toC = 0;
        long toA = 0;
        for (int r = 0; r < rounds; r++) {
            final List<byte[]> sentToC = new ArrayList<>();
            final List<byte[]> sentToA = new ArrayList<>();
            for (int i = 0; i < burst; i++) {
                final byte[] forward = datagram(20, 1400, A, C, payload(toC + i, 64 + (i * 37) % 300));
                final byte[] back = datagram(20, 65535, C, A, payload(100_000 + toA + i, 48 + (i * 53) % 400));
                sentToC.add(forward);
                sentToA.add(back);
                fromA(i % 4 == 0 ? 0x02 : 0, forward);
                fromC(i % 3 == 0 ? 0x02 : 0, back);
            }
            for (int i = 0; i < burst; i++) {
                final Frame f = receive(c, B_TO_C);
                assertEquals(toC + i, f.counter(), "B's counter on link C, in order");
                assertForwarded(f, C_IDX, i % 4 == 0 ? 0x02 : 0, sentToC.get(i), LINK_MTU_C);
            }
            for (int i = 0; i < burst; i++) {
                final Frame f = receive(a, B_TO_A);
                assertEquals(toA + i, f.counter(), "B's counter on link A, in order");
                assertForwarded(f, A_IDX, i % 3 == 0 ? 0x02 : 0, sentToA.get(i), 1280);
            }
            toC += burst;
            toA += burst;
        }
        assertEquals(toC + toA, dp.counter(DataPlaneCounter.FORWARDED));
        assertEquals(0, dp.counter(DataPlaneCounter.HANDOFFS), "no hand-off between workers");
        assertEquals(0, dp.counter(DataPlaneCounter.DATAGRAMS_DELIVERED));
        assertTrue(delivered.isEmpty());
        assertNull(dp.agentFailure());
    }

    @Test
    void ttlZeroIsDroppedEvenForUsAndTtlOneLeavesWithZero() throws Exception {
        start(1, true);
        fromA(0, datagram(0, 1280, A, B, payload(1, 40)));
        pumpUntil(DataPlaneCounter.DROP_TTL_EXHAUSTED, 1);
        fromA(0, datagram(0, 1280, A, C, payload(2, 40)));
        pumpUntil(DataPlaneCounter.DROP_TTL_EXHAUSTED, 2);
        final byte[] one = datagram(1, 1280, A, C, payload(3, 40));
        fromA(0, one);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, one, LINK_MTU_C);
        final byte[] forUs = datagram(1, 1280, A, B, payload(4, 40));
        fromA(0, forUs);
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 1);
        assertArrayEquals(forUs, delivered.getFirst(), "local delivery of the datagram as received");
        assertEquals(1, delivered.size());
    }

    @Test
    void shortDatagramIsAMalformedDrop() throws Exception {
        start(1, true);
        fromA(0, Arrays.copyOf(datagram(5, 1280, A, C, new byte[0]), 35));
        pumpUntil(DataPlaneCounter.DROP_MALFORMED_DATAGRAM, 1);
        assertEquals(0, dp.counter(DataPlaneCounter.FORWARDED));
    }

    @Test
    void withoutATableEveryDatagramIsDeliveredLocally() throws Exception {
        start(1, false);
        fromA(0, datagram(0, 1280, A, C, payload(1, 40)));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 1);
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_TTL_EXHAUSTED));
    }

    @Test
    void noRouteFloodRaisesOneErrorPerDestinationPer100Ms() throws Exception {
        start(1, false);
        final NodeAddr far = addr(0x50);
        cache.insert(far, Coords.of(far, addr(0x60)), clock.get());   // another tree: coordinates, no route
        publish();
        for (int i = 0; i < 30; i++) {
            fromA(0, datagram(9, 1280, A, D, payload(i, 40)));
            fromA(0, datagram(9, 1280, A, far, payload(i, 40)));
        }
        pumpUntil(DataPlaneCounter.DROP_NO_ROUTE, 60);
        // Each names the link the dropped datagram came in on (ADR 0064: the way back when there is no route).
        assertEquals(List.of(
                new DataPlaneEvent.RoutingError(A, D, DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, LINK_A),
                new DataPlaneEvent.RoutingError(A, far, DataPlaneEvent.RoutingErrorKind.PATH_BROKEN, LINK_A)),
                events);
        assertEquals(58, dp.counter(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED));
        // 99 ms later still suppressed; at 100 ms one more per destination.
        clock.addAndGet(99_000_000L);
        fromA(0, datagram(9, 1280, A, D, payload(100, 40)));
        pumpUntil(DataPlaneCounter.DROP_NO_ROUTE, 61);
        assertEquals(2, events.size());
        clock.addAndGet(1_000_000L);
        fromA(0, datagram(9, 1280, A, D, payload(101, 40)));
        fromA(0, datagram(9, 1280, A, D, payload(102, 40)));
        pumpUntil(DataPlaneCounter.DROP_NO_ROUTE, 63);
        assertEquals(new DataPlaneEvent.RoutingError(A, D, DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, LINK_A),
                events.get(2));
        assertEquals(3, events.size());
    }

    /**
     * §4.2 step 8 / §4.5: a transit datagram that does not fit the next hop's transport (MTU 600 toward C) is dropped
     * in its own counter, packets and bytes, and raises one MtuExceeded event per destination per 100 ms carrying
     * that MTU; one that fits exactly still goes through.
     */
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void tooBigForTheNextHopIsDroppedCountedAndRaisesOneMtuExceededPer100Ms(final int workers) throws Exception {
        final int mtu = 600;
        start(workers, true, ThreadingMode.SHARED, mtu);
        // Framed size = 16 (FMP header) + 4 (timestamp) + datagram + 16 (tag): 564 bytes of datagram fit exactly.
        final byte[] fits = datagram(9, 1280, A, C, payload(1, 564 - 36));
        fromA(0, fits);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, fits, LINK_MTU_C);
        final byte[] big = datagram(9, 1280, A, C, payload(2, 565 - 36));
        for (int i = 0; i < 5; i++) {
            fromA(0, big);
        }
        pumpUntil(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED, 5);
        assertEquals(5L * (big.length - 1), dp.counter(DataPlaneCounter.FORWARD_MTU_EXCEEDED_BYTES),
                "bytes without the link message type byte");
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_MTU), "not also in the generic counter");
        assertEquals(1, dp.counter(DataPlaneCounter.FORWARDED));
        assertEquals(List.of(new DataPlaneEvent.ForwardMtuExceeded(A, C, mtu)), events);
        assertEquals(4, dp.counter(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED));
        clock.addAndGet(99_000_000L);
        fromA(0, big);
        pumpUntil(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED, 6);
        assertEquals(1, events.size());
        clock.addAndGet(1_000_000L);
        fromA(0, big);
        pumpUntil(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED, 7);
        assertEquals(List.of(new DataPlaneEvent.ForwardMtuExceeded(A, C, mtu),
                new DataPlaneEvent.ForwardMtuExceeded(A, C, mtu)), events);
        assertEquals(2, dp.counter(DataPlaneCounter.ROUTING_ERRORS_REPORTED));
        assertNull(dp.agentFailure());
    }

    /** One limiter for every kind (§4.5): a no-route error for D holds back an MtuExceeded for D for 100 ms. */
    @Test
    void mtuExceededAndNoRouteShareTheLimiterOfADestination() throws Exception {
        start(1, true, ThreadingMode.SHARED, 600);
        fromA(0, datagram(9, 1280, A, D, payload(1, 40)));
        pumpUntil(DataPlaneCounter.DROP_NO_ROUTE, 1);
        // Now D's coordinates put it under C: greedy routing sends it there, and a big one does not fit.
        cache.insert(D, Coords.of(D, C), clock.get());
        publish();
        final byte[] big = datagram(9, 1280, A, D, payload(2, 700));
        fromA(0, big);
        pumpUntil(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED, 1);
        assertEquals(List.of(
                new DataPlaneEvent.RoutingError(A, D, DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, LINK_A)),
                events);
        assertEquals(1, dp.counter(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED));
        clock.addAndGet(ROUTING_INTERVAL);
        fromA(0, big);
        pumpUntil(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED, 2);
        assertEquals(new DataPlaneEvent.ForwardMtuExceeded(A, D, 600), events.get(1));
        assertEquals(2, events.size());
    }

    private static final long ROUTING_INTERVAL = Transit.ROUTING_ERROR_INTERVAL_NANOS;

    @Test
    void sessionSetupCoordinatesRouteThePacketAndAreReported() throws Exception {
        start(2, true);
        final Coords dCoords = Coords.of(D, C);
        final byte[] setup = new SessionSetup(0, A_COORDS, dCoords, new byte[SessionSetup.XK_SIZE]).encode();
        final byte[] d = datagram(20, 1400, A, D, setup);
        fromA(0, d);
        // The cache has nothing for D: the packet's coordinates put C (distance 1) closer than B (2).
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, d, LINK_MTU_C);
        assertEquals(List.of(new DataPlaneEvent.CoordsObserved(A, A_COORDS, D, dCoords)), events);
        assertEquals(1, dp.counter(DataPlaneCounter.ROUTE_TREE_UP));
        // An ordinary datagram to D is not routable until the control plane caches the coordinates.
        fromA(0, datagram(20, 1400, A, D, payload(1, 40)));
        pumpUntil(DataPlaneCounter.DROP_NO_ROUTE, 1);
        cache.insert(D, dCoords, clock.get());
        publish();
        final byte[] plain = datagram(20, 1400, A, D, payload(2, 40));
        fromA(0, plain);
        assertForwarded(receive(c, B_TO_C), C_IDX, 0, plain, LINK_MTU_C);
    }

    @Test
    void cpCoordinatesAreReportedAtTheDestinationToo() throws Exception {
        start(1, true);
        final byte[] cp = new FspCpCoords(C_COORDS, Coords.EMPTY).encode();
        final byte[] fsp = new byte[12 + cp.length + 30];
        fsp[0] = 0x00;
        fsp[1] = 0x01;   // CP
        System.arraycopy(cp, 0, fsp, 12, cp.length);
        fromC(0, datagram(3, 1280, C, B, fsp));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 1);
        assertEquals(List.of(new DataPlaneEvent.CoordsObserved(C, C_COORDS, B, null)), events);
        // Malformed coordinates are ignored: the datagram is still delivered, nothing reported.
        final byte[] bad = fsp.clone();
        bad[12] = 0x7F;
        fromC(0, datagram(3, 1280, C, B, bad));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 2);
        assertEquals(1, events.size());
        assertEquals(1, dp.counter(DataPlaneCounter.COORDS_OBSERVED));
    }

    @Test
    void framesOurSenderSealsPassAReceiverThatChecksPayloadLen() throws Exception {
        // B forwards A's datagram to a second data plane standing in for C, which enforces payload_len.
        a = channel();
        c = channel();
        final List<byte[]> atC = new ArrayList<>();
        final LocalDelivery hook = (linkId, seg, off, len) ->
                atC.add(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
        try (DataPlane cp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).poolSlots(64)
                .localDelivery(hook).nanoClock(clock::get))) {
            cp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
            cp.start();
            dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).poolSlots(64)
                    .localDelivery((l, s, o, n) -> { }).nanoClock(clock::get));
            dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
            dp.start();
            dpAddress = dp.udpTransport(0).localAddress();
            dp.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet((InetSocketAddress) a.getLocalAddress()),
                    B_IDX_A, A_IDX, B_TO_A, A_TO_B, clock.get()));
            dp.addLink(new LinkSpec(LINK_C, 0, TransportAddr.ofInet(cp.udpTransport(0).localAddress()),
                    B_IDX_C, C_IDX, B_TO_C, C_TO_B, clock.get()));
            cp.addLink(new LinkSpec(9, 0, TransportAddr.ofInet(dpAddress), C_IDX, B_IDX_C, C_TO_B, B_TO_C,
                    clock.get()));
            publish();
            for (int i = 0; i < 5; i++) {
                fromA(0, datagram(9, 1280, A, C, payload(i, 50 + 100 * i)));
            }
            final long start = System.nanoTime();
            while (atC.size() < 5) {
                dp.doWork();
                cp.doWork();
                if (System.nanoTime() - start > DEADLINE_NS) {
                    fail("not delivered: " + counters());
                }
            }
            assertEquals(0, cp.counter(DataPlaneCounter.DROP_BAD_PAYLOAD_LEN));
            assertEquals(5, cp.counter(DataPlaneCounter.FRAMES_IN));
            // A frame whose payload_len is off by one is dropped before decryption.
            final byte[] tampered = codec.seal(B_TO_C, 0, C_IDX, 100, 1, datagram(9, 1280, A, C, payload(9, 50)));
            tampered[2]++;
            try (DatagramChannel x = channel()) {
                x.send(ByteBuffer.wrap(tampered), cp.udpTransport(0).localAddress());
            }
            while (cp.counter(DataPlaneCounter.DROP_BAD_PAYLOAD_LEN) < 1) {
                cp.doWork();
                if (System.nanoTime() - start > DEADLINE_NS) {
                    fail("not dropped");
                }
            }
            assertEquals(0, cp.counter(DataPlaneCounter.DROP_AUTH_FAILED));
            assertEquals(5, atC.size());
            final SessionDatagram first = SessionDatagram.decode(atC.getFirst(), 0, atC.getFirst().length)
                    .valueOrNull();
            assertEquals(8, first.ttl());
            assertArrayEquals(payload(0, 50), first.payload());
        }
        assertNotNull(MemorySegment.NULL);
    }

    /**
     * Bounded, seeded fuzzing of the transit path: random datagrams and mutations of SessionSetup, SessionAck-like
     * and CP datagrams, through two workers. Every frame must end in exactly one outcome (forwarded, delivered or a
     * counted drop) and nothing may throw.
     */
    @Test
    void fuzzedDatagramsAreEachForwardedDeliveredOrACountedDrop() throws Exception {
        start(2, true);
        final Random rnd = new Random(0xF1F5);
        final byte[] setup = datagram(9, 1280, A, D, new SessionSetup(0, A_COORDS, Coords.of(D, C),
                new byte[SessionSetup.XK_SIZE]).encode());
        final byte[] cpCoords = new FspCpCoords(A_COORDS, Coords.of(D, C)).encode();
        final byte[] cpMsg = new byte[12 + cpCoords.length + 20];
        cpMsg[1] = 0x01;
        System.arraycopy(cpCoords, 0, cpMsg, 12, cpCoords.length);
        final byte[] cp = datagram(9, 1280, A, D, Arrays.copyOf(cpMsg, cpMsg.length));
        final NodeAddr[] dests = {A, B, C, D};
        int sent = 0;
        for (int round = 0; round < 40; round++) {
            for (int i = 0; i < 25; i++) {
                final byte[] m;
                switch (rnd.nextInt(4)) {
                    case 0 -> {
                        m = new byte[1 + rnd.nextInt(120)];
                        rnd.nextBytes(m);
                        m[0] = 0;
                    }
                    case 1 -> {
                        m = setup.clone();
                        for (int k = rnd.nextInt(4); k >= 0; k--) {
                            m[1 + rnd.nextInt(m.length - 1)] = (byte) rnd.nextInt();
                        }
                    }
                    case 2 -> {
                        m = Arrays.copyOf(cp, 1 + rnd.nextInt(cp.length));
                        if (m.length > 36) {
                            m[36 + rnd.nextInt(m.length - 36)] = (byte) rnd.nextInt();
                        }
                    }
                    default -> m = datagram(rnd.nextInt(3), 1280, A, dests[rnd.nextInt(4)], payload(i, 20 + i));
                }
                fromA(0, m);
                sent++;
            }
            final long want = sent;
            pumpUntil(() -> outcomes() >= want);
            drain(a);
            drain(c);
        }
        assertEquals(sent, outcomes(), counters());
        assertTrue(dp.counter(DataPlaneCounter.COORDS_OBSERVED) > 0, counters());
        assertTrue(dp.counter(DataPlaneCounter.FORWARDED) > 0, counters());
        assertNull(dp.agentFailure());
    }
}
