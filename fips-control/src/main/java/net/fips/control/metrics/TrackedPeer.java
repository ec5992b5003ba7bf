package net.fips.control.metrics;

/**
 * A peer the stats history keeps series for (present now, or absent for less than the retention time).
 *
 * @param nodeAddr         node_addr hex
 * @param npub             npub
 * @param active           whether it was present in the latest sample
 * @param firstSeenNanos   control clock of its first sample
 * @param lastContactNanos control clock of its latest sample present
 */
public record TrackedPeer(String nodeAddr, String npub, boolean active, long firstSeenNanos, long lastContactNanos) {
}
