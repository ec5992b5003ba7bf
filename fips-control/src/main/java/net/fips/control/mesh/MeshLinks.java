package net.fips.control.mesh;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The link layer as the routing layers see it: send one link message to a direct peer. The daemon implements it
 * over {@link net.fips.control.link.LinkConductor#send}; the simulator over its in-memory links.
 */
@FunctionalInterface
public interface MeshLinks {
    /**
     * @param peer    a direct peer
     * @param message the link message, msg_type first (the callee may keep the array)
     * @return false when the peer is not (or no longer) linked
     */
    boolean send(NodeAddr peer, byte[] message);
}
