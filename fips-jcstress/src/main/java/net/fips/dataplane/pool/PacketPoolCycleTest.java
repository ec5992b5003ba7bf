package net.fips.dataplane.pool;

import java.util.concurrent.atomic.AtomicIntegerArray;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * Two threads each run acquire, use, release twice over a {@link PacketPool} of two slots, so pushes and pops of
 * the Treiber free list interleave (the ABA-prone pattern the version in the head guards against). Each thread
 * claims the slot it got in an owner table while it holds it: a failed claim means the pool handed a slot to two
 * owners at once. With at most one slot held per thread, an acquire never legitimately finds the pool empty.
 * Afterwards the arbiter takes every slot out again: each released slot must come back, exactly once.
 */
@JCStressTest
@Description("PacketPool acquire/release cycles from two threads: one owner per slot, every released slot comes back")
@Outcome(id = "OK, OK", expect = Expect.ACCEPTABLE, desc = "one owner at a time, every slot back in the free list once")
@Outcome(id = "TWO_OWNERS, .*", expect = Expect.FORBIDDEN, desc = "a slot was held by both threads at once")
@Outcome(id = "EMPTY, .*", expect = Expect.FORBIDDEN,
        desc = "an acquire found no slot while one was free: a slot was lost")
@Outcome(id = "REFUSED, .*", expect = Expect.FORBIDDEN, desc = "a release of an owned slot was refused")
@Outcome(id = ".*, LEAK", expect = Expect.FORBIDDEN,
        desc = "afterwards the free list did not hold each slot exactly once")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class PacketPoolCycleTest {
    final PacketPool pool = SlotPools.take(2);
    final AtomicIntegerArray owner = new AtomicIntegerArray(2);
    volatile String failure1 = "OK";
    volatile String failure2 = "OK";

    private String cycle(final int me) {
        for (int round = 0; round < 2; round++) {
            final int s = pool.acquire();
            if (s == PacketPool.NO_SLOT) {
                return "EMPTY";
            }
            if (!owner.compareAndSet(s, 0, me)) {
                return "TWO_OWNERS";
            }
            // use it: plain stores and loads of the slot, as packet code does
            SlotPools.putPayload(pool, s, me);
            final boolean mine = SlotPools.payload(pool, s) == me;
            if (!owner.compareAndSet(s, me, 0) || !mine) {
                return "TWO_OWNERS";
            }
            if (!pool.release(s)) {
                return "REFUSED";
            }
        }
        return "OK";
    }

    @Actor
    public void thread1() {
        failure1 = cycle(1);
    }

    @Actor
    public void thread2() {
        failure2 = cycle(2);
    }

    @Arbiter
    public void arbiter(final LL_Result r) {
        r.r1 = !failure1.equals("OK") ? failure1 : failure2;
        r.r2 = SlotPools.checkAllFreeAndGiveBack(pool) ? "OK" : "LEAK";
    }
}
