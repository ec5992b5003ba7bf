package net.fips.sim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import net.fips.control.discovery.Discovery;
import net.fips.control.mesh.MeshControl;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The soak's invariants over a {@link Simulator}'s present nodes, each check returning what it found broken (an
 * empty list when all hold):
 *
 * <ul>
 *   <li>{@link #walks}: no routing loop. From a source, a datagram to a destination follows each hop's own
 *   {@code nextHop}, warming every transit's coordinate cache with both ends' coordinates as a SessionSetup does;
 *   the walk must end at the destination or at a node without a route, never revisit a node, and never pick a next
 *   hop that is not a live peer of the node. Every hop strictly decreases the tree distance to the destination as
 *   the forwarding node sees it (routing-session.md §4.3), so a loop is possible only while some node on it holds
 *   out-of-date coordinates of the peer it forwards to (a TreeAnnounce still on its way while the tree
 *   reconverges; the datagram's TTL ends such a loop, as in the reference). The check tells the two apart: a loop
 *   on which every hop's view of its next hop's coordinates is that node's own is a {@link Outcome#LOOP} and
 *   breaks the invariant; one through an out-of-date view is a {@link Outcome#STALE_LOOP}, counted and
 *   reported, and breaks it only after reconvergence, when every walk must be delivered.</li>
 *   <li>{@link #bounds}: bounded tables. Each node's per-peer maps (its routing peers, the tree's and the bloom
 *   layer's peer tables) hold exactly, resp. at most, its live links; its per-destination maps and caches
 *   (coordinate cache, identity cache, pending lookups, transit limiter, lookup backoff) hold at most one entry per
 *   node of the simulation and never more than their capacity; the request_id table stays within its capacity.</li>
 * </ul>
 *
 * <p>Reachability after reconvergence is the caller's (see {@link Soak}): there every walk must be delivered.
 */
public final class Invariants {
    private Invariants() {
    }

    /** The next hop a node picks toward a destination (the simulation's own: {@link MeshControl#nextHop}). */
    @FunctionalInterface
    public interface NextHops {
        /** Each node's own forwarding decision. */
        NextHops MESH = (node, dest, now) -> node.mesh().nextHop(dest, now);

        /**
         * @param node    the node forwarding
         * @param dest    the destination
         * @param nowNanos virtual time
         * @return the next hop's address, the node's own when it is the destination, or null without a route
         */
        NodeAddr nextHop(Simulator.Node node, NodeAddr dest, long nowNanos);
    }

    /** How one walk ended. */
    public enum Outcome {
        /** Reached the destination. */
        DELIVERED,
        /** A node on the way had no route (legitimate while the mesh reconverges). */
        NO_ROUTE,
        /** Revisited a node although every hop on the loop saw its next hop's coordinates as they are: a bug. */
        LOOP,
        /** Revisited a node through a hop holding out-of-date coordinates of its next hop (reconvergence). */
        STALE_LOOP,
        /** A node picked a next hop that is not a live peer of it. */
        DEAD_NEXT_HOP
    }

    /** One broken invariant. */
    public record Violation(long atNanos, String kind, String detail) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "t=%.1fs %s: %s", atNanos / 1e9, kind, detail);
        }
    }

    /** Walk outcomes of one check. */
    public static final class WalkTally {
        private final long[] counts = new long[Outcome.values().length];

        void add(final Outcome o) {
            counts[o.ordinal()]++;
        }

        /** @return walks that ended with {@code o} */
        public long count(final Outcome o) {
            return counts[o.ordinal()];
        }

        /** @return all walks */
        public long total() {
            long t = 0;
            for (final long c : counts) {
                t += c;
            }
            return t;
        }
    }

    /**
     * Walks a datagram from {@code src} to {@code dst}, the source holding {@code dst}'s current coordinates (as a
     * completed lookup leaves them).
     *
     * @return how it ended, with the node where it did when not delivered
     */
    static Walk walk(final Simulator sim, final NextHops hops, final int src, final int dst) {
        final long now = sim.loop().now();
        final Simulator.Node s = sim.nodes().get(src);
        final Simulator.Node d = sim.nodes().get(dst);
        final Coords destCoords = d.mesh().coords();
        final Coords srcCoords = s.mesh().coords();
        s.mesh().warm(d.addr(), destCoords, now);
        final boolean[] seen = new boolean[sim.nodes().size()];
        final List<Simulator.Node> path = new ArrayList<>();
        Simulator.Node at = s;
        int steps = 0;
        while (at != d) {
            if (seen[at.index()]) {
                return new Walk(staleOnCycle(path, at) ? Outcome.STALE_LOOP : Outcome.LOOP, at.index(), steps);
            }
            seen[at.index()] = true;
            path.add(at);
            if (at != s) {
                at.mesh().warm(s.addr(), srcCoords, now);
                at.mesh().warm(d.addr(), destCoords, now);
            }
            final NodeAddr next = hops.nextHop(at, d.addr(), now);
            if (next == null) {
                return new Walk(Outcome.NO_ROUTE, at.index(), steps);
            }
            final Simulator.Node n = sim.node(next);
            if (n == null || n == at || !sim.isUp(at.index(), n.index())) {
                return new Walk(Outcome.DEAD_NEXT_HOP, at.index(), steps);
            }
            at = n;
            steps++;
        }
        return new Walk(Outcome.DELIVERED, dst, steps);
    }

    /**
     * @return true when a hop on the cycle that starts at {@code start}'s first visit in {@code path} holds
     *     coordinates of its next hop other than that node's own
     */
    private static boolean staleOnCycle(final List<Simulator.Node> path, final Simulator.Node start) {
        final int from = path.indexOf(start);
        for (int i = from; i < path.size(); i++) {
            final Simulator.Node hop = path.get(i);
            final Simulator.Node next = i + 1 < path.size() ? path.get(i + 1) : start;
            if (!hop.mesh().tree().peerCoords(next.addr()).equals(next.mesh().tree().coordAddrs())) {
                return true;
            }
        }
        return false;
    }

    /** @return how many of the node's live peers it sees with coordinates other than their own */
    static int staleViews(final Simulator sim, final Simulator.Node node) {
        int stale = 0;
        for (final NodeAddr p : sim.livePeers(node.index())) {
            final Simulator.Node peer = sim.node(p);
            if (!node.mesh().tree().peerCoords(p).equals(peer.mesh().tree().coordAddrs())) {
                stale++;
            }
        }
        return stale;
    }

    /** How a walk ended, where, after how many hops. */
    record Walk(Outcome outcome, int at, int hops) {
    }

    /**
     * From every present, live node to {@code perNode} random present destinations in its live component.
     *
     * @param tally      outcomes are added here
     * @param undelivered when non-null, walks that ended without a route or in a loop through out-of-date
     *                   coordinates are added here (the reachability check after reconvergence)
     * @return loops with every view up to date and dead next hops (walks that were not delivered otherwise go to
     *     {@code undelivered} when given)
     */
    public static List<Violation> walks(final Simulator sim, final NextHops hops, final int perNode,
                                        final WalkTally tally, final List<Violation> undelivered) {
        final List<Violation> out = new ArrayList<>();
        final int[] comp = sim.liveComponents();
        final List<Simulator.Node> nodes = sim.nodes();
        final List<List<Integer>> members = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            members.add(new ArrayList<>());
        }
        for (final Simulator.Node n : nodes) {
            if (n.present && n.alive) {
                members.get(comp[n.index()]).add(n.index());
            }
        }
        final long now = sim.loop().now();
        for (final Simulator.Node n : nodes) {
            if (!n.present || !n.alive) {
                continue;
            }
            final List<Integer> mine = members.get(comp[n.index()]);
            if (mine.size() < 2) {
                continue;
            }
            for (int k = 0; k < perNode; k++) {
                int dst;
                do {
                    dst = mine.get(sim.random().nextInt(mine.size()));
                } while (dst == n.index());
                final Walk w = walk(sim, hops, n.index(), dst);
                tally.add(w.outcome());
                switch (w.outcome()) {
                    case LOOP -> out.add(new Violation(now, "loop",
                            n.index() + " -> " + dst + " revisits node " + w.at() + " after " + w.hops() + " hops"));
                    case DEAD_NEXT_HOP -> out.add(new Violation(now, "dead-next-hop",
                            n.index() + " -> " + dst + ": node " + w.at() + " picked a peer with no live link"));
                    case NO_ROUTE -> {
                        if (undelivered != null) {
                            undelivered.add(new Violation(now, "unreachable",
                                    n.index() + " -> " + dst + ": no route at node " + w.at() + " after " + w.hops()
                                            + " hops (out-of-date peer coordinates there: "
                                            + staleViews(sim, nodes.get(w.at())) + ")"));
                        }
                    }
                    case STALE_LOOP -> {
                        if (undelivered != null) {
                            undelivered.add(new Violation(now, "unreachable", n.index() + " -> " + dst
                                    + ": loop through out-of-date coordinates at node " + w.at()));
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        return out;
    }

    /** The largest size of each table seen over the present nodes at one check. */
    public record Sizes(int peers, int treePeers, int bloomPeers, int coordCache, int identityCache,
                        int pendingLookups, int recentRequests, int forwardLimiter, int backoff) {
        /** All zero. */
        public static final Sizes ZERO = new Sizes(0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** @return the larger of each */
        public Sizes max(final Sizes o) {
            return new Sizes(Math.max(peers, o.peers), Math.max(treePeers, o.treePeers),
                    Math.max(bloomPeers, o.bloomPeers), Math.max(coordCache, o.coordCache),
                    Math.max(identityCache, o.identityCache), Math.max(pendingLookups, o.pendingLookups),
                    Math.max(recentRequests, o.recentRequests), Math.max(forwardLimiter, o.forwardLimiter),
                    Math.max(backoff, o.backoff));
        }

        @Override
        public String toString() {
            return "peers=" + peers + " tree_peers=" + treePeers + " bloom_peers=" + bloomPeers + " coord_cache="
                    + coordCache + " identity_cache=" + identityCache + " pending_lookups=" + pendingLookups
                    + " recent_requests=" + recentRequests + " forward_limiter=" + forwardLimiter + " backoff="
                    + backoff;
        }
    }

    /**
     * Checks every present node's tables against their bounds (see the class comment).
     *
     * @param max the largest sizes seen are merged into {@code max[0]}
     * @return what exceeded its bound or held a peer without a live link
     */
    public static List<Violation> bounds(final Simulator sim, final Sizes[] max) {
        final List<Violation> out = new ArrayList<>();
        final long now = sim.loop().now();
        final int n = sim.nodes().size();
        Sizes seen = max[0];
        for (final Simulator.Node node : sim.nodes()) {
            if (!node.present) {
                continue;
            }
            final MeshControl m = node.mesh();
            final Set<NodeAddr> live = sim.livePeers(node.index());
            final Set<NodeAddr> peers = new HashSet<>();
            m.peerIdentities().forEach(p -> peers.add(p.nodeAddr()));
            final String who = "node " + node.index();
            if (!peers.equals(live)) {
                out.add(new Violation(now, "peers", who + " has " + peers.size() + " routing peers, "
                        + live.size() + " live links (not the same set)"));
            }
            final List<NodeAddr> tree = m.tree().peers();
            final List<NodeAddr> bloom = m.bloomRouting().peers();
            if (!live.containsAll(tree)) {
                out.add(new Violation(now, "tree-peers", who + "'s tree holds a peer without a live link"));
            }
            if (!live.containsAll(bloom)) {
                out.add(new Violation(now, "bloom-peers", who + "'s bloom layer holds a peer without a live link"));
            }
            final Discovery d = m.discoveryState();
            final int coord = m.coordCache().size();
            final int ident = m.identityCache().size();
            final int pending = d.pendingLookups().size();
            final int recent = d.recentRequestCount();
            final int limiter = d.forwardLimiterSize();
            final int backoff = d.backoffSize();
            bound(out, now, who, "coord-cache", coord, Math.min(n, m.coordCache().capacity()));
            bound(out, now, who, "identity-cache", ident, Math.min(n, sim.settings.identityCacheSize()));
            bound(out, now, who, "pending-lookups", pending, n);
            bound(out, now, who, "recent-requests", recent, d.config().maxRecentRequests());
            bound(out, now, who, "forward-limiter", limiter, n);
            bound(out, now, who, "backoff", backoff, n);
            seen = seen.max(new Sizes(peers.size(), tree.size(), bloom.size(), coord, ident, pending, recent,
                    limiter, backoff));
        }
        max[0] = seen;
        return out;
    }

    private static void bound(final List<Violation> out, final long now, final String who, final String what,
                              final int size, final int limit) {
        if (size > limit) {
            out.add(new Violation(now, what, who + " holds " + size + " entries, bound " + limit));
        }
    }
}
