package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;

/**
 * The harness every {@link DataPlaneTransitTest} scenario runs on: B, the data plane under test, between two plain
 * DatagramChannels A and C speaking FMP with test-side framing ({@link FrameCodec}), a manual clock, the published
 * forwarding table and coordinate cache, and the send/receive/pump helpers and frame checks the scenarios share.
 */
abstract class TransitHarness {
    static final long LINK_A = 1;
    static final long LINK_C = 2;
    /** The link ids B gives A and C; a test may pick others (and so other workers) before {@link #start}. */
    long linkA = LINK_A;
    long linkC = LINK_C;
    static final int B_IDX_A = 0x101;
    static final int A_IDX = 0x102;
    static final int B_IDX_C = 0x201;
    static final int C_IDX = 0x202;
    static final byte[] B_TO_A = FrameCodec.key(21);
    static final byte[] A_TO_B = FrameCodec.key(22);
    static final byte[] B_TO_C = FrameCodec.key(23);
    static final byte[] C_TO_B = FrameCodec.key(24);
    static final NodeAddr A = addr(0x30);
    static final NodeAddr B = addr(0x20);
    static final NodeAddr C = addr(0x10);
    static final NodeAddr D = addr(0x40);
    static final Coords C_COORDS = Coords.of(C);
    static final Coords B_COORDS = Coords.of(B, C);
    static final Coords A_COORDS = Coords.of(A, B, C);
    static final int LINK_MTU_C = 1200;
    static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(20);

    final FrameCodec codec = new FrameCodec();
    final AtomicLong clock = new AtomicLong(5_000_000_000L);
    final List<DataPlaneEvent> events = new ArrayList<>();
    final List<byte[]> delivered = new ArrayList<>();
    final CoordCache cache = new CoordCache();
    DatagramChannel a;
    DatagramChannel c;
    DataPlane dp;
    InetSocketAddress dpAddress;
    long aCounter;
    long cCounter;
    boolean dedicated;

    static NodeAddr addr(final int first) {
        final byte[] b = new byte[16];
        b[0] = (byte) first;
        b[9] = (byte) (first + 1);
        return NodeAddr.of(b);
    }

    @AfterEach
    void tearDown() throws IOException {
        if (dp != null) {
            dp.close();
        }
        if (a != null) {
            a.close();
            c.close();
        }
    }

    static DatagramChannel channel() throws IOException {
        final DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        ch.configureBlocking(false);
        return ch;
    }

    void start(final int workers, final boolean table) throws IOException {
        start(workers, table, ThreadingMode.SHARED);
    }

    void start(final int workers, final boolean table, final ThreadingMode mode) throws IOException {
        start(workers, table, mode, 0);
    }

