package net.fips.dataplane.agent;

import java.lang.foreign.Arena;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.WakeFd;

/**
 * The idle hand-shake of the compact data-plane thread ({@code net.fips.dataplane.engine.CompactRunner}) over a
 * {@link WakeSignal} with an eventfd: the consumer announces it will sleep, re-checks its ring and, finding it empty,
 * would block in poll; the producer offers an index and calls {@code wake}, which writes the eventfd if it saw the
 * announcement. The consumer polls only after the producer's {@code wake} has returned, without waiting (timeout 0):
 * the eventfd must then be readable, else the wake-up was lost and a real poll would block for good. r1: what the
 * re-check did, r2: what the poll found.
 */
@JCStressTest
@Description("WakeSignal with an eventfd: a consumer that missed the item in its re-check finds the eventfd written")
@Outcome(id = "SAW_ITEM, NO_POLL", expect = Expect.ACCEPTABLE, desc = "the re-check after announcing found the item")
@Outcome(id = "EMPTY, WOKEN", expect = Expect.ACCEPTABLE, desc = "found nothing; the producer's wake wrote the eventfd")
@Outcome(id = "EMPTY, LOST", expect = Expect.FORBIDDEN, desc = "lost wake-up: no item seen and no eventfd write")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class WakeSignalEventFdTest {
    final WakeFd fd;
    final WakeSignal signal;
    final SpscSlotRing ring = new SpscSlotRing(2);
    volatile boolean wakeReturned;

    public WakeSignalEventFdTest() {
        try {
            fd = WakeFd.open();
        } catch (final ErrnoException e) {
            throw new IllegalStateException(e);
        }
        signal = new WakeSignal(fd::wake);
    }

    @Actor
    public void consumer(final LL_Result r) {
        signal.prepareToSleep();
        if (!ring.isEmpty()) {
            r.r1 = "SAW_ITEM";
            r.r2 = "NO_POLL";
        } else {
            while (!wakeReturned) {
                Thread.onSpinWait();
            }
            final Arena arena = Arena.ofConfined();
            try (arena) {
                final PollFds p = new PollFds(arena, 1);
                p.set(0, fd.fd(), Linux.POLLIN);
                final int ready = p.poll(CallState.allocate(arena), 0);
                r.r1 = "EMPTY";
                r.r2 = ready == 1 ? "WOKEN" : "LOST";
            }
        }
        signal.awake();
    }

    @Actor
    public void producer() {
        ring.offer(1);
        signal.wake();
        wakeReturned = true;
    }

    @Arbiter
    public void close(final LL_Result r) {
        fd.close();
    }
}
