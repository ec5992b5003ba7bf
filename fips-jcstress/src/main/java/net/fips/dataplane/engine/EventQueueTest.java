package net.fips.dataplane.engine;

import java.util.concurrent.atomic.AtomicInteger;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

import net.fips.dataplane.DataPlaneEvent;

/**
 * Two data-plane threads offer an event each into the control thread's {@link EventQueue} of capacity 1: one is
 * queued and signals the control thread, the other is refused and counted as dropped; none is lost silently.
 * r1, r2: the two offers (1 accepted), r3: the dropped count, r4: signals run, r5: events the control thread
 * drains afterwards.
 */
@JCStressTest
@Description("EventQueue: with one free place, exactly one of two concurrent events is queued and signalled, "
        + "the other counted")
@Outcome(id = {"1, 0, 1, 1, 1", "0, 1, 1, 1, 1"}, expect = Expect.ACCEPTABLE,
        desc = "one queued and signalled, one dropped and counted")
@Outcome(expect = Expect.FORBIDDEN, desc = "an event lost, queued beyond capacity, unsignalled or miscounted")
@State
public class EventQueueTest {
    final AtomicInteger signals = new AtomicInteger();
    final EventQueue queue = new EventQueue(1, signals::incrementAndGet);

    @Actor
    public void worker1(final IIIII_Result r) {
        r.r1 = queue.offer(new DataPlaneEvent.TooManyDecryptFailures(1)) ? 1 : 0;
    }

    @Actor
    public void worker2(final IIIII_Result r) {
        r.r2 = queue.offer(new DataPlaneEvent.TooManyDecryptFailures(2)) ? 1 : 0;
    }

    @Arbiter
    public void control(final IIIII_Result r) {
        r.r3 = (int) queue.dropped();
        r.r4 = signals.get();
        r.r5 = queue.drain(e -> { });
    }
}