    /** @param cTransportMtu when positive, link C runs on a second UDP transport with this MTU */
    void start(final int workers, final boolean table, final ThreadingMode mode, final int cTransportMtu)
            throws IOException {
        a = channel();
        c = channel();
        final LocalDelivery hook = (linkId, seg, off, len) ->
                delivered.add(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
        dp = new DataPlane(new DataPlaneContext().threadingMode(mode).workerCount(workers)
                .poolSlots(512).eventQueueCapacity(4096).localDelivery(hook).nanoClock(clock::get));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
        if (cTransportMtu > 0) {
            dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")
                    .mtuBytes(cTransportMtu)));
        }
        dp.start();
        dpAddress = dp.udpTransport(0).localAddress();
        dp.addLink(new LinkSpec(linkA, 0, TransportAddr.ofInet((InetSocketAddress) a.getLocalAddress()),
                B_IDX_A, A_IDX, B_TO_A, A_TO_B, clock.get()));
        dp.addLink(new LinkSpec(linkC, cTransportMtu > 0 ? 1 : 0,
                TransportAddr.ofInet((InetSocketAddress) c.getLocalAddress()), B_IDX_C, C_IDX, B_TO_C, C_TO_B,
                clock.get()));
        if (table) {
            publish();
        }
    }

    /** B's table: C is the parent (link MTU 1200), A the child (1280). */
    void publish() {
        dp.setForwardingTable(ForwardingTable.builder(B, B_COORDS).cache(cache.view())
                .peer(new ForwardingTable.Peer(C, linkC, C_COORDS, 1.0, LINK_MTU_C, true,
                        ForwardingTable.TreeRole.PARENT))
                .peer(new ForwardingTable.Peer(A, linkA, A_COORDS, 1.0, 1280, true,
                        ForwardingTable.TreeRole.CHILD))
                .build());
    }

    void pumpUntil(final BooleanSupplier condition) {
        final long start = System.nanoTime();
        final boolean shared = !dedicated;
        while (!condition.getAsBoolean()) {
            if (shared) {
                dp.doWork();
            } else {
                Thread.onSpinWait();
            }
            if (System.nanoTime() - start > DEADLINE_NS) {
                fail("condition not reached; counters: " + counters());
            }
        }
        dp.drainEvents(events::add);
    }

    void pumpUntil(final DataPlaneCounter counter, final long value) {
        pumpUntil(() -> dp.counter(counter) >= value);
        assertEquals(value, dp.counter(counter), counter.toString());
    }

    String counters() {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter k : DataPlaneCounter.values()) {
            if (dp.counter(k) != 0) {
                sb.append(k).append('=').append(dp.counter(k)).append(' ');
            }
        }
        return sb.toString();
    }

    /** A link message from A to B. */
    void fromA(final int flags, final byte[] message) throws IOException {
        a.send(ByteBuffer.wrap(codec.seal(A_TO_B, flags, B_IDX_A, aCounter++, 1, message)), dpAddress);
    }

    /** A link message from C to B. */
    void fromC(final int flags, final byte[] message) throws IOException {
        c.send(ByteBuffer.wrap(codec.seal(C_TO_B, flags, B_IDX_C, cCounter++, 1, message)), dpAddress);
    }

    /** FSP-ish payload: phase 0, no CP, then seq u64 LE and a pattern. */
    static byte[] payload(final long seq, final int length) {
        final byte[] p = new byte[length];
        final ByteBuffer bb = ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN);
        bb.put((byte) 0).put((byte) 0).putShort((short) (length - 4)).putLong(seq);
        for (int i = 12; i < length; i++) {
            p[i] = (byte) (seq * 31 + i);
        }
        return p;
    }

    static byte[] datagram(final int ttl, final int pathMtu, final NodeAddr src, final NodeAddr dest,
                                   final byte[] payload) {
        return new SessionDatagram(ttl, pathMtu, src, dest, payload).encode();
    }

    /** A received frame, opened. */
    record Frame(int flags, int payloadLen, int length, long counter, int receiverIdx, byte[] message) {
    }

    /** Pumps until {@code ch} receives a frame and opens it with {@code key}. */
    Frame receive(final DatagramChannel ch, final byte[] key) {
        final byte[] frame = FrameCodec.receive(ch, 2048, this::pumpUntil);
        final byte[] message = codec.open(key, frame, frame.length);
        assertNotNull(message, "authenticates with the outbound link's key");
        final int payloadLen = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getShort(2) & 0xFFFF;
        return new Frame(FrameCodec.flags(frame), payloadLen, frame.length, FrameCodec.counter(frame),
                FrameCodec.receiverIdx(frame), message);
    }

    static void assertForwarded(final Frame f, final int idx, final int ce, final byte[] sent,
                                        final int mtu) {
        assertEquals(idx, f.receiverIdx());
        assertEquals(ce, f.flags() & 0x02, "CE relayed");
        assertEquals(0, f.flags() & 0x01, "K bit of the outbound link");
        assertEquals(f.length() - 32, f.payloadLen(), "payload_len exact");
        final SessionDatagram in = SessionDatagram.decode(sent, 0, sent.length).valueOrNull();
        final SessionDatagram out = SessionDatagram.decode(f.message(), 0, f.message().length).valueOrNull();
        assertNotNull(out);
        assertEquals(in.ttl() - 1, out.ttl(), "ttl decremented");
        assertEquals(Math.min(in.pathMtu(), mtu), out.pathMtu(), "path_mtu folded");
        assertEquals(in.src(), out.src());
        assertEquals(in.dest(), out.dest());
        assertArrayEquals(in.payload(), out.payload(), "content intact");
    }

    long outcomes() {
        return dp.counter(DataPlaneCounter.FORWARDED) + dp.counter(DataPlaneCounter.DATAGRAMS_DELIVERED)
                + dp.counter(DataPlaneCounter.DROP_MALFORMED_DATAGRAM) + dp.counter(DataPlaneCounter.DROP_TTL_EXHAUSTED)
                + dp.counter(DataPlaneCounter.DROP_NO_ROUTE) + dp.counter(DataPlaneCounter.DROP_MTU)
                + dp.counter(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED)
                + dp.counter(DataPlaneCounter.DROP_HANDOFF_RING_FULL) + dp.counter(DataPlaneCounter.DROP_TX_RING_FULL);
    }

    static void drain(final DatagramChannel ch) throws IOException {
        final ByteBuffer buf = ByteBuffer.allocate(2048);
        while (ch.receive(buf) != null) {
            buf.clear();
        }
    }
}
