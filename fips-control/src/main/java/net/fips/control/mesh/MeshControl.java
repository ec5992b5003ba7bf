package net.fips.control.mesh;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

import net.fips.control.bloom.BloomRouting;
import net.fips.control.discovery.Discovery;
import net.fips.control.discovery.DiscoveryListener;
import net.fips.control.discovery.MeshView;
import net.fips.control.discovery.PathMtuClamp;
import net.fips.control.discovery.ProofSigner;
import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkListener;
import net.fips.control.tree.SchnorrTreeCrypto;
import net.fips.control.tree.SignatureVerifier;
import net.fips.control.tree.SpanningTree;
import net.fips.control.tree.TreeAnnounceOutcome;
import net.fips.control.tree.TreeCoordinates;
import net.fips.control.tree.TreeEffects;
import net.fips.control.tree.WallClock;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * The routing layers of one node, assembled: the {@link SpanningTree}, the {@link BloomRouting} filters, the
 * {@link Discovery} lookups, the {@link IdentityCache} and the {@link CoordCache}, joined to each other and to the
 * link layer (a {@link LinkListener}: peers come and go, link messages and RTT samples arrive, the tick runs) and
 * to the data plane (a {@link ForwardingTable} published on change; coordinate warming and routing failures come
 * back as {@link DataPlaneEvent.RoutingEvent}s, answered with error signals).
 *
 * <p>Single-threaded, owned by the control thread (or by a simulator); time comes only from the arguments and the
 * injected {@link WallClock}, randomness only from the injected {@link Random}. Each owner class keeps its own
 * rules; this class only routes calls between them and decides when the data plane needs a new table.
 */
public final class MeshControl implements LinkListener {
    private static final System.Logger LOG = System.getLogger(MeshControl.class.getName());

    /** Publishes a forwarding table to the data plane (the daemon: {@code DataPlane::setForwardingTable}). */
    @FunctionalInterface
    public interface TablePublisher {
        /** A publisher that drops every table (simulations that route through {@link #nextHop}). */
        TablePublisher NONE = t -> { };

        /** @param table the new table */
        void publish(ForwardingTable table);
    }

    private final NodeIdentity identity;
    private final NodeAddr self;
    private final MeshSettings settings;
    private final MeshLinks links;
    private final TablePublisher publisher;
    private final IntUnaryOperator transportMtu;
    private final Map<NodeAddr, MeshPeer> peers = new LinkedHashMap<>();
    private final SpanningTree tree;
    private final BloomRouting bloom;
    private final CoordCache cache;
    private final IdentityCache identities;
    private final Discovery discovery;
    private final NextHop router = new NextHop();
    private final ErrorSignals errors;
    private DiscoveryListener sessionHook = DiscoveryListener.NONE;
    private ForwardingTable table;
    private boolean dirty = true;
    private long now;

