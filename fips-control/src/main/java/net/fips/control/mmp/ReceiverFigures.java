package net.fips.control.mmp;

import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.dataplane.MmpReceiver;

/**
 * A copy of our own MMP receiver's figures of a peer's (or session's) frames, measured per frame by the data plane
 * (routing-session.md §6.3).
 *
 * @param jitterUs        RFC 3550 jitter (µs) of the current key generation
 * @param owdTrend        OWD trend (least-squares slope of the last 32 samples ×1000)
 * @param burstLossCount  loss bursts since the flow began
 * @param burstLostFrames frames missing in them
 * @param reorderCount    reordered frames (current generation)
 * @param ecnCeCount      CE-marked frames since the flow began
 */
public record ReceiverFigures(long jitterUs, int owdTrend, long burstLossCount, long burstLostFrames,
                              long reorderCount, long ecnCeCount) {
    /**
     * @param r      the receiver, or null
     * @param frames frames it has seen; jitter and trend need two, so with fewer nothing is measured yet
     * @return its figures, or null when nothing is measured
     */
    public static ReceiverFigures of(final MmpReceiver r, final long frames) {
        if (r == null || frames < 2) {
            return null;
        }
        return new ReceiverFigures(r.jitterMicros(), r.owdTrend(), r.burstLossCount(), r.burstLostFrames(),
                r.reorderCount(), r.ceCountTotal());
    }

    /** Writes the figures; all null for {@code f == null}. */
    public static void putJson(final ObjectNode o, final ReceiverFigures f) {
        if (f == null) {
            for (final String k : new String[] {"jitter_us", "owd_trend", "burst_loss_count", "burst_lost_frames",
                "reorder_count", "ecn_ce_count"}) {
                o.putNull(k);
            }
            return;
        }
        o.put("jitter_us", f.jitterUs);
        o.put("owd_trend", f.owdTrend);
        o.put("burst_loss_count", f.burstLossCount);
        o.put("burst_lost_frames", f.burstLostFrames);
        o.put("reorder_count", f.reorderCount);
        o.put("ecn_ce_count", f.ecnCeCount);
    }
}
