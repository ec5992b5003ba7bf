package net.fips.dataplane.engine;

import static net.fips.dataplane.engine.DataPlaneWakeUpTest.STALL;
import static net.fips.testing.Await.spinUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.pool.PacketPool;

/**
 * {@link ThreadingMode#COMPACT}: one thread for every agent, blocking in poll on its descriptors and an eventfd.
 * The polls are unbounded here, so a lost wake-up stalls the test for good (and the bounded awaits fail it).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DataPlaneCompactTest {
    private static final long LINK_A = 1;
    private static final long LINK_B = 8;
    private static final TransportAddr PEER = TransportAddr.ofText("peer");

    private final List<DataPlane> planes = new ArrayList<>();

    @AfterEach
    void closePlanes() {
        planes.forEach(DataPlane::close);
    }

    private static DataPlaneContext context(final Deliveries deliveries, final int workers) {
        return new DataPlaneContext().threadingMode(ThreadingMode.COMPACT).workerCount(workers).poolSlots(1024)
                .idleParkBoundNs(DataPlaneContext.IDLE_PARK_UNBOUNDED).cipherSupplier(AeadCiphers::create)
                .localDelivery(deliveries);
    }

    private DataPlane udpPlane(final Deliveries deliveries, final int workers) throws Exception {
        final DataPlane dp = new DataPlane(context(deliveries, workers));
        planes.add(dp);
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(1500)));
        dp.start();
        return dp;
    }

    /** A plane whose only transport is a loop transport driven by this test's thread (no descriptor to poll). */
    private DataPlane loopPlane(final LoopPortTest.FakeTransport t, final DataPlaneContext ctx) {
        final DataPlane dp = new DataPlane(ctx);
        planes.add(dp);
        dp.addTransport(t);
        dp.start();
        // receives on 0x1111 with key 2, sends to 0x2222 with key 1
        dp.addLink(new LinkSpec(LINK_A, 0, PEER, 0x1111, 0x2222, FrameCodec.key(1), FrameCodec.key(2),
                System.nanoTime()));
        return dp;
    }

    /** Whether the compact thread is blocked in poll now (its stack, not a timing guess). */
    private static boolean inPoll(final DataPlane dp) {
        final Thread t = dp.compactRunner().thread();
        for (final StackTraceElement e : t.getStackTrace()) {
            if ("poll".equals(e.getMethodName()) && e.getClassName().endsWith("Syscalls")) {
                return true;
            }
        }
        return false;
    }

    private static String dump(final DataPlane dp) {
        return DataPlaneWakeUpTest.nonZeroCounters(dp) + " cycles=" + dp.compactRunner().cycles()
                + " polls=" + dp.compactRunner().polls() + " failure=" + dp.agentFailure();
    }

    /** Drains the loop transport's outbound queue as its loop would: returns the frames, releases the slots. */
    private static int drain(final LoopPortTest.FakeTransport t) {
        final int[] slots = new int[64];
        int total = 0;
        int n;
        while ((n = t.port.drainOutbound(slots, slots.length)) > 0) {
            for (int i = 0; i < n; i++) {
                assertNotNull(t.port.takeDestination(slots[i]));
                t.port.release(slots[i]);
            }
            total += n;
        }
        return total;
    }

    @Test
    void allAgentsRunOnOneThreadNamedFipsDataplane() throws Exception {
        final DataPlane dp = udpPlane(new Deliveries(), 2);
        assertEquals(ThreadingMode.COMPACT, dp.threadingMode());
        assertEquals(List.of("fips-dataplane"), dp.threadNames());
        assertEquals("fips-dataplane", dp.compactRunner().thread().getName());
        assertTrue(dp.compactRunner().thread().isAlive());
    }

    @Test
    void aCommandFromTheControlThreadWakesTheIdleThread() {
        final LoopPortTest.FakeTransport t = new LoopPortTest.FakeTransport();
        final DataPlane dp = loopPlane(t, context(new Deliveries(), 1));
        spinUntil(STALL, () -> inPoll(dp), () -> "never blocked in poll: " + dump(dp));
        final long polls = dp.compactRunner().polls();
        // a command queued by this (control) thread: only the eventfd can get the idle thread to apply it
        dp.sendLinkMessage(LINK_A, new byte[] {0x50, 1, 2, 3});
        spinUntil(STALL, () -> t.port.hasOutbound(), () -> "the command was not applied: " + dump(dp));
        assertEquals(1, drain(t));
        assertEquals(1, dp.linkStats(LINK_A).packetsOut());
        assertTrue(dp.compactRunner().polls() >= polls);
        assertNull(dp.agentFailure());
        spinUntil(STALL, () -> inPoll(dp), () -> "did not go back to poll: " + dump(dp));
    }

    @Test
    void aFrameDeliveredByALoopTransportWakesTheIdleThread() {
        final LoopPortTest.FakeTransport t = new LoopPortTest.FakeTransport();
        final Deliveries d = new Deliveries();
        final DataPlane dp = loopPlane(t, context(d, 2));
        final FrameCodec codec = new FrameCodec();
        for (int i = 0; i < 50; i++) {
            final long seq = i;
            spinUntil(STALL, () -> inPoll(dp), () -> "never blocked in poll: " + dump(dp));
            final byte[] frame = codec.seal(FrameCodec.key(2), 0, 0x1111, i, 0, Deliveries.bytes(i, 64));
            final int slot = t.port.acquire();
            MemorySegment.copy(frame, 0, t.port.pool().slotSegment(slot), ValueLayout.JAVA_BYTE,
                    TransportPort.DATA_OFFSET, frame.length);
            final byte[] src = PEER.bytes();
            assertTrue(t.port.deliver(slot, frame.length, MemorySegment.ofArray(src), 0, src.length));
            t.port.flush();
            spinUntil(STALL, () -> d.delivered.get() == seq + 1, () -> "frame " + seq + " not delivered: " + dump(dp));
        }
        assertEquals(0, d.corrupt.get() + d.outOfOrder.get());
    }

    @Test
    void sparseDatagramsBothWaysAreAllDeliveredWithUnboundedPolls() throws Exception {
        final int total = 20_000;
        final Deliveries atA = new Deliveries();
        final Deliveries atB = new Deliveries();
        final DataPlane a = udpPlane(atA, 2);
        final DataPlane b = udpPlane(atB, 1);
        a.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), 0x1111, 0x2222,
                FrameCodec.key(1), FrameCodec.key(2), System.nanoTime()));
        b.addLink(new LinkSpec(LINK_B, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x2222, 0x1111,
                FrameCodec.key(2), FrameCodec.key(1), System.nanoTime()));
        final SplittableRandom random = new SplittableRandom(0xC0);
        final MemorySegment buf = Arena.ofAuto().allocate(64);
        final Supplier<String> state = () -> "A: " + dump(a) + " B: " + dump(b);
        for (int i = 0; i < total; i++) {
            // sometimes wait until the receiving side sleeps in poll, else send at once
            final boolean ab = (i & 1) == 0;
            final DataPlane from = ab ? a : b;
            final DataPlane to = ab ? b : a;
            if (random.nextInt(4) == 0) {
                spinUntil(STALL, () -> inPoll(from) && inPoll(to), state);
            }
            final long seq = i >>> 1;
            Deliveries.write(buf, seq, 64);
            while (!from.sendDatagram(ab ? LINK_A : LINK_B, buf, 0, 64)) {
                Thread.onSpinWait();
            }
            final Deliveries at = ab ? atB : atA;
            spinUntil(STALL, () -> at.delivered.get() == seq + 1, state);
        }
        assertEquals(total / 2, atA.delivered.get());
        assertEquals(total / 2, atB.delivered.get());
        assertEquals(0, atA.corrupt.get() + atB.corrupt.get() + atA.outOfOrder.get() + atB.outOfOrder.get());
        assertNull(a.agentFailure());
        assertNull(b.agentFailure());
    }

    @Test
    void closeWakesTheIdleThreadAndJoinsIt() throws Exception {
        final DataPlane dp = udpPlane(new Deliveries(), 1);
        final Thread thread = dp.compactRunner().thread();
        spinUntil(STALL, () -> inPoll(dp), () -> "never blocked in poll: " + dump(dp));
        dp.close();   // bounded by the class timeout: the poll is unbounded, only the eventfd ends it
        assertFalse(thread.isAlive(), "close() returned before the thread ended");
    }

    @Test
    void aFullOutboundRingIsRetriedAtAPaceThenDrainsCompletely() {
        final LoopPortTest.FakeTransport t = new LoopPortTest.FakeTransport();
        final DataPlane dp = loopPlane(t, context(new Deliveries(), 1).batch(16).ringCapacity(64).poolSlots(512));
        final MemorySegment buf = Arena.ofAuto().allocate(64);
        final int total = 100;
        for (int i = 0; i < total; i++) {
            Deliveries.write(buf, i, 64);
            // the caller ring holds 64: wait while the thread has not yet moved earlier ones on
            spinUntil(STALL, () -> dp.sendDatagram(LINK_A, buf, 0, 64), () -> "caller ring stays full: " + dump(dp));
        }
        // The loop transport drains nothing: 64 sealed frames fill its ring, the rest wait in the caller ring.
        final CompactRunner r = dp.compactRunner();
        spinUntil(STALL, () -> dp.linkStats(LINK_A).packetsOut() == 64, () -> "ring not filled: " + dump(dp));
        final long cycles0 = r.cycles();
        final long t0 = System.nanoTime();
        // Watch the stalled thread for a while (an observation window, not a synchronisation).
        final long windowNs = TimeUnit.MILLISECONDS.toNanos(300);
        while (System.nanoTime() - t0 < windowNs) {
            Thread.yield();
        }
        final long cycles = r.cycles() - cycles0;
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        // Back-off: ~110 quick cycles, then timed parks growing to 1 ms. Spinning would be ~10^5-10^6 per second;
        // a loaded machine only lowers the count.
        assertTrue(cycles <= 200 + 2 * elapsedMs, cycles + " cycles in " + elapsedMs + " ms: spinning");
        assertTrue(cycles > 0, "the stalled thread retries");
        assertEquals(64, dp.linkStats(LINK_A).packetsOut());
        // The loop frees the ring; nobody signals the data-plane thread, its paced retry picks the rest up.
        final int[] got = {drain(t)};
        spinUntil(STALL, () -> {
            got[0] += drain(t);
            return got[0] == total;
        }, () -> got[0] + " of " + total + " frames out: " + dump(dp));
        assertEquals(total, dp.linkStats(LINK_A).packetsOut());
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_TX_RING_FULL));
        assertNull(dp.agentFailure());
    }

    @Test
    void anExhaustedPoolWithDatagramsWaitingIsRetriedAtAPaceThenEverythingArrives() throws Exception {
        final Deliveries d = new Deliveries();
        final DataPlane dp = new DataPlane(context(d, 1).poolSlots(256));
        planes.add(dp);
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(1500)));
        // Every slot taken before the thread starts: the receive agent never gets one to offer the kernel.
        final List<Integer> held = new ArrayList<>();
        int s;
        while ((s = dp.pool().acquire()) != PacketPool.NO_SLOT) {
            held.add(s);
        }
        dp.start();
        try (DatagramChannel raw = DatagramChannel.open()
                .bind(new InetSocketAddress("127.0.0.1", 0))) {
            dp.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet((InetSocketAddress) raw.getLocalAddress()),
                    0x1111, 0x2222, FrameCodec.key(1), FrameCodec.key(2), System.nanoTime()));
            final FrameCodec codec = new FrameCodec();
            final int total = 40;
            for (int i = 0; i < total; i++) {
                raw.send(ByteBuffer.wrap(codec.seal(FrameCodec.key(2), 0, 0x1111, i, 0,
                        Deliveries.bytes(i, 64))), dp.udpTransport(0).localAddress());
            }
            final CompactRunner r = dp.compactRunner();
            spinUntil(STALL, () -> dp.counter(DataPlaneCounter.DROP_POOL_EXHAUSTED) > 0,
                    () -> "no exhaustion seen: " + dump(dp));
            final long cycles0 = r.cycles();
            final long t0 = System.nanoTime();
            // The socket stays readable and no cycle can take a datagram: watch for a while (not a synchronisation).
            while (System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(300)) {
                Thread.yield();
            }
            final long cycles = r.cycles() - cycles0;
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(cycles <= 200 + 2 * elapsedMs, cycles + " cycles in " + elapsedMs + " ms: spinning");
            assertEquals(0, d.delivered.get());
            // Slots come back without a signal to the data-plane thread: its paced retry receives everything.
            held.forEach(dp.pool()::release);
            spinUntil(STALL, () -> d.delivered.get() == total,
                    () -> d.delivered.get() + " of " + total + ": " + dump(dp));
            assertEquals(0, d.corrupt.get() + d.outOfOrder.get());
            assertNull(dp.agentFailure());
        }
    }
}
