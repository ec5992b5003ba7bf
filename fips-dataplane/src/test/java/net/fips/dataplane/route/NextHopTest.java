package net.fips.dataplane.route;

import static net.fips.dataplane.route.TreeDistanceTest.a;
import static net.fips.dataplane.route.TreeDistanceTest.c;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * find_next_hop, porting the reference's routing tests (routing-session.md §8.1, node/tests/routing.rs) onto one
 * small hand-made neighbourhood and onto generated meshes.
 *
 * <pre>
 *            R(0)  root, our parent
 *           /    \
 *   me(10)        N(5)
 *     |          /    \
 *   C(20)     X(30)   D(40)      X is also our peer (a cross-link); D is the usual destination
 *                |
 *              E(50)
 * </pre>
 * Distances to D: me 3, R 2, X 2, C 4.
 */
class NextHopTest {
    private static final long TTL = CoordCache.DEFAULT_TTL_NANOS;
    private static final NodeAddr ME = a(10);
    private static final NodeAddr R = a(0);
    private static final NodeAddr C = a(20);
    private static final NodeAddr X = a(30);
    private static final NodeAddr D = a(40);
    private static final NodeAddr E = a(50);
    private static final Coords ME_C = c(10, 0);
    private static final Coords D_C = c(40, 5, 0);
    private static final Coords E_C = c(50, 30, 5, 0);

    private final NextHop hop = new NextHop();
    private final CoordCache cache = new CoordCache();

    private static byte[] filterOf(final NodeAddr... members) {
        final BloomFilter f = BloomFilter.create();
        for (final NodeAddr m : members) {
            f.insert(m);
        }
        return f.toBytes();
    }

    private static ForwardingTable.Peer peer(final NodeAddr addr, final Coords coords, final byte[] filter,
                                             final double cost, final boolean canSend,
                                             final ForwardingTable.TreeRole role) {
        return new ForwardingTable.Peer(addr, addr.hi() >>> 56, coords, filter, filter == null ? 0 : 5, cost, 1280,
                canSend, role);
    }

