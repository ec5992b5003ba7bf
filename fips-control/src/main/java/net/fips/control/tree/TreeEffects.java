package net.fips.control.tree;

import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * What {@link SpanningTree} asks of its surroundings. Called synchronously on the control thread from inside the
 * tree's methods; implementations must not call back into the tree.
 */
public interface TreeEffects {
    /**
     * Sends our TreeAnnounce to a direct peer (the limiter has already been applied).
     *
     * @param peer     the peer
     * @param announce our current signed announce
     * @return false when the send failed (counted as {@code send_failed}; the limiter is not advanced)
     */
    boolean sendTreeAnnounce(NodeAddr peer, TreeAnnounce announce);

    /** Our tree position changed structurally (parent change, became root): every peer needs a FilterAnnounce. */
    default void markAllPeersForFilterUpdate() {
    }

    /**
     * Our path changed without a parent change: mark for a FilterAnnounce only the peers whose computed outgoing
     * filter differs from what was last sent, skipping {@code exclude} (routing-session §2.4).
     *
     * @param exclude the peer (our parent) that triggered it
     */
    default void markChangedFiltersOnly(final NodeAddr exclude) {
    }

    /**
     * Coordinate cache: drop entries whose path runs through {@code node} (our own address).
     *
     * @param node this node
     */
    default void invalidateViaNode(final NodeAddr node) {
    }

    /**
     * Coordinate cache: drop entries rooted anywhere but {@code root}.
     *
     * @param root our root now
     */
    default void invalidateOtherRoots(final NodeAddr root) {
    }

    /** Our coordinate changed: discovery back-off (if any) should reset. */
    default void resetDiscoveryBackoff() {
    }

    /**
     * Our parent or root changed (after the new declaration is signed). For logging, metrics and snapshots.
     *
     * @param oldParent previous parent (ourselves when we were root)
     * @param newParent new parent (ourselves when we are root now)
     * @param oldRoot   previous root
     * @param newRoot   new root
     */
    default void onPositionChanged(final NodeAddr oldParent, final NodeAddr newParent, final NodeAddr oldRoot,
            final NodeAddr newRoot) {
    }
}
