package net.fips.control.discovery;

import java.util.List;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The node as discovery sees it: our address and coordinate, the current peers with their tree role, inbound
 * filter and link MTU, and a way to send a link message to a peer. Implemented by the node (over the spanning
 * tree, bloom state and link conductor) and by tests. Called only from the control thread.
 */
public interface MeshView {
    /** @return our node_addr */
    NodeAddr self();

    /** @return our current tree coordinate, self first, root last (at least our own address) */
    Coords selfCoords();

    /** @return the active peers now (the list is only read during the call) */
    List<DiscoveryPeer> peers();

    /**
     * Sends a link message (starting with its msg_type byte) to a direct peer over the encrypted link. A peer
     * that is not (or no longer) connected is silently skipped.
     *
     * @param peer the peer's node_addr
     * @param msg  the encoded message; discovery does not touch it afterwards
     */
    void sendLinkMessage(NodeAddr peer, byte[] msg);

    /**
     * @param peer a node_addr
     * @return true when {@code peer} is a connected peer now (one of {@link #peers()})
     */
    default boolean isPeer(final NodeAddr peer) {
        for (final DiscoveryPeer p : peers()) {
            if (p.addr().equals(peer)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param peer a node_addr
     * @return the MTU of the link toward {@code peer}, or 0 when it is not a connected peer or the MTU is unknown
     */
    default int linkMtu(final NodeAddr peer) {
        for (final DiscoveryPeer p : peers()) {
            if (p.addr().equals(peer)) {
                return p.linkMtu();
            }
        }
        return 0;
    }
}
