package net.fips.control.mesh;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the routing layers publish for the control socket, rendered on the control thread and never modified
 * afterwards (so any thread may read it once it is published through a volatile field).
 *
 * @param tree          {@code show_tree} data
 * @param bloom         {@code show_bloom} data
 * @param cache         {@code show_cache} data
 * @param routing       the routing layers' part of {@code show_routing} (the node adds forwarding, congestion and
 *                      retries)
 * @param root          our root, hex
 * @param isRoot        whether we are the root
 * @param depth         our depth
 * @param meshSize      estimated mesh size, or null when no estimate is possible
 * @param peers         per-peer tree and filter facts for {@code show_peers}, by node_addr hex
 * @param parentSwitches parent switches so far
 * @param identityCache {@code show_identity_cache} data
 */
public record MeshSnapshot(JsonNode tree, JsonNode bloom, JsonNode cache, JsonNode routing, String root,
                           boolean isRoot, int depth, Long meshSize, Map<String, PeerRouting> peers,
                           long parentSwitches, JsonNode identityCache) {

    /**
     * One peer's routing facts.
     *
     * @param hasTreePosition whether it has an accepted TreeAnnounce
     * @param treeDepth       its depth, or null
     * @param isParent        it is our parent
     * @param isChild         it declared us as parent
     * @param hasFilter       a FilterAnnounce was accepted from it
     * @param filterSequence  its last accepted filter sequence (0 before any)
     * @param effectiveDepth  its depth plus link cost, or null without a position or an RTT sample
     */
    public record PeerRouting(boolean hasTreePosition, Integer treeDepth, boolean isParent, boolean isChild,
                              boolean hasFilter, long filterSequence, Double effectiveDepth) {
    }
}