    /**
     * @param identity     this node
     * @param settings     routing settings
     * @param links        sends link messages to peers
     * @param publisher    where new forwarding tables go
     * @param random       randomness for signature aux, request ids
     * @param wall         wall clock (declaration timestamps, sequence seeds)
     * @param verifier     checks TreeAnnounce signatures and lookup proofs (FIPS rule)
     * @param transportMtu link MTU of each transport id (the path_mtu folded into forwarded datagrams)
     * @param nowNanos     the control clock now
     */
    public MeshControl(final NodeIdentity identity, final MeshSettings settings, final MeshLinks links,
                       final TablePublisher publisher, final Random random, final WallClock wall,
                       final SignatureVerifier verifier, final IntUnaryOperator transportMtu,
                       final long nowNanos) {
        this.identity = Objects.requireNonNull(identity, "identity");
        this.self = identity.nodeAddr();
        this.settings = Objects.requireNonNull(settings, "settings");
        this.links = Objects.requireNonNull(links, "links");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.transportMtu = Objects.requireNonNull(transportMtu, "transportMtu");
        this.now = nowNanos;
        this.cache = new CoordCache(settings.coordCacheSize(), settings.coordCacheTtlSecs() * 1_000_000_000L);
        this.identities = new IdentityCache(settings.identityCacheSize());
        this.errors = new ErrorSignals(self, settings.defaultTtl(), links, router, cache, this::table, linkId -> {
            for (final MeshPeer p : peers.values()) {
                if (p.linkId == linkId) {
                    return p.identity.nodeAddr();
                }
            }
            return null;
        });
        final TreeEffects treeEffects = new TreeEffects() {
            @Override
            public boolean sendTreeAnnounce(final NodeAddr peer, final TreeAnnounce announce) {
                return links.send(peer, announce.encode());
            }

            @Override
            public void markAllPeersForFilterUpdate() {
                // Null only while the tree is being built (it signs its first declaration, nothing more).
                if (bloom() != null) {
                    bloom().markAllUpdatesNeeded();
                }
            }

            @Override
            public void markChangedFiltersOnly(final NodeAddr exclude) {
                if (bloom() != null) {
                    bloom().markChangedPeers(exclude);
                }
            }

            @Override
            public void invalidateViaNode(final NodeAddr node) {
                if (cache.invalidateVia(node) > 0) {
                    dirty = true;
                }
            }

            @Override
            public void invalidateOtherRoots(final NodeAddr root) {
                if (cache.invalidateOtherRoots(root) > 0) {
                    dirty = true;
                }
            }

            @Override
            public void resetDiscoveryBackoff() {
                if (discovery() != null) {
                    discovery().resetBackoff();
                }
            }

            @Override
            public void onPositionChanged(final NodeAddr oldParent, final NodeAddr newParent, final NodeAddr oldRoot,
                                          final NodeAddr newRoot) {
                dirty = true;
            }
        };
        this.tree = new SpanningTree(self, settings.tree(), SchnorrTreeCrypto.signer(identity, random), verifier,
                wall, treeEffects);
        this.bloom = new BloomRouting(self, settings.bloom(), tree::isTreePeer, tree::parentOrNull,
                (peer, fa) -> links.send(peer, fa.encode()), wall.unixMillis(), settings.leafOnly());
        final MeshView view = new DiscoveryView(self, tree, bloom, peers, links);
        this.discovery = new Discovery(settings.discovery(), view, identities, (target, coords, mtu, at) -> {
            cache.insert(target, coords, mtu, at);
            dirty = true;
        }, PathMtuClamp.NONE, new DiscoveryListener() {
            @Override
            public void onRouteFound(final NodeAddr target, final Coords coords, final int pathMtu, final long at) {
                sessionHook.onRouteFound(target, coords, pathMtu, at);
            }

            @Override
            public void onUnreachable(final NodeAddr target, final long at) {
                sessionHook.onUnreachable(target, at);
            }
        }, ProofSigner.of(identity), verifier::verify, random);
    }

    private BloomRouting bloom() {
        return bloom;
    }

    private Discovery discovery() {
        return discovery;
    }

