package net.fips.control.metrics;

import java.util.Optional;

/**
 * The node-scope series of the stats history, in the reference's order, names and units ({@code show_stats_list}).
 * Counter metrics are sampled as the increase of a monotonic total per second; the others are gauges read as they
 * are.
 */
public enum NodeMetric {
    /** Estimated mesh size (bloom filter estimate). */
    MESH_SIZE("mesh_size", "nodes", Aggregation.LAST, false),
    /** Our depth in the spanning tree. */
    TREE_DEPTH("tree_depth", "hops", Aggregation.LAST, false),
    /** Authenticated peers. */
    PEER_COUNT("peer_count", "peers", Aggregation.LAST, false),
    /** Parent switches per second. */
    PARENT_SWITCHES("parent_switches", "events/s", Aggregation.SUM, true),
    /** Bytes received per second. */
    BYTES_IN("bytes_in", "bytes/s", Aggregation.MEAN, true),
    /** Bytes sent per second. */
    BYTES_OUT("bytes_out", "bytes/s", Aggregation.MEAN, true),
    /** Packets received per second. */
    PACKETS_IN("packets_in", "packets/s", Aggregation.MEAN, true),
    /** Packets sent per second. */
    PACKETS_OUT("packets_out", "packets/s", Aggregation.MEAN, true),
    /** Aggregate link loss rate. */
    LOSS_RATE("loss_rate", "fraction", Aggregation.MEAN, false),
    /** Established end-to-end sessions. */
    ACTIVE_SESSIONS("active_sessions", "sessions", Aggregation.LAST, false);

    private final String wireName;
    private final String unit;
    private final Aggregation aggregation;
    private final boolean counter;

    NodeMetric(final String wireName, final String unit, final Aggregation aggregation, final boolean counter) {
        this.wireName = wireName;
        this.unit = unit;
        this.aggregation = aggregation;
        this.counter = counter;
    }

    /** @return the name on the wire ({@code mesh_size}, ...) */
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
     * @return the metric, or empty when no node metric has that name
     */
    public static Optional<NodeMetric> byName(final String name) {
        for (final NodeMetric m : values()) {
            if (m.wireName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
