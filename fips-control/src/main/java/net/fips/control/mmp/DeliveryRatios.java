package net.fips.control.mmp;

/**
 * Delivery ratios and ETX of one MMP instance, link or session (routing-session.md §6.3): forward delivery from
 * consecutive ReceiverReports about our traffic ({@code Δcumulative_packets_recv / Δhighest_counter}), reverse
 * delivery from our own receiver state sampled at each report, ETX = clamp(1/(df·dr), 1, 100). After the first
 * report, one whose cumulative packets went backwards or that repeats the previous one exactly is stale and ignored
 * (§6.3). A highest counter that goes backwards (a rekey restarts it) only re-bases the next interval. Goodput
 * (§6.3): the bytes the peer reports received from us between two accepted reports over the time between their
 * arrivals on our clock, smoothed with α = 1/4 (the first measurement, or one after a smoothed 0, seeds it). Single
 * thread.
 */
public final class DeliveryRatios {
    private boolean havePeer;
    private long peerHighest;
    private long peerPackets;
    private long peerBytes;
    private long ourPackets = -1;
    private long ourHighest = -1;
    private Double forward;
    private Double reverse;
    private long reportNanos;
    private boolean haveReportTime;
    private Double goodput;

    /**
     * One ReceiverReport about our traffic.
     *
     * @param peerHighestCounter   the report's highest_counter (of our frames)
     * @param peerPacketsReceived  the report's cumulative_packets_recv
     * @param peerBytesReceived    the report's cumulative_bytes_recv
     * @param ourPacketsReceived   our cumulative frames received from the peer now, or -1 when unknown (the reverse
     *                             ratio then keeps its baseline)
     * @param ourHighestCounter    the highest counter of the peer's frames we accepted, now (-1 before one)
     * @return false when the report was stale and ignored
     */
    public boolean onReport(final long peerHighestCounter, final long peerPacketsReceived,
                            final long peerBytesReceived, final long ourPacketsReceived, final long ourHighestCounter) {
        return onReport(peerHighestCounter, peerPacketsReceived, peerBytesReceived, ourPacketsReceived,
                ourHighestCounter, false, 0);
    }

    /**
     * One ReceiverReport about our traffic, arrived at {@code nowNanos}: as
     * {@link #onReport(long, long, long, long, long)}, and goodput from the time since the previous accepted report.
     *
     * @param peerHighestCounter   the report's highest_counter (of our frames)
     * @param peerPacketsReceived  the report's cumulative_packets_recv
     * @param peerBytesReceived    the report's cumulative_bytes_recv
     * @param ourPacketsReceived   our cumulative frames received from the peer now, or -1 when unknown
     * @param ourHighestCounter    the highest counter of the peer's frames we accepted, now (-1 before one)
     * @param nowNanos             when the report arrived, on the caller's monotonic clock
     * @return false when the report was stale and ignored
     */
    public boolean onReport(final long peerHighestCounter, final long peerPacketsReceived,
                            final long peerBytesReceived, final long ourPacketsReceived, final long ourHighestCounter,
                            final long nowNanos) {
        return onReport(peerHighestCounter, peerPacketsReceived, peerBytesReceived, ourPacketsReceived,
                ourHighestCounter, true, nowNanos);
    }

    private boolean onReport(final long peerHighestCounter, final long peerPacketsReceived,
                             final long peerBytesReceived, final long ourPacketsReceived,
                             final long ourHighestCounter, final boolean timed, final long nowNanos) {
        if (havePeer && (peerPacketsReceived < peerPackets || peerPacketsReceived == peerPackets
                && peerHighestCounter == peerHighest && peerBytesReceived == peerBytes)) {
            return false;
        }
        if (havePeer && timed && haveReportTime && nowNanos > reportNanos) {
            final double bps = Math.max(0, peerBytesReceived - peerBytes) * 1e9 / (nowNanos - reportNanos);
            goodput = goodput == null || goodput == 0.0 ? bps : goodput + (bps - goodput) * 0.25;
        }
        haveReportTime = timed;
        reportNanos = nowNanos;
        if (havePeer) {
            final long dHighest = peerHighestCounter - peerHighest;
            if (dHighest > 0) {
                forward = clamp01((double) (peerPacketsReceived - peerPackets) / dHighest);
            }
        }
        havePeer = true;
        peerHighest = peerHighestCounter;
        peerPackets = peerPacketsReceived;
        peerBytes = peerBytesReceived;
        if (ourPacketsReceived < 0) {
            return true;
        }
        if (ourPackets >= 0 && ourHighest >= 0 && ourHighestCounter > ourHighest) {
            reverse = clamp01((double) (ourPacketsReceived - ourPackets) / (ourHighestCounter - ourHighest));
        }
        ourPackets = ourPacketsReceived;
        ourHighest = ourHighestCounter;
        return true;
    }

    private static double clamp01(final double v) {
        return Math.max(0.0, Math.min(1.0, v));
    }

    /** @return forward delivery ratio, or null before two reports */
    public Double forward() {
        return forward;
    }

    /** @return reverse delivery ratio, or null before two samples of our own receiver */
    public Double reverse() {
        return reverse;
    }

    /**
     * @return smoothed goodput in bytes per second (what the peer received from us), or null before two timed
     *         reports
     */
    public Double goodputBps() {
        return goodput;
    }

    /** @return 1 − forward delivery, or null */
    public Double lossRate() {
        return forward == null ? null : 1.0 - forward;
    }

    /** @return ETX = clamp(1/(df·dr), 1, 100), or null until both ratios are measured */
    public Double etx() {
        if (forward == null || reverse == null) {
            return null;
        }
        final double p = forward * reverse;
        return p <= 0 ? 100.0 : Math.max(1.0, Math.min(100.0, 1.0 / p));
    }
}