    /** @param hook hears of discovered routes and unreachable verdicts (the session layer) */
    public void setDiscoveryListener(final DiscoveryListener hook) {
        this.sessionHook = hook == null ? DiscoveryListener.NONE : hook;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Link layer

    @Override
    public void onPeerUp(final PeerIdentity peer, final long linkId, final int transportId, final long nowNanos) {
        advance(nowNanos);
        final NodeAddr a = peer.nodeAddr();
        MeshPeer p = peers.get(a);
        if (p == null) {
            p = new MeshPeer(peer);
            peers.put(a, p);
        }
        p.linkId = linkId;
        p.transportId = transportId;
        p.heard = false;
        if (p.suspect) {
            // a newly promoted link (a cross-connection's winner, say) is fresh evidence: trusted again
            p.suspect = false;
            tree.setSuspect(a, false, now);
        }
        p.linkMtu = Math.max(1, transportMtu.applyAsInt(transportId));
        identities.register(peer, now);
        // A promotion (new, reconnected or cross-connection winner) sends our TreeAnnounce at once and queues our
        // filter for the next tick; a topology change clears any lookup back-off.
        tree.addPeer(a, peer.publicKey(), now);
        bloom.addPeer(a);
        discovery.resetBackoff();
        dirty = true;
    }

    @Override
    public void onPeerDown(final PeerIdentity peer, final long nowNanos) {
        advance(nowNanos);
        final NodeAddr a = peer.nodeAddr();
        if (peers.remove(a) == null) {
            return;
        }
        // The reference clears lookup back-off on promotion and tree changes, not on removal.
        tree.removePeer(a, now);
        bloom.removePeer(a);
        dirty = true;
    }

    /**
     * Fast failover (ADR 0024): a suspect link leaves the forwarding table and stops being a parent candidate
     * (re-parenting at once when it was the parent), and cached coordinates through it are dropped; its tree and
     * filter state are kept, so it rejoins routing as it was once it answers again.
     */
    @Override
    public void onPeerSuspect(final PeerIdentity peer, final boolean suspect, final long nowNanos) {
        advance(nowNanos);
        final MeshPeer p = peers.get(peer.nodeAddr());
        if (p == null || p.suspect == suspect) {
            return;
        }
        p.suspect = suspect;
        tree.setSuspect(peer.nodeAddr(), suspect, now);
        if (suspect) {
            // Coordinates that lead through it are stale: forget them, so the next packet asks discovery for
            // fresh ones (tree distances to them would make every other peer look like no progress).
            cache.invalidateVia(peer.nodeAddr());
            discovery.resetBackoff();
        }
        dirty = true;
    }

    @Override
    public void onLinkMessage(final PeerIdentity peer, final byte[] message, final long nowNanos) {
        advance(nowNanos);
        final NodeAddr from = peer.nodeAddr();
        if (message.length == 0 || !peers.containsKey(from)) {
            return;
        }
        final LinkMessageType type = LinkMessageType.fromCode(message[0] & 0xFF);
        if (type == null) {
            return;
        }
        final MeshPeer ps = peers.get(from);
        if (!ps.heard) {
            ps.heard = true;
            // The first message proves the peer installed the link: send our TreeAnnounce and filter once more.
            // Deliberate difference from the reference: docs/adr/0009-resend-announces-on-first-link-message.md
            tree.addPeer(from, peer.publicKey(), now);
            bloom.markUpdateNeeded(from);
        }
        switch (type) {
            case TREE_ANNOUNCE -> {
                final boolean wasTreePeer = tree.isTreePeer(from);
                if (tree.onTreeAnnounce(from, message, now) == TreeAnnounceOutcome.ACCEPTED) {
                    dirty = true;
                    if (tree.isTreePeer(from) != wasTreePeer) {
                        // The peer became (or stopped being) our child: its filter joins (or leaves) what we send.
                        // Deliberate difference from the reference, see
                        // docs/adr/0008-bloom-remarking-on-tree-peer-change.md
                        bloom.markChangedPeers(from);
                        // and sent now rather than on the next tick (the debounce still applies; ADR 0024)
                        bloom.tick(now);
                    }
                }
            }
            case FILTER_ANNOUNCE -> {
                bloom.onFilterAnnounce(from, message, now);
                dirty = true;
                // A pending lookup may have gone only where it can no longer be answered (a suspect link).
                discovery.onPeerFilter(from, now);
            }
            case LOOKUP_REQUEST, LOOKUP_RESPONSE -> discovery.onLinkMessage(from, message, now);
            default -> {
            }
        }
    }

    @Override
    public void onRttSample(final PeerIdentity peer, final long srttMicros, final int samples, final long nowNanos) {
        advance(nowNanos);
        final MeshPeer p = peers.get(peer.nodeAddr());
        if (p == null) {
            return;
        }
        p.srttMicros = srttMicros;
        updateCost(p);
    }

    /** A measured ETX for the link to {@code peer} (routing-session §6.3): folded into its cost once SRTT exists. */
    @Override
    public void onEtx(final PeerIdentity peer, final double etx, final long nowNanos) {
        advance(nowNanos);
        final MeshPeer p = peers.get(peer.nodeAddr());
        if (p == null || !(etx >= 1.0) || etx == p.etx) {
            return;
        }
        p.etx = etx;
        if (p.srttMicros >= 0) {
            updateCost(p);
        }
    }

    /** Link cost = ETX × (1 + SRTT_ms / 100); ETX is 1.0 until the link's reports measured it. */
    private void updateCost(final MeshPeer p) {
        final double cost = TreeCoordinates.linkCost(p.etx, p.srttMicros / 1000.0);
        if (cost != p.cost) {
            p.cost = cost;
            dirty = true;
        }
        tree.onLinkCost(p.identity.nodeAddr(), cost, now);
    }

    @Override
    public int onRoutingTick(final long nowNanos) {
        advance(nowNanos);
        tree.tick(now);
        bloom.tick(now);
        return 0;
    }

    @Override
    public int onLookupTick(final long nowNanos) {
        advance(nowNanos);
        discovery.tick(now);
        return 0;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Data plane

    /**
     * A routing event from the transit path: coordinates to cache, or a routing failure to answer with an error
     * signal (routing-session §4.5) sent from us to the datagram's source.
     *
     * @param event    the event
     * @param nowNanos the control clock
     */
    public void onRoutingEvent(final DataPlaneEvent.RoutingEvent event, final long nowNanos) {
        advance(nowNanos);
        switch (event) {
            case DataPlaneEvent.CoordsObserved o -> {
                if (o.srcCoords() != null && !o.srcCoords().isEmpty()) {
                    warm(o.src(), o.srcCoords(), now);
                }
                if (o.destCoords() != null && !o.destCoords().isEmpty()) {
                    warm(o.dest(), o.destCoords(), now);
                }
            }
            case DataPlaneEvent.RoutingError e -> errors.routingError(e, now);
            case DataPlaneEvent.ForwardMtuExceeded e -> errors.mtuExceeded(e.src(), e.dest(), e.mtu(), now);
        }
    }

    /**
     * Routes a SessionDatagram this node originates (a session handshake message, routing-session §5.2): next hop
     * over the current table, then sent on that peer's link.
     *
     * @return false when there is no route or the link refused it
     */
    public boolean routeOriginated(final SessionDatagram datagram, final long nowNanos) {
        advance(nowNanos);
        final NextHop.Route r = router.route(table(), datagram.dest(), now);
        if (!r.found()) {
            return false;
        }
        return links.send(r.peer().addr(), datagram.encode());
    }

    /** Removes {@code addr} from the coordinate cache (PathBroken at the source, routing-session §5.5). */
    public void forgetCoords(final NodeAddr addr, final long nowNanos) {
        advance(nowNanos);
        if (cache.remove(addr)) {
            dirty = true;
        }
    }

    /**
     * Publishes a new forwarding table if anything it holds changed since the last one. The control loop calls it
     * after every pass.
     */
    public void flush() {
        if (dirty) {
            publisher.publish(table());
        }
    }

    /** @return the current forwarding table, rebuilt first if routing state changed */
    public ForwardingTable table() {
        if (dirty || table == null) {
            table = buildTable();
            dirty = false;
        }
        return table;
    }

    private ForwardingTable buildTable() {
        final ForwardingTable.Builder b = ForwardingTable.builder(self, new Coords(tree.coordAddrs()));
        final NodeAddr parent = tree.parentOrNull();
        for (final MeshPeer p : peers.values()) {
            if (p.suspect) {
                continue;
            }
            final NodeAddr a = p.identity.nodeAddr();
            final List<NodeAddr> pc = tree.peerCoords(a);
            final BloomFilter f = bloom.inboundFilter(a);
            final ForwardingTable.TreeRole role = a.equals(parent) ? ForwardingTable.TreeRole.PARENT
                    : tree.isTreePeer(a) ? ForwardingTable.TreeRole.CHILD : ForwardingTable.TreeRole.NONE;
            // Before its first RTT sample a peer's link cost is the reference's default, 1.0.
            final double cost = Double.isNaN(p.cost) ? 1.0 : p.cost;
            b.peer(new ForwardingTable.Peer(a, p.linkId, pc == null || pc.isEmpty() ? null : new Coords(pc),
                    f == null ? null : f.toBytes(), f == null ? 0 : f.hashCount(), cost, p.linkMtu, true, role));
        }
        b.cache(cache.view());
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Requests and reads (control thread)

    /**
     * Starts a lookup for {@code target} (when a packet has no route).
     *
     * @return what discovery did
     */
    public Discovery.LookupResult lookup(final NodeAddr target, final long nowNanos) {
        advance(nowNanos);
        return discovery.lookup(target, now);
    }

    /** Teaches the identity cache a node's key (DNS answers, hosts file, a simulator). */
    public void learnIdentity(final PeerIdentity peer, final long nowNanos) {
        advance(nowNanos);
        identities.register(peer, now);
    }

    /** Caches coordinates for {@code addr} (what SessionSetup/Ack/CP warming does at every hop). */
    public void warm(final NodeAddr addr, final Coords coords, final long nowNanos) {
        advance(nowNanos);
        cache.insert(addr, coords, now);
        dirty = true;
    }

    /** @return the cached coordinates of {@code addr} (no touch), or null */
    public Coords cachedCoords(final NodeAddr addr, final long nowNanos) {
        return cache.get(addr, nowNanos);
    }

    /**
     * The next hop toward {@code dest} by {@link NextHop} over the current table.
     *
     * @return the peer to send to, {@code self} when {@code dest} is this node, or null without a route
     */
    public NodeAddr nextHop(final NodeAddr dest, final long nowNanos) {
        advance(nowNanos);
        final NextHop.Route r = router.route(table(), dest, now);
        if (r.result() == NextHop.LOCAL) {
            return self;
        }
        return r.found() ? r.peer().addr() : null;
    }

    /**
     * Renders the state the control socket shows (control thread; the result is immutable).
     *
     * @param names     display name of a node address (alias, hosts name or a short form)
     * @param nowNanos  the control clock
     * @param wallNowMs Unix milliseconds now, for the absolute times the reference prints
     * @return the snapshot
     */
    public MeshSnapshot snapshot(final Function<NodeAddr, String> names, final long nowNanos,
                                 final long wallNowMs) {
        advance(nowNanos);
        return MeshJson.render(this, names, now, wallNowMs);
    }

    /** @return this node's npub */
    public String npub() {
        return identity.npub();
    }

    /** @return this node's address */
    public NodeAddr nodeAddr() {
        return self;
    }

    /** @return our tree root */
    public NodeAddr root() {
        return tree.root();
    }

    /** @return true when we are the root */
    public boolean isRoot() {
        return tree.isRoot();
    }

    /** @return our parent (ourselves when root) */
    public NodeAddr parent() {
        return tree.parent();
    }

    /** @return our depth */
    public int depth() {
        return tree.depth();
    }

    /** @return our coordinate, self first */
    public Coords coords() {
        return new Coords(tree.coordAddrs());
    }

    /** @return true when some peer is waiting for a FilterAnnounce */
    public boolean filtersPending() {
        for (final NodeAddr a : peers.keySet()) {
            if (bloom.isUpdatePending(a)) {
                return true;
            }
        }
        return false;
    }

    /** @return the spanning tree (read-only use) */
    public SpanningTree tree() {
        return tree;
    }

    /** @return the bloom state (read-only use) */
    public BloomRouting bloomRouting() {
        return bloom;
    }

    /** @return discovery (read-only use) */
    public Discovery discoveryState() {
        return discovery;
    }

    /** @return the coordinate cache (read-only use) */
    public CoordCache coordCache() {
        return cache;
    }

    /** @return the identity cache */
    public IdentityCache identityCache() {
        return identities;
    }

    /** @return error signals by kind: coords_required, path_broken, mtu_exceeded, no_route_back, via_arrival_link */
    public long errorSignals(final String kind) {
        return errors.count(kind);
    }

    /** @return the direct peers' identities, in promotion order */
    public List<PeerIdentity> peerIdentities() {
        return peers.values().stream().map(p -> p.identity).toList();
    }

    private void advance(final long nowNanos) {
        if (nowNanos - now > 0) {
            now = nowNanos;
        }
    }

    /** @param each called with every peer's address and link id */
    void forEachPeer(final Consumer<MeshPeer> each) {
        peers.values().forEach(each);
    }
}
