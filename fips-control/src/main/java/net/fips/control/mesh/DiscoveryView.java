package net.fips.control.mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import net.fips.control.bloom.BloomRouting;
import net.fips.control.discovery.DiscoveryPeer;
import net.fips.control.discovery.MeshView;
import net.fips.control.tree.SpanningTree;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/** What discovery sees of {@link MeshControl}: our address and coordinate, the usable peers, the link sends. */
final class DiscoveryView implements MeshView {
    private final NodeAddr self;
    private final SpanningTree tree;
    private final BloomRouting bloom;
    private final Map<NodeAddr, MeshPeer> peers;
    private final MeshLinks links;

    /** @param peers MeshControl's live peer map (read, never changed here) */
    DiscoveryView(final NodeAddr self, final SpanningTree tree, final BloomRouting bloom,
                  final Map<NodeAddr, MeshPeer> peers, final MeshLinks links) {
        this.self = self;
        this.tree = tree;
        this.bloom = bloom;
        this.peers = peers;
        this.links = links;
    }

    @Override
    public NodeAddr self() {
        return self;
    }

    @Override
    public Coords selfCoords() {
        return new Coords(tree.coordAddrs());
    }

    @Override
    public List<DiscoveryPeer> peers() {
        final List<DiscoveryPeer> out = new ArrayList<>(peers.size());
        for (final MeshPeer p : peers.values()) {
            if (p.suspect) {
                // fast failover: lookups avoid a suspect link as packets do
                continue;
            }
            final NodeAddr a = p.identity.nodeAddr();
            out.add(new DiscoveryPeer(a, tree.isTreePeer(a), bloom.inboundFilter(a), p.linkMtu));
        }
        return out;
    }

    @Override
    public void sendLinkMessage(final NodeAddr peer, final byte[] msg) {
        links.send(peer, msg);
    }
}
