package net.fips.control.metrics;

import java.util.Objects;

/**
 * One peer's inputs of one history sample. A peer missing from a sample is absent for that second (every series
 * gets a gap). Totals belong to the peer's current link: a total that goes down (a new link) gives one gap, not a
 * negative rate.
 *
 * @param nodeAddr   the peer's node_addr, 32 hex digits (the key)
 * @param npub       its npub
 * @param srttMs     MMP smoothed RTT in ms, or NaN before the first measurement
 * @param lossRate   MMP loss rate, or NaN while not measured
 * @param bytesIn    link bytes received, or {@link NodeSample#UNMEASURED}
 * @param bytesOut   link bytes sent, or {@link NodeSample#UNMEASURED}
 * @param packetsIn  link frames received, or {@link NodeSample#UNMEASURED}
 * @param packetsOut link frames sent, or {@link NodeSample#UNMEASURED}
 * @param ecnCe      CE marks received, or {@link NodeSample#UNMEASURED}
 */
public record PeerSample(String nodeAddr, String npub, double srttMs, double lossRate, long bytesIn, long bytesOut,
                         long packetsIn, long packetsOut, long ecnCe) {

    /** Checks the key. */
    public PeerSample {
        Objects.requireNonNull(nodeAddr, "nodeAddr");
        Objects.requireNonNull(npub, "npub");
    }

    double gauge(final PeerMetric m) {
        return switch (m) {
            case SRTT_MS -> srttMs;
            case LOSS_RATE -> lossRate;
            default -> throw new IllegalArgumentException(m + " is a counter");
        };
    }

    long total(final PeerMetric m) {
        return switch (m) {
            case BYTES_IN -> bytesIn;
            case BYTES_OUT -> bytesOut;
            case PACKETS_IN -> packetsIn;
            case PACKETS_OUT -> packetsOut;
            case ECN_CE -> ecnCe;
            default -> throw new IllegalArgumentException(m + " is a gauge");
        };
    }
}
