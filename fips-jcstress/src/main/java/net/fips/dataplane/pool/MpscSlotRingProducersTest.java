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
 * Two producers race for the two cells of an {@link MpscSlotRing} (capacity 2), two offers each; the arbiter is
 * the consumer. Exactly two offers fit, the CAS on the tail must give each winner its own cell, and the producer
 * limit must refuse the rest without enqueueing them. r1: the grade, r2: how many of the first producer's offers
 * were accepted (0 to 2: both producers won cells in some runs).
 */
@JCStressTest
@Description("MpscSlotRing: concurrent producers neither overwrite each other's cell nor exceed the capacity")
@Outcome(id = "OK, [0-2]", expect = Expect.ACCEPTABLE,
        desc = "exactly two accepted, each taken once, FIFO per producer")
@Outcome(id = "COUNT, .*", expect = Expect.FORBIDDEN,
        desc = "not exactly capacity offers accepted into an unconsumed ring")
@Outcome(id = "LOST, .*", expect = Expect.FORBIDDEN,
        desc = "an accepted index never came out (two producers got one cell)")
@Outcome(id = "DUPLICATED, .*", expect = Expect.FORBIDDEN, desc = "an index came out twice")
@Outcome(id = "PHANTOM, .*", expect = Expect.FORBIDDEN, desc = "a refused or never offered index came out")
@Outcome(id = "REORDERED, .*", expect = Expect.FORBIDDEN, desc = "a producer's indices came out in another order")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class MpscSlotRingProducersTest {
    static final int[][] VALUES = {{1, 2}, {11, 12}};

    final MpscSlotRing ring = new MpscSlotRing(2);
    final boolean[][] accepted = new boolean[2][2];

    @Actor
    public void producer1() {
        accepted[0][0] = ring.offer(VALUES[0][0]);
        accepted[0][1] = ring.offer(VALUES[0][1]);
    }

    @Actor
    public void producer2() {
        accepted[1][0] = ring.offer(VALUES[1][0]);
        accepted[1][1] = ring.offer(VALUES[1][1]);
    }

    @Arbiter
    public void arbiter(final LI_Result r) {
        int count = 0;
        for (final boolean[] p : accepted) {
            for (final boolean a : p) {
                count += a ? 1 : 0;
            }
        }
        r.r2 = (accepted[0][0] ? 1 : 0) + (accepted[0][1] ? 1 : 0);
        final int[] out = new int[8];
        int n = 0;
        int v;
        while (n < out.length && (v = ring.poll()) != MpscSlotRing.EMPTY) {
            out[n++] = v;
        }
        if (count != 2) {
            r.r1 = "COUNT";
            return;
        }
        r.r1 = Sequences.grade(VALUES, accepted, out, n);
    }
}
