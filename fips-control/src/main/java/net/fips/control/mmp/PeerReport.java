package net.fips.control.mmp;

import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.dataplane.wire.MmpReceiverReport;

/**
 * What the peer's ReceiverReports say about our traffic beyond delivery and RTT (routing-session.md §6.3): the last
 * accepted report's jitter, OWD trend, interval loss bursts, cumulative reorder and CE counts, and the reference's
 * dual EWMA of the reported jitter (short α = 1/4, long α = 1/32) for its {@code jitter_trend} label. Nothing here
 * is known before the first accepted report ({@link #seen()}). Control thread.
 */
public final class PeerReport {
    private static final double SHORT_ALPHA = 0.25;
    private static final double LONG_ALPHA = 1.0 / 32;

    private boolean seen;
    private long jitterUs;
    private int owdTrend;
    private long burstLossCount;
    private int maxBurstLoss;
    private int meanBurstLoss;
    private long reorderCount;
    private long ecnCeCount;
    private double jitterShort;
    private double jitterLong;

    /** An accepted (not stale) report. */
    public void onReport(final MmpReceiverReport rr) {
        if (!seen) {
            jitterShort = rr.jitter();
            jitterLong = rr.jitter();
        } else {
            jitterShort += SHORT_ALPHA * (rr.jitter() - jitterShort);
            jitterLong += LONG_ALPHA * (rr.jitter() - jitterLong);
        }
        seen = true;
        jitterUs = rr.jitter();
        owdTrend = rr.owdTrend();
        burstLossCount = rr.burstLossCount();
        maxBurstLoss = rr.maxBurstLoss();
        meanBurstLoss = rr.meanBurstLoss();
        reorderCount = rr.cumulativeReorderCount();
        ecnCeCount = rr.ecnCeCount();
    }

    /** @return whether a report was accepted */
    public boolean seen() {
        return seen;
    }

    /** @return the CE count the peer last reported (of our frames, current generation), or null before a report */
    public Long ecnCeCount() {
        return seen ? ecnCeCount : null;
    }

    /** @return the peer-reported jitter of our frames in µs, or null */
    public Long jitterUs() {
        return seen ? jitterUs : null;
    }

    /**
     * The reference's trend label of the reported jitter: "rising" when short/long &gt; 1.05, "falling" below 0.95,
     * else (or with a zero long average) "stable"; null before a report.
     */
    public String jitterTrend() {
        if (!seen) {
            return null;
        }
        return trendLabel(jitterShort, jitterLong);
    }

    /** The reference's {@code trend_label}. */
    public static String trendLabel(final double shortAvg, final double longAvg) {
        if (!Double.isFinite(shortAvg) || !Double.isFinite(longAvg) || longAvg == 0.0) {
            return "stable";
        }
        final double ratio = shortAvg / longAvg;
        return ratio > 1.05 ? "rising" : ratio < 0.95 ? "falling" : "stable";
    }

    /** @return an immutable copy of the reported figures, or null before a report */
    public Figures snapshot() {
        return seen ? new Figures(jitterUs, owdTrend, burstLossCount, maxBurstLoss, meanBurstLoss, reorderCount,
                ecnCeCount, jitterTrend()) : null;
    }

    /**
     * The last accepted report's figures.
     *
     * @param jitterUs       jitter of our frames (µs)
     * @param owdTrend       OWD trend
     * @param burstLossCount loss bursts in the report's interval
     * @param maxBurstLoss   the longest
     * @param meanBurstLoss  their mean length, u8.8
     * @param reorderCount   cumulative reordered frames (the peer's current generation)
     * @param ecnCeCount     CE-marked frames (the peer's current generation)
     * @param jitterTrend    the reference's label of the reported jitter's dual EWMA
     */
    public record Figures(long jitterUs, int owdTrend, long burstLossCount, int maxBurstLoss, int meanBurstLoss,
                          long reorderCount, long ecnCeCount, String jitterTrend) {
        /** Writes the figures; all null for {@code f == null}. */
        public static void putJson(final ObjectNode o, final Figures f) {
            if (f == null) {
                for (final String k : new String[] {"jitter_us", "owd_trend", "burst_loss_count", "max_burst_loss",
                    "mean_burst_loss", "cumulative_reorder_count", "ecn_ce_count"}) {
                    o.putNull(k);
                }
                return;
            }
            o.put("jitter_us", f.jitterUs);
            o.put("owd_trend", f.owdTrend);
            o.put("burst_loss_count", f.burstLossCount);
            o.put("max_burst_loss", f.maxBurstLoss);
            o.put("mean_burst_loss", f.meanBurstLoss / 256.0);
            o.put("cumulative_reorder_count", f.reorderCount);
            o.put("ecn_ce_count", f.ecnCeCount);
        }
    }
}
