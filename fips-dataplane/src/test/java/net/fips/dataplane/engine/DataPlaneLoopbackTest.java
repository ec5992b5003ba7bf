package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static net.fips.testing.Await.spinUntil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * Two data planes in one JVM, each on its own loopback UDP socket and running its own threads, with a link
 * installed directly on both sides (matching keys and indices, no handshake). Each test runs with one thread per
 * agent ({@link ThreadingMode#DEDICATED}) and with all agents on one thread ({@link ThreadingMode#COMPACT}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DataPlaneLoopbackTest {
    private static final int SIZE = 1400;
    /** Datagrams in flight per direction: well below what the granted socket buffers hold, so nothing is lost. */
    private static final int WINDOW = 128;
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration STALL = Duration.ofNanos(STALL_NS);
    private static final long LINK_A = 1;
    private static final long LINK_B = 8;

    private static DataPlane plane(final Deliveries deliveries, final int workers, final ThreadingMode mode)
            throws Exception {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(mode).workerCount(workers)
                .poolSlots(4096)
                .cipherSupplier(AeadCiphers::create).localDelivery(deliveries));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(1500)));
        dp.start();
        return dp;
    }

    private static InetSocketAddress address(final DataPlane dp) {
        return dp.udpTransport(0).localAddress();
    }

    /** Installs the link on both sides: A receives on 0x1111 with key 2, B on 0x2222 with key 1. */
    private static void link(final DataPlane a, final DataPlane b) {
        a.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet(address(b)), 0x1111, 0x2222, FrameCodec.key(1),
                FrameCodec.key(2), System.nanoTime()));
        b.addLink(new LinkSpec(LINK_B, 0, TransportAddr.ofInet(address(a)), 0x2222, 0x1111, FrameCodec.key(2),
                FrameCodec.key(1), System.nanoTime()));
    }

    /** Sends {@code total} datagrams each way, keeping at most {@link #WINDOW} undelivered, running hook midway. */
    private static void exchange(final DataPlane a, final Deliveries atA, final DataPlane b, final Deliveries atB,
                                 final int total, final int hookAt, final Runnable hook) {
        final MemorySegment buf = Arena.ofAuto().allocate(SIZE);
        long ab = 0;
        long ba = 0;
        long progressAt = System.nanoTime();
        long progress = 0;
        while (ab < total || ba < total) {
            if (ab == hookAt && hook != null) {
                hook.run();
            }
            boolean sent = false;
            if (ab < total && ab - atB.delivered.get() < WINDOW) {
                Deliveries.write(buf, ab, SIZE);
                if (a.sendDatagram(LINK_A, buf, 0, SIZE)) {
                    ab++;
                    sent = true;
                }
            }
            if (ba < total && ba - atA.delivered.get() < WINDOW) {
                Deliveries.write(buf, ba, SIZE);
                if (b.sendDatagram(LINK_B, buf, 0, SIZE)) {
                    ba++;
                    sent = true;
                }
            }
            final long p = atA.delivered.get() + atB.delivered.get();
            if (p != progress || sent) {
                progress = p;
                progressAt = System.nanoTime();
            } else {
                stallCheck(progressAt, a, b);
                Thread.onSpinWait();
            }
        }
        spinUntil(STALL, () -> atA.delivered.get() == total && atB.delivered.get() == total,
                () -> "progress; A: " + dump(a) + " B: " + dump(b));
    }

    private static void stallCheck(final long since, final DataPlane a, final DataPlane b) {
        if (System.nanoTime() - since > STALL_NS) {
            fail("no progress for 10 s; A: " + dump(a) + " B: " + dump(b));
        }
    }

    private static String dump(final DataPlane dp) {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            final long v = dp.counter(c);
            if (v != 0) {
                sb.append(c).append('=').append(v).append(' ');
            }
        }
        return sb + dp.udpTransport(0).counters().toString() + " failure=" + dp.agentFailure();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "COMPACT"})
    void fiftyThousandDatagramsEachWayArriveIntactInOrderAndCounted(final ThreadingMode mode) throws Exception {
        final int total = 50_000;
        final Deliveries atA = new Deliveries();
        final Deliveries atB = new Deliveries();
        try (DataPlane a = plane(atA, 2, mode); DataPlane b = plane(atB, 1, mode)) {
            link(a, b);
            exchange(a, atA, b, atB, total, -1, null);
            assertEquals(0, atA.corrupt.get() + atB.corrupt.get(), "corrupt datagrams");
            assertEquals(0, atA.outOfOrder.get() + atB.outOfOrder.get(), "reordered datagrams");
            assertEquals(total - 1, atA.lastSeq());
            assertEquals(total - 1, atB.lastSeq());
            assertEquals(total, a.linkStats(LINK_A).packetsOut());
            assertEquals(total, b.linkStats(LINK_B).packetsIn());
            assertEquals(total, a.linkStats(LINK_A).sendCounter());
            assertEquals(total - 1, b.linkStats(LINK_B).highestCounterIn());
            assertEquals((long) total * (SIZE + 36), b.linkStats(LINK_B).bytesIn());
            assertEquals(total, a.counter(DataPlaneCounter.DATAGRAMS_DELIVERED));
            assertEquals(0, a.counter(DataPlaneCounter.DROP_AUTH_FAILED)
                    + b.counter(DataPlaneCounter.DROP_AUTH_FAILED));
            assertNull(a.agentFailure());
            assertNull(b.agentFailure());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "COMPACT"})
    void rekeyUnderTrafficLosesAndReordersNothingAndDrainsThePreviousSession(final ThreadingMode mode)
            throws Exception {
        final int total = 20_000;
        final Deliveries atA = new Deliveries();
        final Deliveries atB = new Deliveries();
        try (DataPlane a = plane(atA, 1, mode); DataPlane b = plane(atB, 1, mode);
             DatagramChannel raw = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            link(a, b);
            exchange(a, atA, b, atB, total, total / 3, () -> {
                // B first, so its pending session exists before A's first new-key frame reaches it.
                b.installPending(LINK_B, 0x3333, 0x4444, FrameCodec.key(4), FrameCodec.key(3));
                a.installPending(LINK_A, 0x4444, 0x3333, FrameCodec.key(3), FrameCodec.key(4));
                a.cutover(LINK_A, System.nanoTime());
            });
            assertEquals(0, atA.corrupt.get() + atB.corrupt.get(), "corrupt datagrams");
            assertEquals(0, atA.outOfOrder.get() + atB.outOfOrder.get(), "reordered datagrams");
            assertEquals(1, a.linkStats(LINK_A).keyEpochBit());
            assertEquals(1, b.linkStats(LINK_B).keyEpochBit());
            assertEquals(1, b.counter(DataPlaneCounter.KBIT_CUTOVERS));
            assertInstanceOf(DataPlaneEvent.CutOver.class, b.pollEvent());
            assertTrue(a.linkStats(LINK_A).sendCounter() < total, "A's counter restarted at the cutover");
            assertEquals(2, b.registeredIndices(), "current and draining previous");

            a.dropPrevious(LINK_A);
            b.dropPrevious(LINK_B);
            spinUntil(STALL, () -> a.registeredIndices() == 1 && b.registeredIndices() == 1,
                    () -> "progress; A: " + dump(a) + " B: " + dump(b));
            // A frame for B's old index is now unknown: dropped before any crypto.
            final byte[] stale = new FrameCodec().seal(FrameCodec.key(1), 0, 0x2222, total * 2L, 0,
                    Deliveries.bytes(0, 64));
            raw.send(ByteBuffer.wrap(stale), address(b));
            spinUntil(STALL, () -> b.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX) == 1,
                    () -> "progress; A: " + dump(a) + " B: " + dump(b));
            // Traffic still flows on the new sessions.
            assertEquals(total, atB.delivered.get());
            final MemorySegment buf = Arena.ofAuto().allocate(SIZE);
            Deliveries.write(buf, total, SIZE);
            assertTrue(a.sendDatagram(LINK_A, buf, 0, SIZE));
            spinUntil(STALL, () -> atB.delivered.get() == total + 1,
                    () -> "progress; A: " + dump(a) + " B: " + dump(b));
            assertEquals(0, atB.corrupt.get() + atB.outOfOrder.get());
        }
    }
}
