package net.fips.control.metrics;

/**
 * The node-level inputs of one history sample, read by the control thread from the node's live sources. Gauges
 * are doubles where NaN means "not measured"; totals are monotonic counters since start where
 * {@link #UNMEASURED} means "not measured". A not-measured input becomes a gap ({@code null}), never a zero.
 *
 * @param meshSize         estimated mesh size, or NaN without an estimate
 * @param treeDepth        our depth in the spanning tree, or NaN
 * @param peerCount        authenticated peers, or NaN
 * @param parentSwitches   parent switches since start, or {@link #UNMEASURED}
 * @param bytesIn          bytes received since start, or {@link #UNMEASURED}
 * @param bytesOut         bytes sent since start, or {@link #UNMEASURED}
 * @param packetsIn        packets received since start, or {@link #UNMEASURED}
 * @param packetsOut       packets sent since start, or {@link #UNMEASURED}
 * @param lossRate         aggregate loss rate, or NaN
 * @param activeSessions   established sessions, or NaN
 */
public record NodeSample(double meshSize, double treeDepth, double peerCount, long parentSwitches, long bytesIn,
                         long bytesOut, long packetsIn, long packetsOut, double lossRate, double activeSessions) {

    /** A total that is not measured. */
    public static final long UNMEASURED = -1;

    /** A sample where nothing is measured. */
    public static final NodeSample NOTHING = new NodeSample(Double.NaN, Double.NaN, Double.NaN, UNMEASURED,
            UNMEASURED, UNMEASURED, UNMEASURED, UNMEASURED, Double.NaN, Double.NaN);

    double gauge(final NodeMetric m) {
        return switch (m) {
            case MESH_SIZE -> meshSize;
            case TREE_DEPTH -> treeDepth;
            case PEER_COUNT -> peerCount;
            case LOSS_RATE -> lossRate;
            case ACTIVE_SESSIONS -> activeSessions;
            default -> throw new IllegalArgumentException(m + " is a counter");
        };
    }

    long total(final NodeMetric m) {
        return switch (m) {
            case PARENT_SWITCHES -> parentSwitches;
            case BYTES_IN -> bytesIn;
            case BYTES_OUT -> bytesOut;
            case PACKETS_IN -> packetsIn;
            case PACKETS_OUT -> packetsOut;
            default -> throw new IllegalArgumentException(m + " is a gauge");
        };
    }
}
