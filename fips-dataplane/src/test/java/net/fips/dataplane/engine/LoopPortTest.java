package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;

/**
 * The transport SPI's frame path without sockets: two data planes in SHARED mode, each with one loop-driven
 * transport whose "event loop" is this test's thread. Sealed frames leave through {@link TransportPort#drainOutbound}
 * and enter the other plane through {@link TransportPort#deliver}, so the classification, worker hand-off,
 * roaming, handshake events and counted drops of the shared inbound code are exercised for a non-UDP transport.
 */
class LoopPortTest {
    private static final long LINK_A = 1;
    private static final long LINK_B = 2;
    private static final TransportAddr ADDR_A = TransportAddr.ofText("node-a");
    private static final TransportAddr ADDR_B = TransportAddr.ofText("node-b");

    /** A loop transport whose addresses are their own source bytes. */
    static final class FakeTransport implements Transport {
        TransportPort port;
        final AtomicInteger wakeups = new AtomicInteger();
        boolean stopped;
        boolean closed;
        boolean bootstrapOnly;

        @Override public boolean bootstrapOnly() { return bootstrapOnly; }
        @Override public String typeName() { return "fake"; }
        @Override public String instanceName() { return null; }
        @Override public boolean connectionOriented() { return true; }
        @Override public boolean reliable() { return true; }
        @Override public State state() { return port == null ? State.CONFIGURED : State.UP; }
        @Override public int mtu() { return 1400; }
        @Override public boolean acceptConnections() { return true; }
        @Override public Map<String, Long> stats() { return Map.of(); }
        @Override public void wakeup() { wakeups.incrementAndGet(); }
        @Override public void start(final TransportPort p) { this.port = p; }
        @Override public void stop() { stopped = true; }
        @Override public void close() { closed = true; }

        @Override
        public TransportDestination destination(final TransportAddr address) throws TransportException {
            if (address.length() > TransportPort.SOURCE_MAX_BYTES) {
                throw new TransportException("too long");
            }
            final byte[] b = address.bytes();
            return new TransportDestination() {
                @Override
                public TransportAddr transportAddr() {
                    return address;
                }

                @Override
                public boolean sameEndpoint(final MemorySegment source, final long offset, final int length) {
                    return length == b.length && MemorySegment.mismatch(source, offset, offset + length,
                            MemorySegment.ofArray(b), 0, b.length) < 0;
                }
            };
        }

        @Override
        public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
            return TransportAddr.of(source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    private final List<DataPlane> planes = new ArrayList<>();

    @AfterEach
    void close() {
        planes.forEach(DataPlane::close);
    }

    private DataPlane plane(final FakeTransport t, final Deliveries d) {
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(2).poolSlots(256)
                .threadingMode(ThreadingMode.SHARED).cipherSupplier(AeadCiphers::create).localDelivery(d));
        assertEquals(0, dp.addTransport(t));
        dp.start();
        planes.add(dp);
        assertNotNull(t.port, "start() hands the transport its port");
        return dp;
    }

    /** Moves every queued outbound slot of {@code from} into {@code to}, as a loop would; returns the frames moved. */
    private static List<byte[]> carry(final FakeTransport from, final FakeTransport to, final TransportAddr source) {
        final List<byte[]> frames = new ArrayList<>();
        final int[] slots = new int[64];
        final byte[] src = source.bytes();
        int n;
        while ((n = from.port.drainOutbound(slots, slots.length)) > 0) {
            for (int i = 0; i < n; i++) {
                final PacketPool pool = from.port.pool();
                final MemorySegment seg = pool.slotSegment(slots[i]);
                final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
                final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                final byte[] frame = seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
                final TransportDestination d = from.port.takeDestination(slots[i]);
                assertNotNull(d, "every queued slot has a destination");
                from.port.release(slots[i]);
                frames.add(frame);
                if (to != null) {
                    final int in = to.port.acquire();
                    final MemorySegment inSeg = to.port.pool().slotSegment(in);
                    MemorySegment.copy(frame, 0, inSeg, ValueLayout.JAVA_BYTE, TransportPort.DATA_OFFSET, len);
                    to.port.deliver(in, len, MemorySegment.ofArray(src), 0, src.length);
                }
            }
        }
        if (to != null) {
            to.port.flush();
        }
        return frames;
    }

