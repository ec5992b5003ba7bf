package net.fips.control.bloom;

import java.util.List;
import java.util.Map;

import net.fips.dataplane.wire.NodeAddr;

/**
 * An immutable view for {@code show_bloom} (operator.md §2.3); display names are the caller's.
 *
 * @param ownNodeAddr          this node
 * @param isLeafOnly           {@code node.leaf_only}
 * @param sequence             the node-wide FilterAnnounce sequence (last one built)
 * @param leafDependents       leaf-only nodes we speak for (none in v0.4.1)
 * @param peerFilters          one entry per active peer
 * @param uptreeFillRatio      fill of the last filter sent to our parent; null when root or nothing sent yet
 * @param uptreeEstimatedCount its estimated count; null likewise or when over the cap
 * @param stats                counters keyed by their JSON names
 */
public record BloomSnapshot(NodeAddr ownNodeAddr, boolean isLeafOnly, long sequence, List<NodeAddr> leafDependents,
        List<PeerFilter> peerFilters, Double uptreeFillRatio, Double uptreeEstimatedCount, Map<String, Long> stats) {

    /**
     * One peer's inbound filter.
     *
     * @param peer           the peer
     * @param hasFilter      true once a filter was accepted
     * @param filterSequence its last accepted sequence (0 before any)
     * @param estimatedCount estimated entries, null without a filter or over the cap
     * @param setBits        set bits, null without a filter
     * @param fillRatio      fill ratio, null without a filter
     */
    public record PeerFilter(NodeAddr peer, boolean hasFilter, long filterSequence, Double estimatedCount,
            Integer setBits, Double fillRatio) {
    }
}
