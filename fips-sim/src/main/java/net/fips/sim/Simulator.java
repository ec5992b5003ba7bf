package net.fips.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.HashSet;
import java.util.Set;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.tree.WallClock;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * N nodes, each a real {@link MeshControl} (spanning tree, bloom filters, discovery, coordinate cache and the data
 * plane's {@code NextHop}), joined by in-memory links with latency, loss and a partition switch, on a virtual clock.
 * Deterministic for a seed: identities, tick phases, latencies, losses and lookups all come from one
 * {@link Random}.
 *
 * <p>What is simulated rather than run: the link layer (Noise, FMP framing, MMP). A link delivers each link message
 * after its latency unless it is down or the message is lost; each side gets one RTT sample (twice the latency)
 * a second after the link comes up, as the first MMP report would give it.
 *
 * <p>Churn (the soak, {@link Soak}): a node can {@link #leave} (every link down, the node gone), {@link #join} (back,
 * or for the first time, with empty routing state) and {@link #restart} (same identity, fresh state, its links
 * down for a while); {@link #partition} cuts every link between a set of nodes and the rest until {@link #heal}.
 * A link comes up only between two present nodes and never across a cut.
 */
public final class Simulator {
    static final long MS = 1_000_000L;
    static final long SECOND = 1_000_000_000L;
    /** The MTU every simulated link reports (the reference's UDP default). */
    static final int LINK_MTU = 1280;
    /** Virtual wall clock at t = 0 (2026-01-01T00:00:00Z), so tree timestamps look like real ones. */
    static final long WALL_EPOCH_MS = 1_767_225_600_000L;

    /** Knobs of one run. */
    public record Config(long seed, long latencyMinNanos, long latencyMaxNanos, double loss, boolean verifyCache) {
        /** 5-20 ms per link, no loss, verification cache on. */
        public static Config defaults(final long seed) {
            return new Config(seed, 5 * MS, 20 * MS, 0.0, true);
        }
    }

    /** One simulated node. */
    public final class Node {
        final int index;
        final NodeIdentity identity;
        final PeerIdentity peer;
        MeshControl mesh;
        final Map<NodeAddr, Link> links = new HashMap<>();
        boolean alive = true;
        /** In the mesh at all: false after {@link #leave}, until {@link #join}. */
        boolean present = true;
        /** Counts leaves, joins and restarts, so a scheduled bring-up of an older incarnation does nothing. */
        long generation;

        Node(final int index, final NodeIdentity identity) {
            this.index = index;
            this.identity = identity;
            this.peer = identity.toPeer();
            this.mesh = freshMesh();
        }

        /** Routing state as a node process starting now has it: nothing learnt yet, same identity. */
        private MeshControl freshMesh() {
            final WallClock wall = () -> WALL_EPOCH_MS + loop.now() / MS;
            return new MeshControl(identity, settings, this::send, MeshControl.TablePublisher.NONE,
                    new Random(random.nextLong()), wall, signatures, transport -> LINK_MTU, loop.now());
        }

        /** @return true while the node is in the mesh (not left) */
        public boolean present() {
            return present;
        }

        /** @return the node's address */
        public NodeAddr addr() {
            return peer.nodeAddr();
        }

        /** @return its index */
        public int index() {
            return index;
        }

        /** @return its identity */
        public PeerIdentity peer() {
            return peer;
        }

        /** @return its routing state */
        public MeshControl mesh() {
            return mesh;
        }

        private boolean send(final NodeAddr to, final byte[] message) {
            final Link l = links.get(to);
            if (l == null || !l.up) {
                return false;
            }
            messagesSent++;
            bytesSent += message.length;
            if (tap != null) {
                tap.sent(this, l.other(this), message, loop.now());
            }
            if (message.length > 0 && (message[0] & 0xFF) == 0x20) {
                filterAnnouncesSent++;
            }
            if (config.loss() > 0 && random.nextDouble() < config.loss()) {
                return true;
            }
            final Node other = l.other(this);
            final long epoch = l.epoch;
            loop.after(l.latencyNanos, () -> {
                if (l.up && l.epoch == epoch && other.alive) {
                    other.mesh.onLinkMessage(peer, message, loop.now());
                }
            });
            return true;
        }
    }

    /** A link between two nodes. */
    final class Link {
        final Node a;
        final Node b;
        final long latencyNanos;
        /** A fresh id each time the link comes up, as a new Noise link gets one. */
        long id;
        boolean up;
        /** Cut by {@link #partition}: stays down until {@link #heal}. */
        boolean cut;
        long epoch;

        Link(final Node a, final Node b, final long latencyNanos, final long id) {
            this.a = a;
            this.b = b;
            this.latencyNanos = latencyNanos;
            this.id = id;
        }

        Node other(final Node n) {
            return n == a ? b : a;
        }
    }

    final Config config;
    final Random random;
    final EventLoop loop = new EventLoop();
    final MeshSettings settings;
    final SimSignatures signatures;
    final List<Node> nodes = new ArrayList<>();
    /** The nodes by address (fixed once built). */
    final Map<NodeAddr, Node> byAddr = new HashMap<>();
    final Map<Long, Link> links = new HashMap<>();
    final Topology topology;
    long messagesSent;
    long bytesSent;
    private MessageTap tap;
    long filterAnnouncesSent;
    private long nextLinkId = 1;

    /**
     * Creates the nodes (identities from the seed) and schedules their 1 s ticks at random phases; links are not
     * up until {@link #linkAll()} or {@link #linkUp}.
     *
     * @param topology the graph
     * @param config   the knobs
     * @param settings routing settings every node runs with
     */
    public Simulator(final Topology topology, final Config config, final MeshSettings settings) {
        this.topology = topology;
        this.config = config;
        this.random = new Random(config.seed());
        this.settings = settings;
        this.signatures = new SimSignatures(config.verifyCache());
        for (int i = 0; i < topology.nodes(); i++) {
            final Node n = new Node(i, identity(random));
            nodes.add(n);
            byAddr.put(n.addr(), n);
        }
        for (final Node n : nodes) {
            final long phase = (long) (random.nextDouble() * SECOND);
            scheduleTick(n, phase);
        }
        for (final int[] e : topology.edges()) {
            final long lat = config.latencyMinNanos()
                    + (long) (random.nextDouble() * (config.latencyMaxNanos() - config.latencyMinNanos()));
            final Link l = new Link(nodes.get(e[0]), nodes.get(e[1]), lat, nextLinkId++);
            links.put(key(e[0], e[1]), l);
            l.a.links.put(l.b.addr(), l);
            l.b.links.put(l.a.addr(), l);
        }
    }

    private static NodeIdentity identity(final Random random) {
        final byte[] sk = new byte[32];
        while (true) {
            random.nextBytes(sk);
            try {
                return NodeIdentity.fromSecret(sk);
            } catch (final IdentityFormatException e) {
                // out of range: draw again
            }
        }
    }

    private void scheduleTick(final Node n, final long at) {
        loop.at(at, () -> {
            if (n.alive) {
                final long now = loop.now();
                n.mesh.onRoutingTick(now);
                n.mesh.onLookupTick(now);
            }
            scheduleTick(n, at + SECOND);
        });
    }

    private static long key(final int a, final int b) {
        return ((long) Math.min(a, b) << 32) | Math.max(a, b);
    }

    /** Sees every link message a node hands to a live link (before loss is applied). */
    @FunctionalInterface
    public interface MessageTap {
        /**
         * @param from    sender
         * @param to      receiver
         * @param message the link message, msg_type first (do not modify)
         * @param nowNanos virtual time
         */
        void sent(Node from, Node to, byte[] message, long nowNanos);
    }

    /** @param t the tap, or null */
    public void tap(final MessageTap t) {
        this.tap = t;
    }

    /**
     * Silences or revives a node: a silent node neither ticks nor receives (its links stay up, as with a hung
     * process), so its neighbours still believe in it until something else tells them otherwise.
     */
    public void setAlive(final int node, final boolean alive) {
        nodes.get(node).alive = alive;
    }

    /** @return the nodes, by index */
    public List<Node> nodes() {
        return nodes;
    }

    /** @return the event loop (virtual clock) */
    public EventLoop loop() {
        return loop;
    }

    /** Brings every topology edge up now. */
    public void linkAll() {
        for (final int[] e : topology.edges()) {
            linkUp(e[0], e[1]);
        }
    }

    /**
     * Brings the link a-b up (both sides promote it now, each gets an RTT sample a second later); nothing when it is
     * up already, cut by a partition, or an end is not present.
     */
    public void linkUp(final int a, final int b) {
        final Link l = links.get(key(a, b));
        if (l == null || l.up || l.cut || !l.a.present || !l.b.present) {
            return;
        }
        l.up = true;
        l.epoch++;
        l.id = nextLinkId++;
        final long now = loop.now();
        final long epoch = l.epoch;
        l.a.mesh.onPeerUp(l.b.peer, l.id, 0, now);
        l.b.mesh.onPeerUp(l.a.peer, l.id, 0, now);
        loop.after(SECOND, () -> {
            if (l.up && l.epoch == epoch) {
                final long rttMicros = 2 * l.latencyNanos / 1000;
                l.a.mesh.onRttSample(l.b.peer, rttMicros, 1, loop.now());
                l.b.mesh.onRttSample(l.a.peer, rttMicros, 1, loop.now());
            }
        });
    }

    /** Takes the link a-b down (both sides remove the peer now; messages in flight are lost). */
    public void linkDown(final int a, final int b) {
        final Link l = links.get(key(a, b));
        if (l == null || !l.up) {
            return;
        }
        l.up = false;
        l.epoch++;
        final long now = loop.now();
        l.a.mesh.onPeerDown(l.b.peer, now);
        l.b.mesh.onPeerDown(l.a.peer, now);
    }

    /**
     * The node leaves the mesh: every link of it goes down (its peers remove it now) and it stops ticking. Nothing
     * when it is not present.
     */
    public void leave(final int node) {
        final Node n = nodes.get(node);
        if (!n.present) {
            return;
        }
        linksDown(n);
        n.present = false;
        n.alive = false;
        n.generation++;
    }

    /**
     * The node joins (or rejoins) the mesh with empty routing state and its links to present neighbours come up
     * now (those not cut). Nothing when it is present.
     */
    public void join(final int node) {
        final Node n = nodes.get(node);
        if (n.present) {
            return;
        }
        n.present = true;
        n.alive = true;
        n.generation++;
        n.mesh = n.freshMesh();
        linksUp(n);
    }

    /**
     * The node's process restarts: its links go down now (its peers remove it), it starts again at once with the
     * same identity and empty routing state, and its links come back {@code downNanos} later, as the peers'
     * reconnection would bring them. Nothing when it is not present.
     */
    public void restart(final int node, final long downNanos) {
        final Node n = nodes.get(node);
        if (!n.present) {
            return;
        }
        linksDown(n);
        n.alive = true;
        final long gen = ++n.generation;
        n.mesh = n.freshMesh();
        loop.after(downNanos, () -> {
            if (n.generation == gen) {
                linksUp(n);
            }
        });
    }

    /**
     * Cuts every link between {@code side} and the other nodes: those up go down now, and none of them comes up
     * until {@link #heal()}.
     *
     * @return how many links were cut (up or not)
     */
    public int partition(final Set<Integer> side) {
        int cut = 0;
        for (final Link l : links.values()) {
            if (side.contains(l.a.index) != side.contains(l.b.index)) {
                l.cut = true;
                cut++;
                linkDown(l.a.index, l.b.index);
            }
        }
        return cut;
    }

    /** Lifts every cut; the cut links between present nodes come up now. */
    public void heal() {
        for (final Link l : new ArrayList<>(links.values())) {
            if (l.cut) {
                l.cut = false;
                linkUp(l.a.index, l.b.index);
            }
        }
    }

    /** @return true while some link is cut by a partition */
    public boolean partitioned() {
        for (final Link l : links.values()) {
            if (l.cut) {
                return true;
            }
        }
        return false;
    }

    private void linksDown(final Node n) {
        for (final Link l : new ArrayList<>(n.links.values())) {
            linkDown(l.a.index, l.b.index);
        }
    }

    private void linksUp(final Node n) {
        for (final Link l : new ArrayList<>(n.links.values())) {
            linkUp(l.a.index, l.b.index);
        }
    }

    /** @return the addresses of the node's neighbours over links that are up */
    public Set<NodeAddr> livePeers(final int node) {
        final Set<NodeAddr> out = new HashSet<>();
        for (final Map.Entry<NodeAddr, Link> e : nodes.get(node).links.entrySet()) {
            if (e.getValue().up) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** @return the node with this address, or null */
    public Node node(final NodeAddr addr) {
        return byAddr.get(addr);
    }

    /**
     * Test hook: the link a-b stops carrying anything without either side being told (a fault, not churn: the
     * invariant checks must report it).
     */
    void breakSilently(final int a, final int b) {
        final Link l = links.get(key(a, b));
        l.up = false;
        l.epoch++;
    }

    /** @return true when a-b is up */
    public boolean isUp(final int a, final int b) {
        final Link l = links.get(key(a, b));
        return l != null && l.up;
    }

    /** Runs the virtual clock forward. */
    public void run(final long nanos) {
        loop.runUntil(loop.now() + nanos);
    }

    /** @return link messages sent so far, by every node */
    public long messagesSent() {
        return messagesSent;
    }

    /** @return FilterAnnounces sent so far */
    public long filterAnnouncesSent() {
        return filterAnnouncesSent;
    }

    /** @return the component id of every node over the links that are up */
    public int[] liveComponents() {
        final Topology live = new Topology(nodes.size());
        for (final Link l : links.values()) {
            if (l.up) {
                live.addEdge(l.a.index, l.b.index);
            }
        }
        return live.components();
    }

    /** @return adjacency over the links that are up */
    public int[][] liveAdjacency() {
        final Topology live = new Topology(nodes.size());
        for (final Link l : links.values()) {
            if (l.up) {
                live.addEdge(l.a.index, l.b.index);
            }
        }
        return live.adjacency();
    }

    /**
     * The convergence predicate of {@code bin/fips-sim}: within every connected component of live links, every
     * present node has the component's minimum address as root, a parent that is a live peer (itself when root)
     * and depth = parent depth + 1, and no node has a FilterAnnounce waiting to be sent.
     *
     * @return true when converged
     */
    public boolean converged() {
        final int[] comp = liveComponents();
        final Map<Integer, NodeAddr> min = new HashMap<>();
        for (final Node n : nodes) {
            if (n.present) {
                min.merge(comp[n.index], n.addr(), (x, y) -> x.compareTo(y) <= 0 ? x : y);
            }
        }
        for (final Node n : nodes) {
            if (!n.present) {
                continue;
            }
            final MeshControl m = n.mesh;
            if (!m.root().equals(min.get(comp[n.index]))) {
                return false;
            }
            if (m.isRoot()) {
                if (m.depth() != 0) {
                    return false;
                }
            } else {
                final Node p = byAddr.get(m.parent());
                if (p == null || !isUp(n.index, p.index) || m.depth() != p.mesh.depth() + 1) {
                    return false;
                }
            }
            if (m.filtersPending()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs until {@link #converged()} holds at two checks 1 s apart (filters settled) or {@code limitNanos} passes.
     *
     * @return the virtual time of convergence relative to the call (nanos), or -1
     */
    public long runUntilConverged(final long limitNanos, final long stepNanos) {
        final long start = loop.now();
        long firstSeen = -1;
        while (loop.now() - start < limitNanos) {
            run(stepNanos);
            if (converged()) {
                final long filtersBefore = filterAnnouncesSent;
                if (firstSeen < 0) {
                    firstSeen = loop.now();
                }
                run(SECOND);
                if (converged() && filterAnnouncesSent == filtersBefore) {
                    return firstSeen - start;
                }
                firstSeen = -1;
            } else {
                firstSeen = -1;
            }
        }
        return -1;
    }

    /** Outcome of one lookup-and-route. */
    public record Route(int src, int dst, boolean discovered, int hops, int shortest, String failure) {
        /** @return true when discovered and delivered */
        public boolean ok() {
            return discovered && failure == null;
        }
    }

    /**
     * Discovers {@code dst} from {@code src} (the source learns the target's identity first, as DNS would give it)
     * and then routes a SessionSetup-like datagram hop by hop with each node's own forwarding table and
     * {@code NextHop}, each hop warming its coordinate cache from the coordinates the datagram carries, as the
     * reference's transit nodes do.
     */
    public List<Route> lookupAndRoute(final List<int[]> pairs, final long discoveryLimitNanos) {
        final long now = loop.now();
        final List<String> started = new ArrayList<>();
        for (final int[] p : pairs) {
            final Node s = nodes.get(p[0]);
            final Node d = nodes.get(p[1]);
            s.mesh.learnIdentity(d.peer, now);
            started.add(String.valueOf(s.mesh.lookup(d.addr(), now)));
        }
        final long start = loop.now();
        while (loop.now() - start < discoveryLimitNanos) {
            run(100 * MS);
            boolean all = true;
            for (final int[] p : pairs) {
                if (nodes.get(p[0]).mesh.cachedCoords(nodes.get(p[1]).addr(), loop.now()) == null
                        && p[0] != p[1]) {
                    all = false;
                    break;
                }
            }
            if (all) {
                break;
            }
        }
        final int[][] adj = liveAdjacency();
        final List<Route> out = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i++) {
            final int[] p = pairs.get(i);
            final Route r = route(p[0], p[1], adj);
            out.add(r.failure() == null ? r : new Route(r.src(), r.dst(), r.discovered(), r.hops(), r.shortest(),
                    r.failure() + " (lookup " + started.get(i) + ", source discovery counters "
                            + nodes.get(p[0]).mesh.discoveryState().counters() + ")"));
        }
        return out;
    }

    private Route route(final int src, final int dst, final int[][] adj) {
        final int shortest = Topology.hops(adj, src)[dst];
        final Node s = nodes.get(src);
        final Node d = nodes.get(dst);
        final long now = loop.now();
        final Coords destCoords = s.mesh.cachedCoords(d.addr(), now);
        if (destCoords == null) {
            return new Route(src, dst, false, 0, shortest, "not discovered");
        }
        final Coords srcCoords = s.mesh.coords();
        Node at = s;
        int hops = 0;
        final boolean[] seen = new boolean[nodes.size()];
        while (at != d) {
            if (seen[at.index]) {
                return new Route(src, dst, true, hops, shortest, "loop at node " + at.index);
            }
            seen[at.index] = true;
            if (at != s) {
                at.mesh.warm(s.addr(), srcCoords, now);
                at.mesh.warm(d.addr(), destCoords, now);
            }
            final NodeAddr next = at.mesh.nextHop(d.addr(), now);
            if (next == null) {
                return new Route(src, dst, true, hops, shortest, "no route at node " + at.index);
            }
            final Node n = byAddr.get(next);
            if (n == null || !isUp(at.index, n.index)) {
                return new Route(src, dst, true, hops, shortest, "next hop not a live peer at node " + at.index);
            }
            at = n;
            hops++;
        }
        return new Route(src, dst, true, hops, shortest, null);
    }

    /**
     * {@code m} random (source, target) pairs of live, present nodes in the same live component, each target used once
     * while targets remain. Distinct targets matter: a transit forwards at most one LookupRequest per target per
     * 2 s (routing-session §3.3, as the reference), so several origins looking up one target at the same instant
     * suppress each other's attempts and some give up after 15 s, which would measure the limiter, not routing.
     *
     * @return the pairs
     */
    public List<int[]> randomPairs(final int m) {
        final int[] comp = liveComponents();
        final List<int[]> pairs = new ArrayList<>();
        final Set<Integer> targets = new HashSet<>();
        int guard = 0;
        while (pairs.size() < m && guard++ < m * 100) {
            final int a = random.nextInt(nodes.size());
            final int b = random.nextInt(nodes.size());
            if (a == b || comp[a] != comp[b] || !nodes.get(a).alive || !nodes.get(b).alive
                    || !nodes.get(a).present || !nodes.get(b).present) {
                continue;
            }
            if (targets.size() < nodes.size() && !targets.add(b)) {
                continue;
            }
            pairs.add(new int[] {a, b});
        }
        return pairs;
    }

    /** @return indices of every node, shuffled by the run's generator */
    int[] shuffled() {
        final int[] idx = new int[nodes.size()];
        Arrays.setAll(idx, i -> i);
        for (int i = idx.length - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final int x = idx[i];
            idx[i] = idx[j];
            idx[j] = x;
        }
        return idx;
    }

    /** @return the run's generator */
    public Random random() {
        return random;
    }

    /** @return the signature service shared by every node, with its counters */
    public SimSignatures signatures() {
        return signatures;
    }
}
