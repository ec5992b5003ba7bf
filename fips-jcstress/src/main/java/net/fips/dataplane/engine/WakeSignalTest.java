package net.fips.dataplane.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import net.fips.dataplane.pool.SpscSlotRing;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * The idle hand-shake of {@link AgentRunner} over a {@link WakeSignal}, with a real park: the consumer announces
 * it will sleep ({@code prepareToSleep}), re-checks its ring and, finding it empty, parks; the producer offers an
 * index and calls {@code wake}. Whether the wake comes before the park (a permit) or during it (an unpark), the
 * consumer must come back. A lost wake-up would park the consumer for good, so the producer, after its
 * {@code wake}, watches the consumer: if it is still parked after {@link #RESCUE_AFTER_MS} it records the loss and
 * unparks it itself. The two actors meet at the start of each state so their stores and loads overlap, and every
 * unpark of one state is over before the next state starts (the consumer drains a leftover permit then), so a
 * stale permit cannot hide a lost wake-up. r1: what the consumer's re-check did, r2: how the park ended.
 */
@JCStressTest
@Description("WakeSignal: a wake before or during the consumer's park is never lost")
@Outcome(id = "SAW_ITEM, NO_PARK", expect = Expect.ACCEPTABLE, desc = "the re-check after announcing found the item; no park")
@Outcome(id = "PARKED, WOKEN", expect = Expect.ACCEPTABLE, desc = "found nothing and parked; the producer's wake released it")
@Outcome(id = "PARKED, LOST", expect = Expect.FORBIDDEN, desc = "lost wake-up: the producer saw no sleeper and the consumer missed the item")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class WakeSignalTest {
    /** How long a parked consumer may take to come back from a delivered wake before it counts as lost. */
    static final long RESCUE_AFTER_MS = 2_000;

    final WakeSignal signal = new WakeSignal();
    final SpscSlotRing ring = new SpscSlotRing(2);
    final AtomicInteger arrived = new AtomicInteger();
    volatile Thread consumer;
    /** 0 running, 1 about to park, 2 done. */
    volatile int consumerPhase;
    volatile boolean rescued;
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
        } else {
            consumerPhase = 1;
            LockSupport.park(this);
            r.r1 = "PARKED";
            r.r2 = rescued ? "LOST" : "WOKEN";
        }
        signal.awake();
        consumerPhase = 2;
        while (!producerDone) {
            Thread.onSpinWait();
        }
        // every unpark of this state has happened: consume a permit the wake may have left unused
        LockSupport.parkNanos(1);
    }

    @Actor
    public void producer() {
        meet();
        ring.offer(1);
        signal.wake();
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