    private static void pump(final DataPlane... dps) {
        for (int i = 0; i < 4; i++) {
            for (final DataPlane dp : dps) {
                dp.doWork();
            }
        }
    }

    @Test
    void framesCrossTwoPlanesThroughThePorts() {
        final FakeTransport ta = new FakeTransport();
        final FakeTransport tb = new FakeTransport();
        final Deliveries atA = new Deliveries();
        final Deliveries atB = new Deliveries();
        final DataPlane a = plane(ta, atA);
        final DataPlane b = plane(tb, atB);
        a.addLink(new LinkSpec(LINK_A, 0, ADDR_B, 0x1111, 0x2222, FrameCodec.key(1), FrameCodec.key(2), 0));
        b.addLink(new LinkSpec(LINK_B, 0, ADDR_A, 0x2222, 0x1111, FrameCodec.key(2), FrameCodec.key(1), 0));
        final MemorySegment buf = MemorySegment.ofArray(new byte[200]);
        for (int seq = 0; seq < 20; seq++) {
            Deliveries.write(buf, seq, 200);
            assertTrue(a.sendDatagram(LINK_A, buf, 0, 200));
        }
        final int wakesBefore = ta.wakeups.get();
        pump(a);
        assertTrue(ta.wakeups.get() > wakesBefore, "a worker that queued frames wakes the loop transport");
        assertTrue(ta.port.hasOutbound());
        assertEquals(20, carry(ta, tb, ADDR_A).size());
        assertFalse(ta.port.hasOutbound());
        pump(b);
        assertEquals(20, atB.delivered.get());
        assertEquals(0, atB.corrupt.get());
        assertEquals(0, atB.outOfOrder.get());
        assertEquals(0, b.counter(DataPlaneCounter.ADDRESS_CHANGES), "the source matched the link's destination");

        // The same frames from another source: authenticated, so the link roams there.
        Deliveries.write(buf, 20, 200);
        assertTrue(a.sendDatagram(LINK_A, buf, 0, 200));
        pump(a);
        carry(ta, tb, TransportAddr.ofText("node-a-moved"));
        pump(b);
        assertEquals(1, b.counter(DataPlaneCounter.ADDRESS_CHANGES));
        DataPlaneEvent e;
        DataPlaneEvent.AddressChanged moved = null;
        while ((e = b.pollEvent()) != null) {
            if (e instanceof DataPlaneEvent.AddressChanged c) {
                moved = c;
            }
        }
        assertNotNull(moved);
        assertEquals(TransportAddr.ofText("node-a-moved"), moved.address());
    }

    @Test
    void handshakesGoOutAsIsAndComeInAsEvents() {
        final FakeTransport ta = new FakeTransport();
        final FakeTransport tb = new FakeTransport();
        final DataPlane a = plane(ta, new Deliveries());
        final DataPlane b = plane(tb, new Deliveries());
        final byte[] msg1 = new byte[114];
        msg1[0] = 0x01;
        msg1[2] = 110;
        a.sendHandshake(0, ADDR_B, msg1);
        final List<byte[]> out = carry(ta, tb, ADDR_A);
        assertEquals(1, out.size());
        assertArrayEquals(msg1, out.get(0));
        final DataPlaneEvent.HandshakeReceived h = assertInstanceOf(DataPlaneEvent.HandshakeReceived.class,
                b.pollEvent());
        assertEquals(0, h.transportId());
        assertEquals(ADDR_A, h.from());
        assertArrayEquals(msg1, h.packet());

        // An address the transport refuses is a counted drop, not an exception on the control thread.
        a.sendHandshake(0, TransportAddr.ofText("x".repeat(40)), msg1);
        assertEquals(1, a.counter(DataPlaneCounter.DROP_NO_LINK));
        assertEquals(0, carry(ta, null, ADDR_A).size());
    }

