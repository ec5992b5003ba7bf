package net.fips.control.bloom;

import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What {@link BloomRouting} asks of its surroundings (called on the control thread, from {@link BloomRouting#tick}).
 */
@FunctionalInterface
public interface BloomEffects {
    /**
     * Sends a FilterAnnounce to a direct peer.
     *
     * @param peer     the peer
     * @param announce the announce (its sequence is already consumed)
     * @return false when the send failed (counted; the peer stays pending)
     */
    boolean sendFilterAnnounce(NodeAddr peer, FilterAnnounce announce);
}
