package net.fips.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The MMP receiver's per-frame figures against hand-computed values (routing-session.md §6.3). */
class MmpReceiverTest {
    private static final long MS = 1_000_000L;

    @Test
    void rfc3550JitterAndOwdTrendOfAHandComputedSequence() {
        final MmpReceiver r = new MmpReceiver();
        // Sent every 10 ms; arrivals at 0, 10, 22, 30, 40 ms.
        r.onFrame(0, 0, false, 0);
        assertEquals(0, r.jitterMicros(), "one frame: no transit difference yet");
        assertEquals(0, r.owdTrend(), "one sample: no slope");
        r.onFrame(1, 10, false, 10 * MS);       // D = 10000 - 10000 = 0
        assertEquals(0, r.jitterMicros());
        assertEquals(0, r.owdTrend(), "samples 0, 0");
        r.onFrame(2, 20, false, 22 * MS);       // D = 12000 - 10000 = 2000: J_q4 = 2000, J = 125
        assertEquals(125, r.jitterMicros());
        // OWD samples y = (µs since the previous arrival) - sender_µs: 0, 0, 12000-20000 = -8000.
        // slope over x = 0,1,2: (1·(-8000) - 1·0) / 2 = -4000 per sample, ×1000.
        assertEquals(-4_000_000, r.owdTrend());
        r.onFrame(3, 30, false, 30 * MS);       // D = 8000 - 10000: |D| = 2000: J_q4 = 2000 + 2000 - 125 = 3875
        assertEquals(242, r.jitterMicros());
        r.onFrame(4, 40, false, 40 * MS);       // D = 0: J_q4 = 3875 - 242 = 3633
        assertEquals(227, r.jitterMicros());
        // y = 0, 0, -8000, -22000, -30000; x̄ = 2: Σ(x-x̄)y = -22000 - 60000 = -82000, Σ(x-x̄)² = 10.
        assertEquals(-8_200_000, r.owdTrend());
    }

    @Test
    void owdTrendIsTheLeastSquaresSlopeOfTheLast32Samples() {
        final MmpReceiver r = new MmpReceiver();
        final long[] y = new long[100];
        long t = 0;
        long seed = 12345;
        long prev = -1;
        for (int i = 0; i < y.length; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            t += 1_000_000 + (seed >>> 44);      // 1 ms plus up to ~1 ms of noise
            final long senderMs = i * 2L;
            r.onFrame(i, senderMs, false, t);
            y[i] = (prev < 0 ? 0 : (t - prev) / 1000) - senderMs * 1000;
            prev = t;
            final int from = Math.max(0, i + 1 - MmpReceiver.OWD_WINDOW);
            assertEquals(referenceSlope(y, from, i + 1), r.owdTrend(), "after sample " + i);
        }
    }

    /** The reference's computation: mean-centred least squares in doubles, slope ×1000 as i32. */
    private static int referenceSlope(final long[] y, final int from, final int to) {
        final int n = to - from;
        if (n < 2) {
            return 0;
        }
        double sx = 0;
        double sy = 0;
        for (int i = from; i < to; i++) {
            sx += i;
            sy += y[i];
        }
        final double mx = sx / n;
        final double my = sy / n;
        double num = 0;
        double den = 0;
        for (int i = from; i < to; i++) {
            num += (i - mx) * (y[i] - my);
            den += (i - mx) * (i - mx);
        }
        return (int) (num / den * 1000.0);
    }

    @Test
    void burstsFromCounterGaps() {
        final MmpReceiver r = new MmpReceiver();
        for (final long c : new long[] {0, 1, 4, 5, 8, 9}) {   // 2,3 lost; 6,7 lost
            r.onFrame(c, c, false, c * MS);
        }
        assertEquals(2, r.burstLossCount());
        assertEquals(4, r.burstLostFrames());
        assertEquals(2, r.takeIntervalMaxBurst());
        assertEquals(0, r.takeIntervalMaxBurst(), "a new interval without gaps");
        for (final long c : new long[] {10, 14, 17, 18}) {       // 11-13 lost, then 15-16: one burst of 5
            r.onFrame(c, c, false, c * MS);
        }
        assertEquals(3, r.burstLossCount());
        assertEquals(9, r.burstLostFrames());
        assertEquals(5, r.takeIntervalMaxBurst());
        r.onFrame(20, 20, false, 20 * MS);                        // 19 lost
        assertEquals(1, r.takeIntervalMaxBurst());
        assertEquals(0, r.reorderCount());
    }

    @Test
    void reorderingIsACounterBelowTheHighest() {
        final MmpReceiver r = new MmpReceiver();
        for (final long c : new long[] {0, 1, 2, 5, 3, 4, 6}) {
            r.onFrame(c, c, false, c * MS);
        }
        assertEquals(2, r.reorderCount(), "3 and 4 arrived after 5");
        // The gap before 5 counts as a burst (the reference counts late frames as lost too).
        assertEquals(1, r.burstLossCount());
        assertEquals(2, r.burstLostFrames());
    }

    @Test
    void ceCountsAndTheRekeyReset() {
        final MmpReceiver r = new MmpReceiver();
        r.onFrame(0, 0, true, 0);
        r.onFrame(1, 10, false, 10 * MS);
        r.onFrame(2, 20, true, 25 * MS);
        r.onFrame(1, 10, false, 26 * MS);     // a reordered one
        assertEquals(2, r.ceCountGeneration());
        assertEquals(2, r.ceCountTotal());
        assertEquals(1, r.reorderCount());
        final long jitter = r.jitterMicros();
        assertEquals(true, jitter > 0);
        r.resetForRekey(100 * MS);
        assertEquals(0, r.ceCountGeneration(), "the report's count restarts with the generation");
        assertEquals(2, r.ceCountTotal());
        assertEquals(0, r.reorderCount());
        assertEquals(0, r.jitterMicros());
        assertEquals(0, r.owdTrend());
        // New generation: counters and timestamps restart; frames are not reorders of the old ones.
        r.onFrame(0, 0, true, 110 * MS);
        assertEquals(0, r.reorderCount());
        assertEquals(1, r.ceCountGeneration());
        assertEquals(3, r.ceCountTotal());
    }

    @Test
    void jitterIsNotUpdatedFor15SecondsAfterARekey() {
        final MmpReceiver r = new MmpReceiver();
        r.onFrame(0, 1000, false, 0);
        r.onFrame(1, 2000, false, 1000 * MS);
        assertEquals(0, r.jitterMicros(), "perfect spacing");
        final long rekey = 2000 * MS;
        r.resetForRekey(rekey);
        // A drain-window frame with an old-generation timestamp, then new-generation timestamps.
        r.onFrame(0, 120_000, false, rekey + 1000 * MS);
        r.onFrame(1, 100, false, rekey + 2000 * MS);
        assertEquals(0, r.jitterMicros(), "suppressed in the grace period");
        final long after = rekey + MmpReceiver.REKEY_JITTER_GRACE_NANOS;
        r.onFrame(2, 200, false, after);                 // D = (after - prev) - 100 ms: a real update
        final long expected = (Math.abs((after - (rekey + 2000 * MS)) / 1000 - 100_000)) >> 4;
        assertEquals(expected, r.jitterMicros());
    }
}
