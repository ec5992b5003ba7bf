package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.lang.foreign.Arena;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.JdkAeadCipher;
import net.fips.dataplane.ipv6.EncapsulationBudget;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.ipv6.ShimBody;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;

/**
 * The session data path of one data plane (B, SHARED mode, manual clock) against a test-side peer A that speaks
 * FMP and FSP with its own framing on heap arrays, so every byte B puts on the wire is checked: SessionDatagram
 * header, FSP header (K, CP, counter, payload_len), cleartext warm-up coordinates, inner header, port-256 shim; and
 * every packet A sends comes out of B's IPv6 sink rebuilt exactly (addresses from the session, ECN CE from the FMP
 * frame). Also: K-bit trial cutover to pending keys, replay and forgery drops, Packet Too Big, MSS clamping, no route
 * answered with Destination Unreachable, a packet without a session passed to the control plane, garbage counted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataPlaneSessionTest {
    private static final long LINK_A = 1;
    private static final int B_IDX = 0x101;
    private static final int A_IDX = 0x102;
    private static final byte[] B_TO_A = FrameCodec.key(31);
    private static final byte[] A_TO_B = FrameCodec.key(32);
    private static final byte[] S_B_TO_A = FrameCodec.key(41);
    private static final byte[] S_A_TO_B = FrameCodec.key(42);
    private static final byte[] S2_B_TO_A = FrameCodec.key(43);
    private static final byte[] S2_A_TO_B = FrameCodec.key(44);
    private static final NodeAddr A = DataPlaneTransitTest.addr(0x30);
    private static final NodeAddr B = DataPlaneTransitTest.addr(0x20);
    private static final NodeAddr D = DataPlaneTransitTest.addr(0x50);
    private static final Coords B_COORDS = Coords.of(B);
    private static final Coords A_COORDS = Coords.of(A, B);
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(20);

    private final FrameCodec codec = new FrameCodec();
    private final AtomicLong clock = new AtomicLong(7_000_000_000L);
    private final List<DataPlaneEvent> events = new ArrayList<>();
    private final List<byte[]> sink = new ArrayList<>();
    private DatagramChannel a;
    private DataPlane dp;
    private InetSocketAddress dpAddress;
    private long aCounter;

    @AfterEach
    void tearDown() throws IOException {
        if (dp != null) {
            dp.close();
        }
        if (a != null) {
            a.close();
        }
    }

    private void start() throws IOException {
        startWithoutSession();
        dp.addSession(new SessionSpec(A, S_B_TO_A, S_A_TO_B, false, clock.get(), 64));
    }

    private void startWithoutSession() throws IOException {
        a = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        a.configureBlocking(false);
        dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).workerCount(2).poolSlots(512)
                .eventQueueCapacity(4096).nanoClock(clock::get).sessionPath(true)
                .ipv6SinkSupplier(() -> (seg, off, len) -> {
                    sink.add(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    return len;
                }));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
        dp.start();
        dpAddress = dp.udpTransport(0).localAddress();
        dp.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet((InetSocketAddress) a.getLocalAddress()),
                B_IDX, A_IDX, B_TO_A, A_TO_B, clock.get()));
        dp.setForwardingTable(ForwardingTable.builder(B, B_COORDS)
                .peer(new ForwardingTable.Peer(A, LINK_A, A_COORDS, 1.0, 1280, true, ForwardingTable.TreeRole.CHILD))
                .build());
    }

    private void pumpUntil(final BooleanSupplier condition) {
        final long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            dp.doWork();
            dp.drainEvents(events::add);
            if (System.nanoTime() - start > DEADLINE_NS) {
                fail("condition not reached; counters: " + counters());
            }
        }
        dp.drainEvents(events::add);
    }

    private void pump(final DataPlaneCounter counter, final long atLeast) {
        pumpUntil(() -> dp.counter(counter) >= atLeast);
    }

    private String counters() {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter k : DataPlaneCounter.values()) {
            if (dp.counter(k) != 0) {
                sb.append(k).append('=').append(dp.counter(k)).append(' ');
            }
        }
        return sb.toString();
    }

    /** A TCP or UDP packet (next header {@code proto}) from {@code src}'s FIPS address to {@code dst}'s. */
    static byte[] packet(final NodeAddr src, final NodeAddr dst, final int proto, final int payload, final int tc) {
        final int l4 = proto == 6 ? 24 : 8;
        final ByteBuffer b = ByteBuffer.allocate(40 + l4 + payload);
        b.putInt(0x6000_0000 | tc << 20 | 0x12345).putShort((short) (l4 + payload)).put((byte) proto)
                .put((byte) 61);
        b.putLong(Ipv6Packet.fipsAddressHi(src.hi())).putLong(Ipv6Packet.fipsAddressLo(src.hi(), src.lo()));
        b.putLong(Ipv6Packet.fipsAddressHi(dst.hi())).putLong(Ipv6Packet.fipsAddressLo(dst.hi(), dst.lo()));
        if (proto == 6) {
            // SYN with one MSS option of 1460
            b.putShort((short) 40000).putShort((short) 22).putInt(1).putInt(0).put((byte) 0x60).put((byte) 0x02)
                    .putShort((short) 65535).putShort((short) 0).putShort((short) 0);
            b.put((byte) 2).put((byte) 4).putShort((short) 1460);
        } else {
            b.putShort((short) 4000).putShort((short) 5000).putShort((short) (8 + payload)).putShort((short) 0);
        }
        for (int i = 0; i < payload; i++) {
            b.put((byte) (i * 7 + 3));
        }
        return b.array();
    }

    /** What A received from B, opened at both layers. */
    private record Received(int fmpFlags, SessionDatagram datagram, int fspFlags, long counter, int payloadLen,
                            byte[] coords, byte[] inner) {
    }

    private Received receiveAtA(final byte[] sessionKey) {
        final byte[] frame = FrameCodec.receive(a, 4096, this::pumpUntil);
        final byte[] message = codec.open(B_TO_A, frame, frame.length);
        assertNotNull(message, "FMP authenticates");
        final SessionDatagram dg = SessionDatagram.decode(message, 0, message.length).valueOrNull();
        assertNotNull(dg, "a SessionDatagram");
        final byte[] fsp = dg.payload();
        final ByteBuffer h = ByteBuffer.wrap(fsp).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0, fsp[0], "version 0, phase 0");
        final int flags = fsp[1] & 0xFF;
        final int payloadLen = h.getShort(2) & 0xFFFF;
        final long counter = h.getLong(4);
        int ct = 12;
        if ((flags & 0x01) != 0) {
            for (int list = 0; list < 2; list++) {
                ct += 2 + 16 * (ByteBuffer.wrap(fsp).order(ByteOrder.LITTLE_ENDIAN).getShort(ct) & 0xFFFF);
            }
        }
        final byte[] coords = Arrays.copyOfRange(fsp, 12, ct);
        final byte[] body = Arrays.copyOfRange(fsp, ct, fsp.length);
        final int n = new JdkAeadCipher().open(MemorySegment.ofArray(sessionKey), nonce(counter),
                MemorySegment.ofArray(fsp), 0, 12, MemorySegment.ofArray(body), 0, body.length);
        assertTrue(n >= 0, "FSP authenticates with the session key, the 12-byte header as AAD");
        return new Received(FrameCodec.flags(frame), dg, flags, counter, payloadLen, coords,
                Arrays.copyOf(body, n));
    }

    /** Seals an FSP message from A (inner = ts ‖ type ‖ flags ‖ body) and sends it to B inside a datagram. */
    private void fromA(final byte[] key, final int fspFlags, final long counter, final byte[] inner,
                       final int fmpFlags) throws IOException {
        fromA(key, fspFlags, counter, inner, fmpFlags, 0xFFFF);
    }

    private void fromA(final byte[] key, final int fspFlags, final long counter, final byte[] inner,
                       final int fmpFlags, final int pathMtu) throws IOException {
        final byte[] fsp = new byte[12 + inner.length + 16];
        final ByteBuffer h = ByteBuffer.wrap(fsp).order(ByteOrder.LITTLE_ENDIAN);
        h.put((byte) 0).put((byte) fspFlags).putShort((short) inner.length).putLong(counter).put(inner);
        new JdkAeadCipher().seal(MemorySegment.ofArray(key), nonce(counter), MemorySegment.ofArray(fsp), 0, 12,
                MemorySegment.ofArray(fsp), 12, inner.length);
        sendDatagram(new SessionDatagram(64, pathMtu, A, B, fsp).encode(), fmpFlags);
    }

    private void sendDatagram(final byte[] datagram, final int fmpFlags) throws IOException {
        a.send(ByteBuffer.wrap(codec.seal(A_TO_B, fmpFlags, B_IDX, aCounter++, 1, datagram)), dpAddress);
    }

    /** The inner plaintext of a DataPacket carrying {@code ipv6} (ports 256/256, shim). */
    private static byte[] dataPacketInner(final byte[] ipv6) {
        final byte[] shim = Ipv6Shim.compress(ipv6, 0, ipv6.length).valueOrNull();
        final ByteBuffer b = ByteBuffer.allocate(6 + 4 + shim.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).put((byte) 0x10).put((byte) 0).putShort((short) 256).putShort((short) 256).put(shim);
        return b.array();
    }

    private static MemorySegment nonce(final long counter) {
        final MemorySegment n = MemorySegment.ofArray(new byte[12]);
        AeadCipher.fipsNonce(n, counter);
        return n;
    }

    /** A table like {@link #startWithoutSession}'s whose coordinate cache holds A's coordinates. */
    private void cacheACoords() {
        cacheACoords(B_COORDS, A_COORDS);
    }

    /** A table with our coordinates {@code self} and peer A at {@code a}, the same held in the coordinate cache. */
    private void cacheACoords(final Coords self, final Coords a) {
        final CoordCache cache = new CoordCache();
        cache.insert(A, a, clock.get());
        dp.setForwardingTable(ForwardingTable.builder(B, self)
                .peer(new ForwardingTable.Peer(A, LINK_A, a, 1.0, 1280, true, ForwardingTable.TreeRole.CHILD))
                .cache(cache.view())
                .build());
    }

    @Test
    void outboundPacketsAreSealedTwiceWithWarmupCoordinatesFirst() throws IOException {
        start();
        cacheACoords();
        final byte[] cp = new FspCpCoords(B_COORDS, A_COORDS).encode();
        dp.setSessionWarmup(A, 2);
        for (int i = 0; i < 3; i++) {
            final byte[] p = packet(B, A, 17, 100 + i, 0);
            dp.sendIpv6(p);
            final Received r = receiveAtA(S_B_TO_A);
            assertEquals(B, r.datagram().src());
            assertEquals(A, r.datagram().dest());
            assertEquals(64, r.datagram().ttl());
            assertEquals(1280, r.datagram().pathMtu(), "seeded from the first hop's link MTU");
            assertEquals(i, r.counter(), "FSP counter counts from 0");
            assertEquals(0, r.fspFlags() & 0x02, "K = 0");
            assertEquals(r.inner().length, r.payloadLen(), "payload_len = inner plaintext length");
            if (i < 2) {
                assertEquals(0x01, r.fspFlags() & 0x01, "CP during warm-up");
                assertArrayEquals(cp, r.coords(), "our coordinates, then the destination's, in clear");
            } else {
                assertEquals(0, r.fspFlags() & 0x01, "warm-up over");
            }
            assertEquals(0x10, r.inner()[4], "DataPacket");
            final ByteBuffer ports = ByteBuffer.wrap(r.inner(), 6, 4).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(256, ports.getShort() & 0xFFFF);
            assertEquals(256, ports.getShort() & 0xFFFF);
            final byte[] shim = Arrays.copyOfRange(r.inner(), 10, r.inner().length);
            final byte[] rebuilt = Ipv6Shim.decompress(shim, 0, shim.length, B, Ipv6Shim.fipsAddress(A))
                    .valueOrNull();
            assertArrayEquals(p, rebuilt, "the shim carries the packet exactly");
        }
        assertEquals(3, dp.sessionStats(A).packetsOut());
        assertEquals(3, dp.counter(DataPlaneCounter.SESSION_PACKETS_OUT));
    }

    /**
     * §5.3 step 2: the warm-up coordinates are read when each packet is sent (the reference reads its tree state and
     * coordinate cache then), not when the warm-up began: a node whose tree moved since must not hand out its old
     * coordinates, which a receiver caches over a fresh lookup result (chaos8 run A, docs/benchmarks.md).
     */
    @Test
    void warmupCoordinatesAreReadWhenEachPacketLeaves() throws IOException {
        start();
        dp.setSessionWarmup(A, 3);
        final byte[] first = packet(B, A, 17, 40, 0);
        dp.sendIpv6(first);
        final Received before = receiveAtA(S_B_TO_A);
        assertArrayEquals(new FspCpCoords(B_COORDS, B_COORDS).encode(), before.coords(),
                "no cached coordinates for A yet: ours twice, as the reference's get_dest_coords");

        // Our tree moved under a new root R, and A's coordinates are cached now.
        final NodeAddr r = TransitHarness.addr(0x10);
        final Coords moved = Coords.of(B, r);
        final Coords aCached = Coords.of(A, B, r);
        cacheACoords(moved, aCached);
        dp.sendIpv6(packet(B, A, 17, 41, 0));
        final Received after = receiveAtA(S_B_TO_A);
        assertEquals(0x01, after.fspFlags() & 0x01, "still in warm-up");
        assertArrayEquals(new FspCpCoords(moved, aCached).encode(), after.coords(),
                "our coordinates and A's as routing knows them when the packet leaves");
    }

    /**
     * §5.3 step 2: coordinates that do not fit beside the packet go in a standalone CoordsWarmup (CP, no K), which
     * leaves before the packet: the session path queues it and the worker sends it first, then the packet it
     * returned.
     */
    @Test
    void warmupCoordinatesThatDoNotFitGoStandaloneAheadOfThePacket() throws IOException {
        start();
        cacheACoords();
        final byte[] cp = new FspCpCoords(B_COORDS, A_COORDS).encode();
        final int mtu = dp.transport(0).mtu();
        final int len = EncapsulationBudget.effectiveIpv6Mtu(mtu);
        assertTrue(EncapsulationBudget.FIPS_OVERHEAD + cp.length + len - ShimBody.BODY_SHRINK > mtu,
                "the coordinates do not fit beside the largest packet");
        dp.setSessionWarmup(A, 1);
        final byte[] p = packet(B, A, 17, len - 48, 0);
        dp.sendIpv6(p);
        final Received warmup = receiveAtA(S_B_TO_A);
        assertEquals(0x14, warmup.inner()[4], "CoordsWarmup first");
        assertEquals(0x01, warmup.fspFlags() & 0x03, "CP, no K");
        assertArrayEquals(cp, warmup.coords());
        final Received data = receiveAtA(S_B_TO_A);
        assertEquals(0x10, data.inner()[4], "then the DataPacket");
        assertEquals(0, data.fspFlags() & 0x01, "without CP");
        assertEquals(warmup.counter() + 1, data.counter(), "sealed in that order");
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_MESSAGES_OUT));
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_PACKETS_OUT));
    }

    @Test
    void inboundPacketsComeOutRebuiltWithCeAndClampedMss() throws IOException {
        start();
        final byte[] udp = packet(A, B, 17, 300, 0b10);   // ECT(0)
        fromA(S_A_TO_B, 0, 0, dataPacketInner(udp), 0x02);  // FMP CE set
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 1);
        final byte[] got = sink.remove(0);
        final byte[] want = udp.clone();
        want[1] |= 0x30;   // ECN = CE
        assertArrayEquals(want, got, "rebuilt from the session's addresses, CE copied into ECN");

        final byte[] syn = packet(A, B, 6, 0, 0);
        fromA(S_A_TO_B, 0, 1, dataPacketInner(syn), 0);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 2);
        final byte[] s = sink.remove(0);
        assertEquals(1143, ByteBuffer.wrap(s).getShort(40 + 22) & 0xFFFF, "MSS clamped to 1280 - 77 - 60");
        assertEquals(1, dp.counter(DataPlaneCounter.MSS_CLAMPED));

        // The same counter again is a replay; a flipped byte a forgery: both counted, nothing delivered.
        fromA(S_A_TO_B, 0, 1, dataPacketInner(syn), 0);
        pump(DataPlaneCounter.DROP_SESSION_REPLAY, 1);
        final byte[] inner = dataPacketInner(udp);
        fromA(FrameCodec.key(99), 0, 7, inner, 0);
        pump(DataPlaneCounter.DROP_SESSION_AUTH_FAILED, 1);
        assertEquals(0, sink.size());
        assertEquals(2, dp.sessionStats(A).dropsIn());
    }

    /**
     * ECN at the final hop (routing-session §5.6, §6.6): a CE-marked frame sets ECN = CE on an ECT(1) packet but
     * leaves a Not-ECT one alone; both count as ce_received and in the session receiver's CE count; an ECT packet
     * in an unmarked frame is untouched. Packets we originate carry no CE even over a link flagged congested.
     */
    @Test
    void finalHopMarksEctOnlyAndOriginatedPacketsNeverCarryCe() throws IOException {
        start();
        dp.setLinkCongested(LINK_A, true);
        final byte[] ect1 = packet(A, B, 17, 100, 0b01);
        fromA(S_A_TO_B, 0, 0, dataPacketInner(ect1), 0x02);
        final byte[] notEct = packet(A, B, 17, 101, 0b00);
        fromA(S_A_TO_B, 0, 1, dataPacketInner(notEct), 0x02);
        final byte[] ect0 = packet(A, B, 17, 102, 0b10);
        fromA(S_A_TO_B, 0, 2, dataPacketInner(ect0), 0);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 3);
        final byte[] want = ect1.clone();
        want[1] |= 0x30;
        assertArrayEquals(want, sink.remove(0), "ECT(1) in a CE frame: ECN = CE");
        assertArrayEquals(notEct, sink.remove(0), "Not-ECT: untouched");
        assertArrayEquals(ect0, sink.remove(0), "no CE on the frame: untouched");
        assertEquals(2, dp.counter(DataPlaneCounter.CE_RECEIVED));
        assertEquals(2, dp.sessionStats(A).receiver().ceCountGeneration());
        assertEquals(2, dp.sessionStats(A).ceCount());

        dp.sendIpv6(packet(B, A, 17, 100, 0b10));
        assertEquals(0, receiveAtA(S_B_TO_A).fmpFlags() & 0x02, "originated: no CE");
        assertEquals(0, dp.counter(DataPlaneCounter.CE_FORWARDED));
        assertEquals(0, dp.counter(DataPlaneCounter.CONGESTION_DETECTED));
    }

    @Test
    void aFrameOnThePendingKeysCutsOverAndSendingFollows() throws IOException {
        start();
        dp.installSessionPending(A, S2_B_TO_A, S2_A_TO_B);
        final byte[] udp = packet(A, B, 17, 64, 0);
        fromA(S2_A_TO_B, 0x02, 0, dataPacketInner(udp), 0);   // K = 1, new keys
        pump(DataPlaneCounter.SESSION_CUTOVERS, 1);
        assertArrayEquals(udp, sink.remove(0));
        assertTrue(events.stream().anyMatch(e -> e instanceof DataPlaneEvent.SessionKeysAuthenticated k
                && k.remote().equals(A) && k.cutOver()), events::toString);
        dp.sendIpv6(packet(B, A, 17, 10, 0));
        final Received r = receiveAtA(S2_B_TO_A);
        assertEquals(0x02, r.fspFlags() & 0x02, "K = 1 after the cutover");
        assertEquals(0, r.counter(), "the new generation counts from 0");
        // The old keys still open (drain), with K = 0.
        fromA(S_A_TO_B, 0, 0, dataPacketInner(udp), 0);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 2);
        assertTrue(dp.sessionStats(A).draining());
        dp.dropSessionPrevious(A);
        fromA(S_A_TO_B, 0, 1, dataPacketInner(udp), 0);
        pump(DataPlaneCounter.DROP_SESSION_AUTH_FAILED, 1);
    }

    /** A SessionMsg3 from A (phase 3; the data plane only passes it up, so the Noise bytes are filler). */
    private void msg3FromA() throws IOException {
        final ByteBuffer fsp = ByteBuffer.allocate(4 + 1 + 2 + 73).order(ByteOrder.LITTLE_ENDIAN);
        fsp.put((byte) 0x03).put((byte) 0).putShort((short) (1 + 2 + 73)).put((byte) 0).putShort((short) 73);
        sendDatagram(new SessionDatagram(64, 0xFFFF, A, B, fsp.array()).encode(), 0);
    }

    /**
     * An XK initiator is established once it writes msg3 and sends its queued packets right behind it (§7.4): at
     * the responder they arrive before the control plane has read msg3, are held, and come out in order once the
     * session is installed; nothing is dropped as an unknown session.
     */
    @Test
    void packetsRightBehindMsg3AreHeldAndDeliveredInOrderOnceTheSessionIsIn() throws IOException {
        startWithoutSession();
        msg3FromA();
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(packet(A, B, 17, 30 + i, 0));
            fromA(S_A_TO_B, 0, i, dataPacketInner(sent.get(i)), 0);
        }
        pump(DataPlaneCounter.SESSION_MESSAGES_HELD, 3);
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_MESSAGES_TO_CONTROL));
        assertTrue(events.stream().anyMatch(e -> e instanceof DataPlaneEvent.SessionMessageReceived m
                && m.src().equals(A)), events::toString);
        assertEquals(List.of(), sink);

        dp.addSession(new SessionSpec(A, S_B_TO_A, S_A_TO_B, false, clock.get(), 64));
        final byte[] later = packet(A, B, 17, 40, 0);
        fromA(S_A_TO_B, 0, 3, dataPacketInner(later), 0);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 4);
        sent.add(later);
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(sent.get(i), sink.get(i), "packet " + i + " in order");
        }
        assertEquals(3, dp.counter(DataPlaneCounter.SESSION_MESSAGES_RELEASED));
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_SESSION_UNKNOWN));
    }

    /** A rekey's msg3, then the initiator's first new-key message before the pending keys are in: held, cut over. */
    @Test
    void newKeyMessagesBehindARekeyMsg3WaitForThePendingKeys() throws IOException {
        start();
        msg3FromA();
        final byte[] udp = packet(A, B, 17, 64, 0);
        fromA(S2_A_TO_B, 0x02, 0, dataPacketInner(udp), 0);   // K = 1, the new keys
        pump(DataPlaneCounter.SESSION_MESSAGES_HELD, 1);
        dp.installSessionPending(A, S2_B_TO_A, S2_A_TO_B);
        pump(DataPlaneCounter.SESSION_CUTOVERS, 1);
        assertArrayEquals(udp, sink.remove(0));
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_SESSION_AUTH_FAILED));
        // The old keys still open (drain) and are not held: they opened.
        fromA(S_A_TO_B, 0, 0, dataPacketInner(udp), 0);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 2);
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_MESSAGES_HELD));
    }

    /** Keys that never come: the held messages are dropped and counted after the hold time, then none are held. */
    @Test
    void messagesHeldForKeysThatNeverComeExpireCounted() throws IOException {
        startWithoutSession();
        dp.doWork();
        final int used = dp.pool().inUse();
        msg3FromA();
        fromA(S_A_TO_B, 0, 0, dataPacketInner(packet(A, B, 17, 10, 0)), 0);
        pump(DataPlaneCounter.SESSION_MESSAGES_HELD, 1);
        clock.addAndGet(SessionHold.HOLD_NANOS);
        pump(DataPlaneCounter.DROP_SESSION_HELD_EXPIRED, 1);
        pumpUntil(() -> dp.pool().inUse() == used);
        fromA(S_A_TO_B, 0, 1, dataPacketInner(packet(A, B, 17, 10, 0)), 0);
        pump(DataPlaneCounter.DROP_SESSION_UNKNOWN, 1);
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_MESSAGES_HELD));
        assertEquals(List.of(), sink);
    }

    @Test
    void theForwardPathMtuIsEchoedToTheSourceOnceThenOnChange() throws IOException {
        start();
        final byte[] udp = packet(A, B, 17, 40, 0);
        fromA(S_A_TO_B, 0, 0, dataPacketInner(udp), 0, 1200);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 1);
        final Received n = receiveAtA(S_B_TO_A);
        assertEquals(0x13, n.inner()[4], "PathMtuNotification");
        assertEquals(1200, ByteBuffer.wrap(n.inner(), 6, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xFFFF);
        assertEquals(0, n.fspFlags() & 0x01, "notifications never carry coordinates");
        // The same value again is not echoed (within 10 s); a lower one is, at once.
        fromA(S_A_TO_B, 0, 1, dataPacketInner(udp), 0, 1200);
        pump(DataPlaneCounter.SESSION_PACKETS_IN, 2);
        assertEquals(1, dp.counter(DataPlaneCounter.SESSION_MESSAGES_OUT));
        fromA(S_A_TO_B, 0, 2, dataPacketInner(udp), 0, 1100);
        final Received lower = receiveAtA(S_B_TO_A);
        assertEquals(1100, ByteBuffer.wrap(lower.inner(), 6, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xFFFF);
        assertEquals(n.counter() + 1, lower.counter());
    }

    @Test
    void tooBigNoRouteAndNoSessionAreAnsweredOrPassedOn() throws IOException {
        start();
        // 1280 - 77 = 1203 is the largest IPv6 packet the UDP transport carries.
        dp.sendIpv6(packet(B, A, 17, 1300 - 48, 0));
        pump(DataPlaneCounter.DROP_IPV6_TOO_BIG, 1);
        final byte[] ptb = sink.remove(0);
        assertEquals(58, ptb[6], "ICMPv6");
        assertEquals(2, ptb[40], "Packet Too Big");
        assertEquals(1203, ByteBuffer.wrap(ptb).getInt(44));
        // A session to D, which the table cannot route: Destination Unreachable and a no-route event.
        dp.addSession(new SessionSpec(D, S_B_TO_A, S_A_TO_B, false, clock.get(), 64));
        dp.sendIpv6(packet(B, D, 17, 20, 0));
        pump(DataPlaneCounter.DROP_SESSION_NO_ROUTE, 1);
        final byte[] unreachable = sink.remove(0);
        assertEquals(1, unreachable[40], "Destination Unreachable");
        assertTrue(events.stream().anyMatch(e -> e instanceof DataPlaneEvent.SessionNoRoute n
                && n.remote().equals(D)));
        // No session at all: the packet goes to the control plane whole.
        dp.removeSession(D);
        final byte[] p = packet(B, D, 17, 20, 0);
        dp.sendIpv6(p);
        pump(DataPlaneCounter.SESSION_PACKETS_TO_CONTROL, 1);
        assertTrue(events.stream().anyMatch(e -> e instanceof DataPlaneEvent.OutboundWithoutSession o
                && Arrays.equals(o.packet(), p)));
    }

    private long accounted() {
        return dp.counter(DataPlaneCounter.SESSION_MESSAGES_TO_CONTROL)
                + dp.counter(DataPlaneCounter.DROP_SESSION_MALFORMED)
                + dp.counter(DataPlaneCounter.DROP_SESSION_AUTH_FAILED)
                + dp.counter(DataPlaneCounter.DROP_SESSION_REPLAY)
                + dp.counter(DataPlaneCounter.DROP_SESSION_HELD_EXPIRED)
                + dp.counter(DataPlaneCounter.DROP_SESSION_HELD_OVERFLOW);
    }

    @Test
    void garbageInSessionDatagramsIsCountedNeverThrown() throws IOException {
        start();
        final Random rnd = new Random(8);
        final int n = 400;
        for (int i = 0; i < n; i++) {
            final byte[] fsp = new byte[rnd.nextInt(120)];
            rnd.nextBytes(fsp);
            if (fsp.length > 1 && rnd.nextBoolean()) {
                fsp[0] = 0;              // phase 0: the encrypted path
                fsp[1] &= (byte) ~0x04;  // U clear
            }
            sendDatagram(new SessionDatagram(64, 0xFFFF, A, B, fsp).encode(), 0);
        }
        // Half of them cross to the worker owning A's session; wait until every one is accounted for. Garbage with
        // a handshake phase looks like keys on their way, so some encrypted garbage is held: held messages expire
        // (counted) after the hold time.
        pumpUntil(() -> accounted() + dp.counter(DataPlaneCounter.SESSION_MESSAGES_HELD) >= n);
        pumpUntil(() -> dp.counter(DataPlaneCounter.DATAGRAMS_DELIVERED) >= n);
        clock.addAndGet(SessionHold.HOLD_NANOS);
        pumpUntil(() -> accounted() >= n);
        assertEquals(n, accounted(), "each one handed to the control plane or counted as a drop: " + counters());
        assertEquals(0, sink.size());
        assertTrue(dp.agentFailure() == null);
    }

    @Test
    void garbageFromTheTunSideIsCountedNeverThrown() throws IOException {
        start();
        final Random rnd = new Random(9);
        final MemorySegment buf = Arena.ofAuto().allocate(1500);
        final int n = 300;
        for (int i = 0; i < n; i++) {
            final byte[] p = new byte[1 + rnd.nextInt(1400)];
            rnd.nextBytes(p);
            if (rnd.nextBoolean() && p.length >= 40) {
                // A plausible header for A's address with random rest: the session path proper.
                System.arraycopy(packet(B, A, 17, 0, 0), 0, p, 0, 40);
                p[6] = (byte) (rnd.nextBoolean() ? 6 : 17);
            }
            MemorySegment.copy(p, 0, buf, ValueLayout.JAVA_BYTE, 0, p.length);
            while (!dp.sendIpv6(buf, 0, p.length)) {
                dp.doWork();
            }
        }
        pumpUntil(() -> outboundAccounted() >= n);
        assertEquals(n, outboundAccounted(), counters());
        assertTrue(dp.agentFailure() == null);
    }

    private long outboundAccounted() {
        return dp.counter(DataPlaneCounter.SESSION_PACKETS_OUT) + dp.counter(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE)
                + dp.counter(DataPlaneCounter.SESSION_PACKETS_TO_CONTROL)
                + dp.counter(DataPlaneCounter.DROP_IPV6_TOO_BIG)
                + dp.counter(DataPlaneCounter.DROP_SESSION_NO_ROUTE) + dp.counter(DataPlaneCounter.DROP_MTU)
                + dp.counter(DataPlaneCounter.DROP_TX_RING_FULL);
    }
}
