package net.fips.control.discovery;

import java.util.List;

/**
 * An immutable view of one {@link Discovery} for the control socket's {@code show_routing}: built on the control
 * thread with {@link Discovery#snapshot()}, safe to publish to reader threads.
 *
 * @param stats          the counters in the reference's shape
 * @param pendingLookups lookups in progress, oldest first
 * @param recentRequests request_ids remembered for dedup and the reverse path
 */
public record DiscoverySnapshot(DiscoveryStats stats, List<Discovery.PendingLookup> pendingLookups,
        int recentRequests) {
    /** Freezes the list. */
    public DiscoverySnapshot {
        pendingLookups = List.copyOf(pendingLookups);
    }
}