    @Test
    void badInputIsCountedAndEverySlotComesBack() {
        final FakeTransport tb = new FakeTransport();
        final DataPlane b = plane(tb, new Deliveries());
        final int inUse = b.pool().inUse();
        final byte[][] bad = {
                {0x00, 0x00},                                  // runt
                {0x10, 0x00, 0x00, 0x00, 0, 0, 0, 0},          // version 1
                {0x07, 0x00, 0x00, 0x00},                      // phase 7
                new byte[40],                                  // established, payload_len 0 != 8
        };
        for (final byte[] frame : bad) {
            final int s = tb.port.acquire();
            MemorySegment.copy(frame, 0, tb.port.pool().slotSegment(s), ValueLayout.JAVA_BYTE,
                    TransportPort.DATA_OFFSET, frame.length);
            assertFalse(tb.port.deliver(s, frame.length, null, 0, 0));
        }
        final byte[] unknown = new byte[48];
        unknown[2] = 16;                                        // payload_len 16: total 48, index 0 unknown
        final int s = tb.port.acquire();
        MemorySegment.copy(unknown, 0, tb.port.pool().slotSegment(s), ValueLayout.JAVA_BYTE,
                TransportPort.DATA_OFFSET, unknown.length);
        assertFalse(tb.port.deliver(s, unknown.length, null, 0, 0));
        assertEquals(1, b.counter(DataPlaneCounter.DROP_RUNT));
        assertEquals(1, b.counter(DataPlaneCounter.DROP_BAD_VERSION));
        assertEquals(1, b.counter(DataPlaneCounter.DROP_BAD_PHASE));
        assertEquals(1, b.counter(DataPlaneCounter.DROP_BAD_PAYLOAD_LEN));
        assertEquals(1, b.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX));
        assertEquals(inUse, b.pool().inUse(), "every dropped slot went back to the pool");
    }

    /** Delivers one frame whose first byte is {@code versionPhase}; returns what the port said. */
    private static boolean deliverVersion(final FakeTransport t, final int versionPhase) {
        final byte[] frame = {(byte) versionPhase, 0, 0, 0, 0, 0, 0, 0};
        final int s = t.port.acquire();
        MemorySegment.copy(frame, 0, t.port.pool().slotSegment(s), ValueLayout.JAVA_BYTE,
                TransportPort.DATA_OFFSET, frame.length);
        return t.port.deliver(s, frame.length, null, 0, 0);
    }

    @Test
    void foreignVersionOnAnAdoptedTransportIsReportedOncePerSecond() {
        final long[] now = {1_000_000_000L};
        final FakeTransport t = new FakeTransport();
        t.bootstrapOnly = true;
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(1).poolSlots(64)
                .threadingMode(ThreadingMode.SHARED).cipherSupplier(AeadCiphers::create)
                .localDelivery(new Deliveries()).nanoClock(() -> now[0]));
        assertEquals(0, dp.addTransport(t));
        dp.start();
        planes.add(dp);
        assertFalse(deliverVersion(t, 0x10));
        assertFalse(deliverVersion(t, 0x21));
        final DataPlaneEvent.ForeignVersionReceived f = assertInstanceOf(
                DataPlaneEvent.ForeignVersionReceived.class, dp.pollEvent());
        assertEquals(0, f.transportId());
        assertEquals(1, f.version());
        assertNull(dp.pollEvent(), "the second packet within a second is not reported again");
        now[0] += DataPlaneEvent.ForeignVersionReceived.REPORT_INTERVAL_NANOS;
        assertFalse(deliverVersion(t, 0x20));
        assertEquals(2, assertInstanceOf(DataPlaneEvent.ForeignVersionReceived.class, dp.pollEvent()).version());
        assertEquals(3, dp.counter(DataPlaneCounter.DROP_BAD_VERSION), "each packet is still a counted drop");
    }

    @Test
    void foreignVersionOnAnOrdinaryTransportIsOnlyCounted() {
        final FakeTransport t = new FakeTransport();
        final DataPlane dp = plane(t, new Deliveries());
        assertFalse(deliverVersion(t, 0x10));
        assertNull(dp.pollEvent());
        assertEquals(1, dp.counter(DataPlaneCounter.DROP_BAD_VERSION));
    }

    @Test
    void closeStopsTheLoopTransportAndClosesIt() {
        final FakeTransport t = new FakeTransport();
        final DataPlane dp = plane(t, new Deliveries());
        assertSame(t, dp.transport(0));
        dp.close();
        assertTrue(t.stopped);
        assertTrue(t.closed);
    }
}
