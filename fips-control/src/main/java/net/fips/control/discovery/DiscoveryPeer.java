package net.fips.control.discovery;

import java.util.Objects;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What discovery needs to know about one active peer.
 *
 * @param addr           the peer's node_addr
 * @param treePeer       true when the peer is our tree parent or one of our tree children
 * @param inboundFilter  the bloom filter the peer last announced to us, or null when none yet
 * @param linkMtu        MTU of the link toward the peer in bytes, or 0 when unknown (then no path_mtu fold)
 */
public record DiscoveryPeer(NodeAddr addr, boolean treePeer, BloomFilter inboundFilter, int linkMtu) {
    /** Checks the address. */
    public DiscoveryPeer {
        Objects.requireNonNull(addr, "addr");
    }

    /** @param target a node_addr @return true when this peer's filter claims to reach {@code target} */
    public boolean mayReach(final NodeAddr target) {
        return inboundFilter != null && inboundFilter.contains(target);
    }
}
