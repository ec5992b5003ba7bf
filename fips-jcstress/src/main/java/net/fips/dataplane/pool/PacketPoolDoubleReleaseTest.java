package net.fips.dataplane.pool;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZI_Result;

/**
 * Two threads release the same in-use slot at once (a double release, the bug the pool must contain): the CAS on
 * the slot's state lets exactly one of them push it, so the free list never holds it twice. r1, r2: the two
 * releases' results; r3: how many slots the arbiter could take out of the free list afterwards (the pool has 2;
 * negative when one came out twice, 100 + n when not exactly one refusal was counted).
 */
@JCStressTest
@Description("PacketPool: of two racing releases of one slot exactly one wins; the free list holds it once")
@Outcome(id = {"true, false, 2", "false, true, 2"}, expect = Expect.ACCEPTABLE,
        desc = "one release won, the other was refused and counted")
@Outcome(id = "true, true, .*", expect = Expect.FORBIDDEN,
        desc = "both releases succeeded: the slot can be handed to two owners")
@Outcome(id = "false, false, .*", expect = Expect.FORBIDDEN, desc = "both releases refused: the slot is lost")
@Outcome(expect = Expect.FORBIDDEN, desc = "the free list does not hold each slot exactly once")
@State
public class PacketPoolDoubleReleaseTest {
    final PacketPool pool = SlotPools.take(2);
    final int slot = pool.acquire();
    final long refusedBefore = pool.invalidReleaseCount();

    @Actor
    public void release1(final ZZI_Result r) {
        r.r1 = pool.release(slot);
    }

    @Actor
    public void release2(final ZZI_Result r) {
        r.r2 = pool.release(slot);
    }

    @Arbiter
    public void arbiter(final ZZI_Result r) {
        // take everything out: a slot pushed twice comes out twice
        final int[] got = new int[4];
        int n = 0;
        int s;
        while (n < got.length && (s = pool.acquire()) != PacketPool.NO_SLOT) {
            got[n++] = s;
        }
        boolean distinct = true;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                distinct &= got[i] != got[j];
            }
        }
        r.r3 = distinct ? n : -n;
        // the refused release must have been counted, once
        final long refused = pool.invalidReleaseCount() - refusedBefore;
        if (refused != 1) {
            r.r3 = 100 + (int) refused;
        }
        for (int i = 0; i < n; i++) {
            pool.release(got[i]);
        }
        if (distinct) {
            SlotPools.checkAllFreeAndGiveBack(pool);
        } else {
            pool.close();
        }
    }
}
