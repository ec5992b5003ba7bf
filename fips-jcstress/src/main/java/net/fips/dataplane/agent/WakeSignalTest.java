package net.fips.dataplane.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

import net.fips.dataplane.pool.SpscSlotRing;

/**
 * The idle hand-shake of {@link AgentRunner} over a {@link WakeSignal}, with a real park: the consumer announces
 * it will sleep ({@code prepareToSleep}), re-checks its ring and, finding it empty, parks; the producer offers an
 * index and calls {@code wake}. Whether the wake comes before the park (it leaves a permit) or during it (it
 * unparks), the consumer must come back; a lost wake-up would park it for good.
 * <ul>
 * <li>In most states (late park) the consumer parks only once the producer's {@code wake} has returned, with a
 * bound of {@link #LATE_PARK_MS}: a delivered wake has left a permit, so the park returns at once, and a park that
 * runs to half its bound counts as lost. No system call in the good case, so many samples per second.</li>
 * <li>In every fourth state (early park) the consumer parks at once, unbounded, so the producer's unpark usually
 * finds it parked; the producer, after its {@code wake}, watches it and, if it is still parked after
 * {@link #RESCUE_AFTER_MS}, records the loss and unparks it itself.</li>
 * </ul>
 * The two actors meet at the start of each state so their stores and loads overlap (the hazard is a store-load
 * reordering on either side), and the consumer clears its permit at the end of each state, after every unpark of
 * that state, so a stale permit cannot hide a lost wake-up in the next. r1: what the consumer's re-check did, r2:
 * how the park ended.
 */
@JCStressTest
@Description("WakeSignal: a wake before or during the consumer's park is never lost")
@Outcome(id = "SAW_ITEM, NO_PARK", expect = Expect.ACCEPTABLE,
        desc = "the re-check after announcing found the item; no park")
@Outcome(id = "PARKED, WOKEN", expect = Expect.ACCEPTABLE,
        desc = "found nothing and parked; the producer's wake released it")
@Outcome(id = "PARKED, LOST", expect = Expect.FORBIDDEN,
        desc = "lost wake-up: the producer saw no sleeper and the consumer missed the item")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class WakeSignalTest {
    /** How long an early-parked consumer may take to come back from a delivered wake before it counts as lost. */
    static final long RESCUE_AFTER_MS = 2_000;
    /** Bound of a late park; one that lasts half of it counts as lost. */
    static final long LATE_PARK_MS = 1_000;

    private static final AtomicInteger STATES = new AtomicInteger();

    final WakeSignal signal = new WakeSignal();
    final SpscSlotRing ring = new SpscSlotRing(2);
    final AtomicInteger arrived = new AtomicInteger();
    final boolean earlyPark = (STATES.getAndIncrement() & 3) == 0;
    volatile Thread consumer;
    /** 0 running, 1 parked early, 2 done. */
    volatile int consumerPhase;
    volatile boolean rescued;
    volatile boolean wakeReturned;
    volatile boolean producerDone;

    private void meet() {
        arrived.incrementAndGet();
        while (arrived.get() < 2) {
            Thread.onSpinWait();
        }
    }

    @Actor
    public void consumer(final LL_Result r) {
        consumer = Thread.currentThread();
        meet();
        signal.prepareToSleep();
        // AgentRunner.sleep: after the announcement, re-check the inputs (hasPendingWork), then park
        if (!ring.isEmpty()) {
            r.r1 = "SAW_ITEM";
            r.r2 = "NO_PARK";
        } else if (earlyPark) {
            consumerPhase = 1;
            LockSupport.park(this);
            r.r1 = "PARKED";
            r.r2 = rescued ? "LOST" : "WOKEN";
        } else {
            while (!wakeReturned) {
                Thread.onSpinWait();
            }
            final long start = System.nanoTime();
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(LATE_PARK_MS));
            r.r1 = "PARKED";
            r.r2 = System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(LATE_PARK_MS / 2) ? "LOST" : "WOKEN";
        }
        signal.awake();
        consumerPhase = 2;
        while (!producerDone) {
            Thread.onSpinWait();
        }
        // every unpark of this state has happened: clear a permit the wake may have left (returns at once)
        LockSupport.unpark(Thread.currentThread());
        LockSupport.park(this);
    }

    @Actor
    public void producer() {
        meet();
        ring.offer(1);
        signal.wake();
        wakeReturned = true;
        long parkedSince = 0;
        int phase;
        while ((phase = consumerPhase) != 2) {
            if (phase == 1) {
                final long now = System.nanoTime();
                if (parkedSince == 0) {
                    parkedSince = now;
                } else if (now - parkedSince > TimeUnit.MILLISECONDS.toNanos(RESCUE_AFTER_MS)) {
                    rescued = true;
                    LockSupport.unpark(consumer);
                    parkedSince = now;
                }
            }
            Thread.onSpinWait();
        }
        producerDone = true;
    }
}
