package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;
import static net.fips.testing.Await.spinUntil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.AgentRunner;
import net.fips.dataplane.agent.BackoffIdleStrategy;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * Idle worker and tx threads park until signalled, and no signal is lost: traffic in lock step (each datagram
 * delivered before the next is sent) with random gaps, so every hop's consumer is caught at every stage of going
 * to sleep. The parks are unbounded here, so one lost wake-up would stall the exchange for good.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DataPlaneWakeUpTest {
    private static final int SIZE = 64;
    /** How long a wait may see no progress before the test fails (a lost wake-up?). */
    static final Duration STALL = Duration.ofSeconds(10);
    private static final long LINK_A = 1;
    private static final long LINK_B = 8;

    private static DataPlane plane(final Deliveries deliveries, final int workers) throws Exception {
        // A short back-off (parks of 1, 2 and 4 us, then exhausted) so that the consumers reach the signalled
        // park within the gaps below.
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(workers).poolSlots(1024)
                .idleStrategySupplier(() -> new BackoffIdleStrategy(20, 2, 1_000, 4_000))
                .idleParkBoundNs(DataPlaneContext.IDLE_PARK_UNBOUNDED).cipherSupplier(AeadCiphers::create)
                .localDelivery(deliveries));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(1500)));
        dp.start();
        return dp;
    }

    private static void link(final DataPlane a, final DataPlane b) {
        a.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), 0x1111, 0x2222,
                FrameCodec.key(1), FrameCodec.key(2), System.nanoTime()));
        b.addLink(new LinkSpec(LINK_B, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x2222, 0x1111,
                FrameCodec.key(2), FrameCodec.key(1), System.nanoTime()));
    }

    /** Busy-waits about {@code nanos}: a gap in the traffic, not a wait for a result. */
    private static void gap(final long nanos) {
        final long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private static String dump(final DataPlane dp) {
        return nonZeroCounters(dp) + dp.udpTransport(0).counters().toString() + " failure=" + dp.agentFailure();
    }

    /** The data plane's non-zero counters, {@code NAME=value } each, for failure messages. */
    static String nonZeroCounters(final DataPlane dp) {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            final long v = dp.counter(c);
            if (v != 0) {
                sb.append(c).append('=').append(v).append(' ');
            }
        }
        return sb.toString();
    }

    @Test
    void hundredThousandSparseDatagramsAreAllDeliveredWithUnboundedParks() throws Exception {
        final int total = 100_000;
        final Deliveries atA = new Deliveries();
        final Deliveries atB = new Deliveries();
        final SplittableRandom random = new SplittableRandom(0x1D1E);
        try (DataPlane a = plane(atA, 2); DataPlane b = plane(atB, 1)) {
            link(a, b);
            final MemorySegment buf = Arena.ofAuto().allocate(SIZE);
            final Supplier<String> state = () -> "A: " + dump(a) + " B: " + dump(b);
            for (int i = 0; i < total; i++) {
                // Mostly short gaps (the consumers are still backing off or just announcing sleep), sometimes
                // long ones (they are parked).
                gap(random.nextInt(4) == 0 ? random.nextLong(400_000) : random.nextLong(30_000));
                final boolean ab = (i & 1) == 0;
                final long seq = i >>> 1;
                Deliveries.write(buf, seq, SIZE);
                final DataPlane from = ab ? a : b;
                final Deliveries to = ab ? atB : atA;
                while (!from.sendDatagram(ab ? LINK_A : LINK_B, buf, 0, SIZE)) {
                    Thread.onSpinWait();
                }
                spinUntil(STALL, () -> to.delivered.get() == seq + 1, state);
            }
            assertEquals(total / 2, atA.delivered.get());
            assertEquals(total / 2, atB.delivered.get());
            assertEquals(0, atA.corrupt.get() + atB.corrupt.get() + atA.outOfOrder.get() + atB.outOfOrder.get());
            assertNull(a.agentFailure());
            assertNull(b.agentFailure());
            // Gone quiet, every worker and tx thread ends up parked on its wake signal.
            spinUntil(STALL, DataPlaneWakeUpTest::allConsumersParkedOnTheirSignal,
                    () -> "threads not parked: " + consumers());
        }
    }

    @Test
    void aNegativeParkBoundIsRefused() {
        final DataPlaneContext ctx = new DataPlaneContext().idleParkBoundNs(-1);
        assertThrows(IllegalArgumentException.class, ctx::conclude);
        assertEquals(DataPlaneContext.IDLE_PARK_DISABLED,
                new DataPlaneContext().idleParkBoundNs(0).conclude().idleParkBoundNs());
    }

    private static List<Thread> consumers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("fips-worker-") || t.getName().startsWith("fips-tx-"))
                .filter(Thread::isAlive)
                .toList();
    }

    private static boolean allConsumersParkedOnTheirSignal() {
        final List<Thread> threads = consumers();
        // two planes: 3 workers and 2 tx loops (threads of planes closed by other tests have ended)
        return threads.size() == 5 && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING
                && LockSupport.getBlocker(t) instanceof AgentRunner);
    }

    @Test
    void aRunnerParkedOnItsSignalMissesNoneOfTwoHundredThousandSparseItems() {
        final int total = 200_000;
        final MpscSlotRing ring = new MpscSlotRing(64);
        final WakeSignal signal = new WakeSignal();
        final AtomicLong consumed = new AtomicLong();
        final AtomicLong emptyCycles = new AtomicLong();
        final Agent agent = new Agent() {
            private final int[] batch = new int[16];

            @Override
            public int doWork() {
                final int n = ring.drainTo(batch);
                if (n > 0) {
                    emptyCycles.set(0);
                    consumed.addAndGet(n);
                } else {
                    emptyCycles.incrementAndGet();
                }
                return n;
            }

            @Override
            public String roleName() {
                return "wake-test-consumer";
            }

            @Override
            public void onClose() {
            }

            @Override
            public WakeSignal wakeSignal() {
                return signal;
            }

            @Override
            public boolean hasPendingWork() {
                return ring.size() > 0;
            }
        };
        final SplittableRandom random = new SplittableRandom(7);
        // 4 spins, 2 yields and no timed parks: the 7th empty cycle in a row is the one after which the consumer
        // goes to sleep
        final int spins = 4;
        final int yields = 2;
        try (AgentRunner runner = new AgentRunner(agent, new BackoffIdleStrategy(spins, yields, 1, 1),
                DataPlaneContext.IDLE_PARK_UNBOUNDED, (a, e) -> fail(e))) {
            runner.start();
            for (int i = 0; i < total; i++) {
                final long expected = i + 1;
                // Offer at a random point of the consumer's way to sleep, most often just as it gets there.
                final int phase = random.nextInt(2 * (spins + yields + 1) + 1);
                if (phase <= spins + yields + 1) {
                    spinUntil(STALL, () -> emptyCycles.get() >= phase, () -> "consumer stopped cycling");
                } else {
                    spinUntil(STALL, () -> emptyCycles.get() >= spins + yields + 1, () -> "consumer stopped cycling");
                    gap(random.nextLong(2_000));
                }
                while (!ring.offer(i & 0xFFFF)) {
                    Thread.onSpinWait();
                }
                signal.wake();
                spinUntil(STALL, () -> consumed.get() == expected,
                        () -> "consumed " + consumed.get() + " of " + expected);
            }
        }
        assertEquals(total, consumed.get());
    }
}