    /** Our three peers with the given filters (null: none), costs 1, all able to send. */
    private ForwardingTable table(final byte[] rFilter, final byte[] cFilter, final byte[] xFilter) {
        return ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(R, c(0), rFilter, 1.0, true, ForwardingTable.TreeRole.PARENT))
                .peer(peer(C, c(20, 10, 0), cFilter, 1.0, true, ForwardingTable.TreeRole.CHILD))
                .peer(peer(X, c(30, 5, 0), xFilter, 1.0, true, ForwardingTable.TreeRole.NONE))
                .build();
    }

    private NodeAddr route(final ForwardingTable t, final NodeAddr dest) {
        final NextHop.Route r = hop.route(t, dest, 0);
        return r.found() ? r.peer().addr() : null;
    }

    @Test
    void localDelivery() {
        assertEquals(NextHop.LOCAL, hop.find(table(null, null, null), ME.hi(), ME.lo(), 0));
    }

    @Test
    void directPeerNeedsNoCoordinates() {
        assertEquals(X, route(table(null, null, null), X));
        // A direct peer that cannot send is not used directly; without coordinates there is then no route.
        final ForwardingTable t = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(X, c(30, 5, 0), null, 1.0, false, ForwardingTable.TreeRole.NONE)).build();
        assertEquals(NextHop.NO_ROUTE, hop.find(t, X.hi(), X.lo(), 0));
    }

    @Test
    void unknownDestinationIsNoRoute() {
        assertEquals(NextHop.NO_ROUTE, hop.find(table(null, null, null), D.hi(), D.lo(), 0));
    }

    @Test
    void bloomHitWithoutCoordinatesIsNoRoute() {
        assertEquals(NextHop.NO_ROUTE, hop.find(table(null, null, filterOf(D)), D.hi(), D.lo(), 0));
    }

    @Test
    void bloomHit() {
        cache.insert(D, D_C, 0);
        assertEquals(X, route(table(null, null, filterOf(D)), D));
    }

    @Test
    void bloomPreferredOverTree() {
        cache.insert(D, D_C, 0);
        assertEquals(R, route(table(null, null, null), D), "greedy alone: R and X tie at 2, R has the smaller address");
        assertEquals(X, route(table(null, null, filterOf(D)), D), "the bloom candidate wins");
    }

    @Test
    void multiHitTieBreakCostThenDistanceThenAddress() {
        cache.insert(D, D_C, 0);
        final byte[] f = filterOf(D);
        assertEquals(R, route(table(f, f, f), D), "C is not closer than us; R and X tie on (1.0, 2): smaller address");
        final ForwardingTable costly = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(R, c(0), f, 1.5, true, ForwardingTable.TreeRole.PARENT))
                .peer(peer(X, c(30, 5, 0), f, 1.2, true, ForwardingTable.TreeRole.NONE)).build();
        assertEquals(X, route(costly, D), "link cost is the primary key");
        // Equal cost, different distance: E is under X (X at 1, R at 3, we at 4).
        cache.insert(E, E_C, 0);
        assertEquals(X, route(table(filterOf(E), null, filterOf(E)), E), "X at 1 beats R at 3 despite its address");
        // A candidate that cannot send is skipped.
        final ForwardingTable mute = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(R, c(0), f, 1.0, false, ForwardingTable.TreeRole.PARENT))
                .peer(peer(X, c(30, 5, 0), f, 1.0, true, ForwardingTable.TreeRole.NONE)).build();
        assertEquals(X, route(mute, D));
    }

    @Test
    void bloomHitNotCloserFallsThroughToTree() {
        cache.insert(D, D_C, 0);
        assertEquals(R, route(table(null, filterOf(D), null), D), "C (distance 4) hit, greedy picks R");
    }

    @Test
    void treeFallbackAndLocalMinimum() {
        cache.insert(D, D_C, 0);
        assertEquals(R, route(table(null, null, null), D));
        // Only C, farther than us: no route although we have coordinates (PathBroken).
        final ForwardingTable onlyChild = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(C, c(20, 10, 0), null, 1.0, true, ForwardingTable.TreeRole.CHILD)).build();
        assertEquals(NextHop.NO_ROUTE_HAD_COORDS, hop.find(onlyChild, D.hi(), D.lo(), 0));
    }

    @Test
    void greedyNearestPeerThatCannotSendMeansNoRoute() {
        cache.insert(D, D_C, 0);
        final ForwardingTable t = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(R, c(0), null, 1.0, false, ForwardingTable.TreeRole.PARENT))
                .peer(peer(X, c(30, 5, 0), null, 1.0, true, ForwardingTable.TreeRole.NONE)).build();
        assertEquals(NextHop.NO_ROUTE_HAD_COORDS, hop.find(t, D.hi(), D.lo(), 0), "as the reference: R or nothing");
    }

    @Test
    void differentRootIsNoRouteWithCoordinates() {
        cache.insert(D, c(40, 99), 0);
        assertEquals(NextHop.NO_ROUTE_HAD_COORDS, hop.find(table(null, null, null), D.hi(), D.lo(), 0));
    }

    @Test
    void peerWithoutTreeAnnounceIsNeverCloser() {
        cache.insert(D, D_C, 0);
        final ForwardingTable t = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(X, null, filterOf(D), 1.0, true, ForwardingTable.TreeRole.NONE)).build();
        assertEquals(NextHop.NO_ROUTE_HAD_COORDS, hop.find(t, D.hi(), D.lo(), 0));
    }

    @Test
    void routingRefreshesTheCacheTtl() {
        cache.insert(D, D_C, 0);
        final ForwardingTable t = table(null, null, null);
        assertEquals(0, hop.find(t, D.hi(), D.lo(), TTL / 2));
        assertNotNull(cache.get(D, TTL + TTL / 4), "touched through the table's view");
        assertNull(cache.get(D, TTL / 2 + TTL + 1));
        assertEquals(NextHop.NO_ROUTE, hop.find(t, D.hi(), D.lo(), TTL / 2 + TTL + 1), "expired: a miss");
    }

    @Test
    void packetCoordinatesRouteWhenTheCacheHasNoneAndTakePrecedence() {
        final ForwardingTable t = table(null, null, filterOf(D));
        final long[] hi = TreeDistance.his(D_C);
        final long[] lo = TreeDistance.los(D_C);
        assertEquals(2, hop.find(t, D.hi(), D.lo(), 0, hi, lo, hi.length), "bloom via the digest path: X");
        cache.insert(D, c(40, 20, 10, 0), 0);
        final ForwardingTable stale = table(null, null, filterOf(D));
        assertEquals(1, hop.find(stale, D.hi(), D.lo(), 0), "cache says D is under C");
        assertEquals(2, hop.find(stale, D.hi(), D.lo(), 0, hi, lo, hi.length), "the packet's coordinates win");
    }

    @Test
    void routeClasses() {
        cache.insert(D, D_C, 0);
        cache.insert(E, E_C, 0);
        final NodeAddr f = a(60);
        cache.insert(f, c(60, 20, 10, 0), 0);
        final NodeAddr g = a(70);
        cache.insert(g, c(70, 10, 0), 0);
        final ForwardingTable t = table(null, null, null);
        assertEquals(RouteClass.DIRECT_PEER, hop.route(t, X, 0).routeClass());
        assertEquals(RouteClass.TREE_UP, hop.route(t, D, 0).routeClass());
        assertEquals(RouteClass.CROSSLINK_DESCEND, hop.route(t, E, 0).routeClass());
        assertEquals(RouteClass.TREE_DOWN, hop.route(t, f, 0).routeClass());
        assertEquals(RouteClass.CROSSLINK_ASCEND, NextHop.classify(t, D.hi(), D.lo(), 2, TreeDistance.his(D_C),
                TreeDistance.los(D_C), 3));
        assertEquals(RouteClass.TREE_DOWN_CROSS, NextHop.classify(t, g.hi(), g.lo(), 1, null, null, 0));
    }

    @Test
    void builderRejectsDuplicatesAndBadCoordinates() {
        assertThrows(IllegalArgumentException.class, () -> ForwardingTable.builder(ME, c(11, 0)));
        assertThrows(IllegalArgumentException.class, () -> ForwardingTable.builder(ME, ME_C)
                .peer(peer(R, c(0), null, 1, true, ForwardingTable.TreeRole.PARENT))
                .peer(peer(R, c(0), null, 1, true, ForwardingTable.TreeRole.PARENT)).build());
    }

    @Test
    void filterMembershipMatchesBloomFilterBitForBit() {
        final Random rnd = new Random(11);
        for (final int[] params : new int[][] {{8192, 5}, {8008, 7}, {64, 1}}) {
            final BloomFilter f = BloomFilter.withParams(params[0], params[1]);
            for (int i = 0; i < 300; i++) {
                f.insert(NodeAddr.of(rnd.nextLong(), rnd.nextLong()));
            }
            final ForwardingTable t = ForwardingTable.builder(ME, ME_C).peer(new ForwardingTable.Peer(R, 1, c(0),
                    f.toBytes(), params[1], 1.0, 1280, true, ForwardingTable.TreeRole.PARENT)).build();
            int hits = 0;
            for (int i = 0; i < 3000; i++) {
                final NodeAddr x = NodeAddr.of(rnd.nextLong(), rnd.nextLong());
                final long[] h = BloomFilter.baseHashes(x.toBytes());
                assertEquals(f.contains(x), t.filterContains(0, h[0], h[1]), x + " in " + params[0]);
                hits += f.contains(x) ? 1 : 0;
            }
            assertTrue(hits > 0 || params[0] > 64, "the tiny filter is saturated");
        }
    }

    @Test
    void discoveryPopulatedCacheRoutesAndPeerRemovalStopsRouting() {
        cache.insert(D, D_C, 1280, 0);   // as a verified LookupResponse would
        assertEquals(X, route(table(null, null, filterOf(D)), D));
        final ForwardingTable withoutX = ForwardingTable.builder(ME, ME_C).cache(cache.view())
                .peer(peer(C, c(20, 10, 0), null, 1.0, true, ForwardingTable.TreeRole.CHILD)).build();
        assertEquals(NextHop.NO_ROUTE_HAD_COORDS, hop.find(withoutX, D.hi(), D.lo(), 0));
        assertEquals(NextHop.NO_ROUTE, hop.find(withoutX, X.hi(), X.lo(), 0), "X is no longer a peer");
    }

    /** Seeded random tables and destinations: every answer is LOCAL, a no-route code or a valid closer peer. */
    @Test
    void randomTablesNeverThrowAndOnlyChooseCloserPeers() {
        final Random rnd = new Random(99);
        for (int round = 0; round < 2000; round++) {
            final int roots = 1 + rnd.nextInt(2);
            final Supplier<Coords> coords = () -> {
                final int n = 1 + rnd.nextInt(5);
                final NodeAddr[] x = new NodeAddr[n];
                for (int i = 0; i < n - 1; i++) {
                    x[i] = a(1 + rnd.nextInt(12));
                }
                x[n - 1] = a(100 + rnd.nextInt(roots));
                return Coords.of(x);
            };
            final Coords mine = coords.get();
            final NodeAddr me = mine.addrs().getFirst();
            final CoordCache cc = new CoordCache();
            final ForwardingTable.Builder b = ForwardingTable.builder(me, mine);
            final Set<NodeAddr> used = new HashSet<>(List.of(me));
            for (int p = 0; p < rnd.nextInt(6); p++) {
                final NodeAddr addr = a(20 + rnd.nextInt(60));
                if (!used.add(addr)) {
                    continue;
                }
                b.peer(peer(addr, rnd.nextBoolean() ? coords.get() : null, rnd.nextBoolean() ? filterOf(D) : null,
                        rnd.nextInt(3), rnd.nextInt(4) > 0, ForwardingTable.TreeRole.NONE));
            }
            final Coords dc = coords.get();
            if (rnd.nextBoolean()) {
                cc.insert(D, dc, 0);
            }
            final ForwardingTable t = b.cache(cc.view()).build();
            final long[] hi = TreeDistance.his(dc);
            final long[] lo = TreeDistance.los(dc);
            final int supplied = rnd.nextBoolean() ? hi.length : 0;
            final int r = hop.find(t, D.hi(), D.lo(), 0, hi, lo, supplied);
            assertTrue(r >= NextHop.NO_ROUTE_HAD_COORDS && r < t.peerCount(), "result " + r);
            if (r >= 0) {
                final ForwardingTable.Peer p = t.peer(r);
                assertTrue(p.canSend());
                if (!p.addr().equals(D)) {
                    assertTrue(TreeDistance.distance(p.coords(), dc) < TreeDistance.distance(mine, dc), "closer");
                }
                assertNotNull(NextHop.classify(t, D.hi(), D.lo(), r, hi, lo, hi.length));
            }
        }
    }

    // ------------------------------------------------------------------ meshes

    /** Walks from {@code s} to {@code d}: the hop count, or -1 if some node has no route. Fails on a loop. */
    private static int walk(final Mesh m, final ForwardingTable[] tables, final int s, final int d,
                            final NextHop hop) {
        return walk(m, tables, s, d, hop, false);
    }

    /** As above; with {@code sourceKnows}, the source routes with d's coordinates supplied, the others with none. */
    private static int walk(final Mesh m, final ForwardingTable[] tables, final int s, final int d,
                            final NextHop hop, final boolean sourceKnows) {
        final Set<Integer> seen = new HashSet<>();
        final long[] hi = TreeDistance.his(m.coords[d]);
        final long[] lo = TreeDistance.los(m.coords[d]);
        int cur = s;
        int hops = 0;
        while (cur != d) {
            assertTrue(seen.add(cur), "loop from " + s + " to " + d + " at " + cur);
            final int r = hop.find(tables[cur], m.addr[d].hi(), m.addr[d].lo(), 0, hi, lo,
                    sourceKnows && cur == s ? hi.length : 0);
            if (r < 0) {
                assertFalse(r == NextHop.LOCAL);
                return -1;
            }
            cur = m.index(tables[cur].peer(r).addr());
            hops++;
            assertTrue(hops <= 64, "ttl would expire");
        }
        assertEquals(NextHop.LOCAL, hop.find(tables[d], m.addr[d].hi(), m.addr[d].lo(), 0));
        return hops;
    }

    private static ForwardingTable[] tables(final Mesh m, final IntFunction<CoordCache> cache) {
        final ForwardingTable[] t = new ForwardingTable[m.n];
        for (int i = 0; i < m.n; i++) {
            t[i] = m.table(i, cache.apply(i).view());
        }
        return t;
    }

    @Test
    void chainTopology() {
        final Mesh m = new Mesh(5, Mesh.chain(5), 3);
        final CoordCache full = m.fullCache(0);
        final ForwardingTable[] t = tables(m, i -> full);
        for (int s = 0; s < 5; s++) {
            for (int d = 0; d < 5; d++) {
                assertEquals(Math.abs(s - d), walk(m, t, s, d, new NextHop()), s + " -> " + d);
            }
        }
    }

    @Test
    void reachability100NodesWithFullCachesAllPairsNoLoops() {
        final Mesh m = new Mesh(100, Mesh.randomEdges(100, 250, 42), 42);
        final CoordCache full = m.fullCache(0);
        final ForwardingTable[] t = tables(m, i -> full);
        final NextHop hop = new NextHop();
        int pairs = 0;
        for (int s = 0; s < m.n; s++) {
            for (int d = 0; d < m.n; d++) {
                if (s != d) {
                    assertTrue(walk(m, t, s, d, hop) > 0, s + " -> " + d);
                    pairs++;
                }
            }
        }
        assertEquals(9900, pairs);
    }

    @Test
    void bloomOnlyTransitFailsWithoutCoordinates() {
        final Mesh m = new Mesh(4, Mesh.chain(4), 5);
        final CoordCache sourceOnly = new CoordCache();
        sourceOnly.insert(m.addr[3], m.coords[3], 0);
        sourceOnly.insert(m.addr[2], m.coords[2], 0);
        final CoordCache empty = new CoordCache();
        final ForwardingTable[] t = tables(m, i -> i == 0 ? sourceOnly : empty);
        assertEquals(1, m.index(t[0].peer(hop.find(t[0], m.addr[3].hi(), m.addr[3].lo(), 0)).addr()));
        assertEquals(NextHop.NO_ROUTE, hop.find(t[1], m.addr[3].hi(), m.addr[3].lo(), 0),
                "the transit's peers' filters hold the destination, but it has no coordinates");
        assertEquals(-1, walk(m, t, 0, 3, hop));
        assertEquals(2, walk(m, t, 0, 2, hop), "the transit's direct peer needs no coordinates");
    }

    @Test
    void sourceOnlyCoordinates100Nodes() {
        final Mesh m = new Mesh(100, Mesh.randomEdges(100, 250, 42), 42);
        final CoordCache empty = new CoordCache();
        final ForwardingTable[] t = tables(m, i -> empty);
        final NextHop hop = new NextHop();
        int delivered = 0;
        int pairs = 0;
        for (int s = 0; s < m.n; s++) {
            for (int d = 0; d < m.n; d++) {
                if (s == d) {
                    continue;
                }
                pairs++;
                final int hops = walk(m, t, s, d, hop, true);
                if (hops > 0) {
                    assertTrue(hops <= 2, "beyond the first transit only its direct peers are reachable");
                    delivered++;
                }
                if (m.adj.get(s).contains(d)) {
                    assertEquals(1, hops, "direct peers always");
                }
            }
        }
        assertTrue(delivered < pairs / 2, "most multi-hop pairs fail without transit coordinates: " + delivered);
    }
}
