package net.fips.dataplane.pool;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LI_Result;

/**
 * Two threads each acquire twice from a {@link PacketPool} of two slots: the free list's versioned CAS pop must
 * hand out each slot to exactly one of them, and exactly two of the four acquires succeed. r1: the grade, r2: how
 * many slots the first thread got (0 to 2).
 */
@JCStressTest
@Description("PacketPool.acquire from two threads: no slot handed to two owners, none lost")
@Outcome(id = "OK, [0-2]", expect = Expect.ACCEPTABLE,
        desc = "the two slots went to one owner each, the other acquires found the pool empty")
@Outcome(id = "TWO_OWNERS, .*", expect = Expect.FORBIDDEN, desc = "the same slot was handed out twice")
@Outcome(id = "LOST, .*", expect = Expect.FORBIDDEN, desc = "fewer than two acquires succeeded: a free slot was lost")
@Outcome(id = "LEAK, .*", expect = Expect.FORBIDDEN,
        desc = "after releasing, the free list did not hold exactly the pool's slots")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class PacketPoolAcquireTest {
    final PacketPool pool = SlotPools.take(2);
    int a1;
    int a2;
    int b1;
    int b2;

    @Actor
    public void owner1() {
        a1 = pool.acquire();
        a2 = pool.acquire();
    }

    @Actor
    public void owner2() {
        b1 = pool.acquire();
        b2 = pool.acquire();
    }

    @Arbiter
    public void arbiter(final LI_Result r) {
        final int[] got = {a1, a2, b1, b2};
        r.r2 = (a1 >= 0 ? 1 : 0) + (a2 >= 0 ? 1 : 0);
        int count = 0;
        String grade = "OK";
        for (int i = 0; i < got.length; i++) {
            if (got[i] == PacketPool.NO_SLOT) {
                continue;
            }
            count++;
            for (int j = i + 1; j < got.length; j++) {
                if (got[j] == got[i]) {
                    grade = "TWO_OWNERS";
                }
            }
        }
        if (grade.equals("OK") && count != 2) {
            grade = "LOST";
        }
        for (final int s : got) {
            if (s != PacketPool.NO_SLOT) {
                pool.release(s);
            }
        }
        if (!SlotPools.checkAllFreeAndGiveBack(pool) && grade.equals("OK")) {
            grade = "LEAK";
        }
        r.r1 = grade;
    }
}
