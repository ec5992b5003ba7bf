package net.fips.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.discovery.DiscoveryCounter;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The source s of the eight-node chaos run A (docs/benchmarks.md, "Chaos at eight nodes", 2026-12-06): starved, it
 * marked both its live peers suspect at once and became its own root, trusted them again a second later, and then
 * answered its pings to d with "no route" for 22 s while its lookups for d kept succeeding. On run A's topology
 * (s-a, s-b, a-b, a-c, b-e, c-e, c-f, e-g, f-g, f-d, g-d) with the real {@link MeshControl} of every node: s routes
 * to d again as soon as its peers are trusted and a lookup answers; what took the route away after each answer in
 * run A is the coordinate cache taking d's coordinates from d's own warm-up packets, which carried a position d had
 * held seconds before (a root that was not s's), as the reference caches them too (routing-session §5.1 at the
 * destination, §4.2 step 3 at every transit).
 * The data plane now reads those coordinates when each packet leaves ({@code DataPlaneSessionTest}
 * {@code warmupCoordinatesAreReadWhenEachPacketLeaves}), as the reference does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StarvedSourceRouteTest {
    private static final long S = Simulator.SECOND;
    private static final long MS = Simulator.MS;
    private static final int SRC = 0;
    private static final int A = 1;
    private static final int B = 2;
    private static final int C = 3;
    private static final int DST = 4;
    private static final int E = 5;
    private static final int F = 6;
    private static final int G = 7;

    private static Simulator runA(final long seed) {
        final Topology t = new Topology(8);
        final int[][] edges = {{SRC, A}, {SRC, B}, {A, B}, {A, C}, {B, E}, {C, E}, {C, F}, {E, G}, {F, G}, {F, DST},
            {G, DST}};
        for (final int[] e : edges) {
            t.addEdge(e[0], e[1]);
        }
        final Simulator sim = new Simulator(t, Simulator.Config.defaults(seed), MeshSettings.defaults());
        sim.linkAll();
        assertTrue(sim.runUntilConverged(120 * S, 100 * MS) >= 0, "converged");
        return sim;
    }

    /**
     * Starts a lookup of {@code dst} at {@code src}, runs the mesh until a verified answer is accepted (bounded) and
     * returns what the cache then holds for {@code dst}.
     */
    private static Coords lookUp(final Simulator sim, final Simulator.Node src, final Simulator.Node dst) {
        final long accepted = src.mesh().discoveryState().counter(DiscoveryCounter.RESPONSES_ACCEPTED);
        src.mesh().learnIdentity(dst.peer(), sim.loop().now());
        src.mesh().lookup(dst.addr(), sim.loop().now());
        for (int i = 0; i < 500; i++) {
            sim.run(10 * MS);
            if (src.mesh().discoveryState().counter(DiscoveryCounter.RESPONSES_ACCEPTED) > accepted) {
                return src.mesh().cachedCoords(dst.addr(), sim.loop().now());
            }
        }
        throw new AssertionError("the lookup was not answered within 5 s");
    }

    @Test
    void aSourceWhosePeersWereAllSuspectRoutesAgainOnceTheyAnswerAndALookupDoes() {
        final Simulator sim = runA(7);
        final Simulator.Node s = sim.nodes().get(SRC);
        final Simulator.Node d = sim.nodes().get(DST);
        final MeshControl m = s.mesh();
        assertFalse(m.isRoot(), "s is not the root of this mesh (else the test shows nothing)");
        final NodeAddr root = m.root();
        assertEquals(d.mesh().coords(), lookUp(sim, s, d));
        assertNotNull(m.nextHop(d.addr(), sim.loop().now()), "a route to d before the starvation");

        // Both live peers suspect at once, as s's own silence made them look (run A, 05:22:42).
        long now = sim.loop().now();
        m.onPeerSuspect(sim.nodes().get(A).peer(), true, now);
        m.onPeerSuspect(sim.nodes().get(B).peer(), true, now);
        assertTrue(m.isRoot(), "no trusted peer left: s is its own root");
        assertNull(m.cachedCoords(d.addr(), now), "d's coordinates under the old root are forgotten");
        assertNull(m.nextHop(d.addr(), now), "and s has no route to d: its only links are suspect");

        // They answer again a second later: s is back under the mesh's root at once.
        sim.run(S);
        now = sim.loop().now();
        m.onPeerSuspect(sim.nodes().get(A).peer(), false, now);
        m.onPeerSuspect(sim.nodes().get(B).peer(), false, now);
        assertFalse(m.isRoot());
        assertEquals(root, m.root(), "back under the mesh's root without waiting for an announce");
        assertNull(m.nextHop(d.addr(), now), "no coordinates for d yet: a lookup is needed");

        // A lookup's answer is usable the moment it is cached.
        assertEquals(d.mesh().coords(), lookUp(sim, s, d));
        assertNotNull(m.nextHop(d.addr(), sim.loop().now()), "the fresh lookup result routes");
    }

    @Test
    void coordinatesFromAWarmupPacketReplaceALookupResultAndAStaleOneLeavesNoRoute() {
        final Simulator sim = runA(7);
        final Simulator.Node s = sim.nodes().get(SRC);
        final Simulator.Node d = sim.nodes().get(DST);
        final MeshControl m = s.mesh();
        final Coords fresh = lookUp(sim, s, d);
        assertNotNull(m.nextHop(d.addr(), sim.loop().now()));

        // d's reply carries CP coordinates of a moment when d's tree had another root (run A: d under g from
        // 05:22:42.2 to 05:22:44.8). The destination caches the source coordinates of CP (§5.1), as every hop does.
        final Coords stale = Coords.of(d.addr(), sim.nodes().get(G).addr());
        assertNotEquals(m.root(), stale.root(), "a root that is not s's");
        final long now = sim.loop().now();
        m.onRoutingEvent(new DataPlaneEvent.CoordsObserved(d.addr(), stale, s.addr(), m.coords()), now);
        assertEquals(stale, m.cachedCoords(d.addr(), now), "the warm-up coordinates replaced the lookup result");
        assertNull(m.nextHop(d.addr(), now), "coordinates under another root: no peer is closer, no route");

        // The next lookup repairs it, until the next stale warm-up packet: run A's cycle, five times (one per
        // warm-up packet of d), 22 s in all.
        assertEquals(fresh, lookUp(sim, s, d));
        assertNotNull(m.nextHop(d.addr(), sim.loop().now()));
        final Coords current = d.mesh().coords();
        m.onRoutingEvent(new DataPlaneEvent.CoordsObserved(d.addr(), current, s.addr(), m.coords()),
                sim.loop().now());
        assertNotNull(m.nextHop(d.addr(), sim.loop().now()), "warm-up coordinates read when sent keep the route");
    }
}
