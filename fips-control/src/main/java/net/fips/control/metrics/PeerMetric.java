package net.fips.control.metrics;

import java.util.Optional;

/**
 * The per-peer series of the stats history, in the reference's order, names and units. The names overlap with
 * {@link NodeMetric}: a query is per peer exactly when it names a peer.
 */
public enum PeerMetric {
    /** MMP smoothed round-trip time. */
    SRTT_MS("srtt_ms", "ms", Aggregation.MEAN, false),
    /** MMP loss rate. */
    LOSS_RATE("loss_rate", "fraction", Aggregation.MEAN, false),
    /** Link bytes received per second. */
    BYTES_IN("bytes_in", "bytes/s", Aggregation.MEAN, true),
    /** Link bytes sent per second. */
    BYTES_OUT("bytes_out", "bytes/s", Aggregation.MEAN, true),
    /** Link frames received per second. */
    PACKETS_IN("packets_in", "packets/s", Aggregation.MEAN, true),
    /** Link frames sent per second. */
    PACKETS_OUT("packets_out", "packets/s", Aggregation.MEAN, true),
    /** ECN congestion-experienced marks received per second. */
    ECN_CE("ecn_ce", "events/s", Aggregation.SUM, true);

    private final String wireName;
    private final String unit;
    private final Aggregation aggregation;
    private final boolean counter;

    PeerMetric(final String wireName, final String unit, final Aggregation aggregation, final boolean counter) {
        this.wireName = wireName;
        this.unit = unit;
        this.aggregation = aggregation;
        this.counter = counter;
    }

    /** @return the name on the wire */
    public String wireName() {
        return wireName;
    }

    /** @return the unit {@code show_stats_list} reports */
    public String unit() {
        return unit;
    }

    /** @return how 1 s samples fold into 1 min samples */
    public Aggregation aggregation() {
        return aggregation;
    }

    /** @return whether samples are per-second increases of a monotonic total */
    public boolean isCounter() {
        return counter;
    }

    /**
     * @param name a wire name
     * @return the metric, or empty when no peer metric has that name
     */
    public static Optional<PeerMetric> byName(final String name) {
        for (final PeerMetric m : values()) {
            if (m.wireName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
