package net.fips.dataplane.pool;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LII_Result;

/**
 * A producer offers three indices into an {@link MpscSlotRing} of capacity 2 while the consumer polls and drains:
 * the consumer empties cells with plain stores before its release of the head, and a producer that sees the new
 * head may reuse the cell; the arbiter drains the rest. r1: the grade, r2: how many the consumer took while the
 * producer ran, r3: whether the third offer was accepted.
 */
@JCStressTest
@Description("MpscSlotRing: producer against consumer with wrap-around: no index lost or duplicated, FIFO")
@Outcome(id = "OK, [0-3], [01]", expect = Expect.ACCEPTABLE, desc = "every accepted index exactly once, in offer order")
@Outcome(id = "SPURIOUS_FULL, .*", expect = Expect.FORBIDDEN, desc = "an offer into a ring with room was refused")
@Outcome(id = "LOST, .*", expect = Expect.FORBIDDEN, desc = "an accepted index never came out")
@Outcome(id = "DUPLICATED, .*", expect = Expect.FORBIDDEN, desc = "an index came out twice")
@Outcome(id = "PHANTOM, .*", expect = Expect.FORBIDDEN, desc = "a refused or never offered index came out")
@Outcome(id = "REORDERED, .*", expect = Expect.FORBIDDEN, desc = "indices came out in another order than offered")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class MpscSlotRingFifoTest {
    static final int[] VALUES = {10, 11, 12};

    final MpscSlotRing ring = new MpscSlotRing(2);
    final boolean[] accepted = new boolean[3];
    final int[] out = new int[8];
    int outCount;

    @Actor
    public void producer() {
        for (int i = 0; i < VALUES.length; i++) {
            accepted[i] = ring.offer(VALUES[i]);
        }
    }

    @Actor
    public void consumer() {
        final int first = ring.poll();
        int n = 0;
        if (first != MpscSlotRing.EMPTY) {
            out[n++] = first;
        }
        final int[] batch = new int[2];
        final int drained = ring.drainTo(batch);
        for (int i = 0; i < drained; i++) {
            out[n++] = batch[i];
        }
        outCount = n;
    }

    @Arbiter
    public void arbiter(final LII_Result r) {
        r.r2 = outCount;
        r.r3 = accepted[2] ? 1 : 0;
        int n = outCount;
        int v;
        while (n < out.length && (v = ring.poll()) != MpscSlotRing.EMPTY) {
            out[n++] = v;
        }
        if (!accepted[0] || !accepted[1]) {
            r.r1 = "SPURIOUS_FULL";
            return;
        }
        r.r1 = Sequences.grade(new int[][] {VALUES}, new boolean[][] {accepted}, out, n);
    }
}
