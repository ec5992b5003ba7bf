package net.fips.control.tree;

import java.util.List;
import java.util.Map;

import net.fips.dataplane.wire.NodeAddr;

/**
 * An immutable view of the tree for {@code show_tree} (operator.md §2.3): everything but display names and the root's
 * npub, which the caller resolves.
 *
 * @param myNodeAddr          this node
 * @param root                our root
 * @param isRoot              true when we are the root
 * @param depth               our depth (0 at the root)
 * @param myCoords            our coordinate, self first, root last
 * @param parent              our coordinate's parent entry ({@code my_coords[1]}, ourselves when root)
 * @param declarationSequence our declaration's sequence (unsigned u64)
 * @param declarationTimestamp our declaration's Unix-seconds timestamp
 * @param declarationSigned   true when the declaration carries a signature
 * @param peerTreeCount       peers with an accepted declaration ({@code peer_tree_count})
 * @param peers               every active peer, in insertion order
 * @param stats               counters keyed by their JSON names, in the reference's order
 */
public record TreeSnapshot(NodeAddr myNodeAddr, NodeAddr root, boolean isRoot, int depth, List<NodeAddr> myCoords,
        NodeAddr parent, long declarationSequence, long declarationTimestamp, boolean declarationSigned,
        int peerTreeCount, List<Peer> peers, Map<String, Long> stats) {

    /**
     * One peer's tree view. The reference's {@code show_tree.peers[]} lists only peers with {@code hasPosition};
     * {@code depth}, {@code root}, {@code coords} and {@code distanceToUs} are meaningful only then.
     *
     * @param nodeAddr     the peer
     * @param hasPosition  true when it has an accepted declaration
     * @param depth        its depth, or -1
     * @param root         its root, or null
     * @param coords       its coordinate (self first), or empty
     * @param distanceToUs tree distance from us, {@link TreeCoordinates#UNREACHABLE} for another root, or -1
     * @param isParent     it is our parent
     * @param isChild      its declaration names us as parent
     * @param hasCost      it has an MMP RTT sample (and so a link cost)
     * @param cost         its link cost, NaN without a sample
     * @param sequence     its accepted declaration sequence (0 without a position)
     */
    public record Peer(NodeAddr nodeAddr, boolean hasPosition, int depth, NodeAddr root, List<NodeAddr> coords,
            int distanceToUs, boolean isParent, boolean isChild, boolean hasCost, double cost, long sequence) {
    }
}
