package net.fips.control.metrics;

import java.util.Arrays;

/**
 * One metric's two rings: {@value StatsHistory#FAST_RING_SECONDS} 1 s samples and
 * {@value StatsHistory#SLOW_RING_MINUTES} 1 min samples in fixed primitive arrays (a gap is NaN), plus the
 * accumulator of the minute in progress and, for counters, the previous total. Positions are global slot numbers
 * shared by every ring of a {@link StatsHistory}, so series of different metrics and peers line up.
 */
final class Ring {
    private final double[] fast = new double[StatsHistory.FAST_RING_SECONDS];
    private final double[] slow = new double[StatsHistory.SLOW_RING_MINUTES];
    private final Aggregation aggregation;
    private double sum;
    private int count;
    private double last = Double.NaN;
    /** Previous total of a counter metric, or -1 when the next sample has no baseline. */
    long previousTotal = -1;

    Ring(final Aggregation aggregation) {
        this.aggregation = aggregation;
        Arrays.fill(fast, Double.NaN);
        Arrays.fill(slow, Double.NaN);
    }

    /** Rate of a counter over {@code seconds}; NaN without a baseline, after a decrease or when unmeasured. */
    double rate(final long total, final long seconds) {
        final long prev = previousTotal;
        previousTotal = total < 0 ? -1 : total;
        if (total < 0 || prev < 0 || total < prev) {
            return Double.NaN;
        }
        return (double) (total - prev) / seconds;
    }

    void putFast(final long slot, final double v) {
        fast[(int) (slot % fast.length)] = v;
        if (!Double.isNaN(v)) {
            sum += v;
            count++;
            last = v;
        }
    }

    void flushSlow(final long slowSlot) {
        final double v;
        if (count == 0) {
            v = Double.NaN;
        } else {
            v = switch (aggregation) {
                case LAST -> last;
                case SUM -> sum;
                case MEAN -> sum / count;
            };
        }
        slow[(int) (slowSlot % slow.length)] = v;
        sum = 0;
        count = 0;
        last = Double.NaN;
    }

    /**
     * Copies the newest {@code want} samples, oldest first.
     *
     * @param slow    which ring
     * @param written slots written so far in that ring
     */
    double[] tail(final boolean slow, final long written, final int want) {
        final double[] src = slow ? this.slow : fast;
        final double[] out = new double[want];
        for (int i = 0; i < want; i++) {
            final long age = want - i;
            out[i] = age > written ? Double.NaN : src[(int) ((written - age) % src.length)];
        }
        return out;
    }

    double newestFast(final long written) {
        return written == 0 ? Double.NaN : fast[(int) ((written - 1) % fast.length)];
    }
}
