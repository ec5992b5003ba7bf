package net.fips.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.discovery.DiscoveryListener;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/**
 * The reference's own routing scenarios (routing-session.md §8.1: spanning_tree.rs, routing.rs, disconnect.rs,
 * discovery.rs) run on the simulator, i.e. on the real {@link MeshControl} of every node over in-memory links on a
 * virtual clock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimulatorTest {
    private static final long S = Simulator.SECOND;
    private static final long MS = Simulator.MS;

    private static Simulator converged(final Topology t, final long seed) {
        final Simulator sim = new Simulator(t, Simulator.Config.defaults(seed), MeshSettings.defaults());
        sim.linkAll();
        final long took = sim.runUntilConverged(120 * S, 100 * MS);
        assertTrue(took >= 0, "did not converge in 120 s of simulated time");
        return sim;
    }

    private static NodeAddr minAddr(final Simulator sim, final List<Integer> members) {
        NodeAddr min = null;
        for (final int i : members) {
            final NodeAddr a = sim.nodes().get(i).addr();
            min = min == null || a.compareTo(min) < 0 ? a : min;
        }
        return min;
    }

    private static List<Integer> all(final Simulator sim) {
        final List<Integer> l = new ArrayList<>();
        for (int i = 0; i < sim.nodes().size(); i++) {
            l.add(i);
        }
        return l;
    }

    /** Every node: root = the minimum address, parent a live peer one level up (the reference's check). */
    private static void assertTree(final Simulator sim, final List<Integer> members) {
        final NodeAddr min = minAddr(sim, members);
        final Map<NodeAddr, Simulator.Node> byAddr = new HashMap<>();
        sim.nodes().forEach(n -> byAddr.put(n.addr(), n));
        int roots = 0;
        for (final int i : members) {
            final MeshControl m = sim.nodes().get(i).mesh();
            assertEquals(min, m.root(), "node " + i + " root");
            if (m.isRoot()) {
                roots++;
                assertEquals(0, m.depth());
            } else {
                final Simulator.Node p = byAddr.get(m.parent());
                assertNotNull(p, "node " + i + " parent is a node");
                assertTrue(sim.isUp(i, p.index()), "node " + i + " parent is a live peer");
                assertEquals(p.mesh().depth() + 1, m.depth(), "node " + i + " depth");
                // The coordinate is the parent's with ourselves in front.
                assertEquals(p.mesh().coords().addrs(), m.coords().addrs().subList(1, m.coords().size()));
            }
        }
        assertEquals(1, roots, "one root");
    }

    @Test
    void hundredNodeRandomGraphConverges() {
        final Simulator sim = converged(Topology.randomConnected(100, 250, new Random(11)), 11);
        assertTree(sim, all(sim));
    }

    @Test
    void ringStarAndChainConverge() {
        for (final Topology t : List.of(Topology.ring(20), Topology.star(20), Topology.chain(20))) {
            final Simulator sim = converged(t, 5);
            assertTree(sim, all(sim));
        }
    }

    @Test
    void disconnectedComponentsEachElectTheirOwnRoot() {
        final Topology t = new Topology(12);
        for (int i = 1; i < 6; i++) {
            t.addEdge(i - 1, i);
        }
        for (int i = 7; i < 12; i++) {
            t.addEdge(i - 1, i);
        }
        final Simulator sim = converged(t, 3);
        assertTree(sim, List.of(0, 1, 2, 3, 4, 5));
        assertTree(sim, List.of(6, 7, 8, 9, 10, 11));
        assertNotEquals(sim.nodes().get(0).mesh().root(), sim.nodes().get(6).mesh().root());
    }

    @Test
    void allPairsAreReachableWithoutLoopsOnAHundredNodesWithFullCaches() {
        final Simulator sim = converged(Topology.randomConnected(100, 250, new Random(21)), 21);
        final long now = sim.loop().now();
        // Full coordinate caches, as the reference's reachability_100_nodes test sets them up.
        for (final Simulator.Node n : sim.nodes()) {
            for (final Simulator.Node other : sim.nodes()) {
                if (n != other) {
                    n.mesh().warm(other.addr(), other.mesh().coords(), now);
                }
            }
        }
        final Map<NodeAddr, Simulator.Node> byAddr = new HashMap<>();
        sim.nodes().forEach(n -> byAddr.put(n.addr(), n));
        final int[][] adj = sim.liveAdjacency();
        int pairs = 0;
        double stretch = 0;
        for (final Simulator.Node src : sim.nodes()) {
            final int[] shortest = Topology.hops(adj, src.index());
            for (final Simulator.Node dst : sim.nodes()) {
                if (src == dst) {
                    continue;
                }
                Simulator.Node at = src;
                int hops = 0;
                final Set<Integer> seen = new HashSet<>();
                while (at != dst) {
                    assertTrue(seen.add(at.index()), "loop routing " + src.index() + " -> " + dst.index());
                    final NodeAddr next = at.mesh().nextHop(dst.addr(), now);
                    assertNotNull(next, "no route at " + at.index() + " for " + src.index() + " -> " + dst.index());
                    final Simulator.Node n = byAddr.get(next);
                    assertTrue(sim.isUp(at.index(), n.index()), "next hop is a live peer");
                    at = n;
                    hops++;
                }
                assertTrue(hops <= 64, "within the default TTL");
                stretch += (double) hops / shortest[dst.index()];
                pairs++;
            }
        }
        assertEquals(9900, pairs);
        assertTrue(stretch / pairs < 3.0, "mean stretch " + stretch / pairs);
    }

    @Test
    void parentLossReparentsThroughAnotherPeer() {
        final Simulator sim = converged(Topology.randomConnected(60, 150, new Random(31)), 31);
        // A node with at least two peers whose parent is not the root's only link.
        Simulator.Node victim = null;
        for (final Simulator.Node n : sim.nodes()) {
            if (!n.mesh().isRoot() && sim.liveAdjacency()[n.index()].length >= 3) {
                victim = n;
                break;
            }
        }
        assertNotNull(victim);
        final NodeAddr oldParent = victim.mesh().parent();
        final Simulator.Node p = sim.nodes().stream().filter(n -> n.addr().equals(oldParent)).findFirst()
                .orElseThrow();
        sim.linkDown(victim.index(), p.index());
        assertTrue(sim.runUntilConverged(120 * S, 100 * MS) >= 0, "re-converged");
        assertNotEquals(oldParent, victim.mesh().parent(), "a new parent");
        assertTree(sim, all(sim));
    }

    @Test
    void chainPartitionSplitsTheTreeAndHealingMergesIt() {
        final Simulator sim = converged(Topology.chain(10), 41);
        sim.linkDown(4, 5);
        assertTrue(sim.runUntilConverged(120 * S, 100 * MS) >= 0, "both halves converged");
        assertTree(sim, List.of(0, 1, 2, 3, 4));
        assertTree(sim, List.of(5, 6, 7, 8, 9));
        // The bloom filters stop bridging the cut: the left end no longer claims the right end.
        final Simulator.Node left = sim.nodes().get(4);
        assertTrue(left.mesh().bloomRouting().peers().stream().noneMatch(
                peer -> left.mesh().bloomRouting().mayReach(peer, sim.nodes().get(9).addr())));
        sim.linkUp(4, 5);
        assertTrue(sim.runUntilConverged(120 * S, 100 * MS) >= 0, "merged");
        assertTree(sim, all(sim));
    }

    @Test
    void lookupRetriesAtOneThreeAndSevenSecondsThenGivesUpAtFifteen() {
        final Simulator sim = converged(Topology.chain(4), 51);
        final Simulator.Node src = sim.nodes().get(0);
        final Simulator.Node target = sim.nodes().get(3);
        // The target hangs: its links stay up and the filters still point at it, but it never answers.
        sim.setAlive(3, false);
        final List<long[]> requests = new ArrayList<>();
        sim.tap((from, to, msg, now) -> {
            if (from == src && (msg[0] & 0xFF) == 0x30) {
                final WireResult<LookupRequest> r = LookupRequest.decode(msg, 0, msg.length);
                if (r instanceof WireResult.Ok<LookupRequest>(final LookupRequest lr)) {
                    requests.add(new long[] {now, lr.requestId()});
                }
            }
        });
        final long[] unreachableAt = {-1};
        src.mesh().setDiscoveryListener(new DiscoveryListener() {
            @Override
            public void onUnreachable(final NodeAddr t, final long nowNanos) {
                unreachableAt[0] = nowNanos;
            }
        });
        final long start = sim.loop().now();
        src.mesh().learnIdentity(target.peer(), start);
        src.mesh().lookup(target.addr(), start);
        sim.run(20 * S);
        assertEquals(4, requests.size(), "first attempt and three retries");
        assertEquals(4, requests.stream().mapToLong(r -> r[1]).distinct().count(), "fresh request ids");
        // Retries happen on the 1 s tick once 1, 2 and 4 s have passed since the previous attempt.
        final double[] expected = {0, 1, 3, 7};
        for (int i = 0; i < 4; i++) {
            final double at = (requests.get(i)[0] - start) / 1e9;
            assertTrue(at >= expected[i] && at < expected[i] + 1.0, "attempt " + (i + 1) + " at " + at + " s");
        }
        final double gaveUp = (unreachableAt[0] - start) / 1e9;
        assertTrue(gaveUp >= 15 && gaveUp < 16, "unreachable at " + gaveUp + " s");
        assertEquals(null, src.mesh().cachedCoords(target.addr(), sim.loop().now()));
    }

    @Test
    void lookupsFindEveryTargetAndRouteToIt() {
        final Simulator sim = converged(Topology.randomConnected(150, 300, new Random(61)), 61);
        final List<int[]> pairs = sim.randomPairs(40);
        final List<Simulator.Route> routes = sim.lookupAndRoute(pairs, 20 * S);
        for (final Simulator.Route r : routes) {
            assertTrue(r.ok(), r.src() + " -> " + r.dst() + ": " + r.failure());
            assertTrue(r.hops() >= r.shortest());
        }
        // Proofs were verified: the source's cached coordinate is the target's own.
        final int[] p = pairs.getFirst();
        final Coords cached = sim.nodes().get(p[0]).mesh().cachedCoords(sim.nodes().get(p[1]).addr(),
                sim.loop().now());
        assertEquals(sim.nodes().get(p[1]).mesh().coords(), cached);
    }

    /**
     * Every node reaches every other through the filters of its tree peers once converged. Fails without the
     * re-marking on a change of the tree-peer set ({@code MeshControl}): at 300 nodes a child's FilterAnnounce
     * overtakes its rate-limited TreeAnnounce often enough that whole subtrees stay missing upstream.
     */
    @Test
    void convergedFiltersCoverEveryNodeThroughTreePeers() {
        final Simulator sim = converged(Topology.randomWithDegree(300, 4, new Random(1 ^ 0x5DEECE66DL)), 1);
        int missing = 0;
        for (final Simulator.Node x : sim.nodes()) {
            final var bloom = x.mesh().bloomRouting();
            for (final Simulator.Node y : sim.nodes()) {
                if (x == y) {
                    continue;
                }
                boolean reached = false;
                for (final NodeAddr p : bloom.peers()) {
                    if (x.mesh().tree().isTreePeer(p) && bloom.mayReach(p, y.addr())) {
                        reached = true;
                        break;
                    }
                }
                missing += reached ? 0 : 1;
            }
        }
        assertEquals(0, missing, "node pairs whose target no tree peer's filter claims");
    }

    @Test
    void aRunIsDeterministicForItsSeed() {
        final long[] a = summary(71);
        final long[] b = summary(71);
        assertEquals(a[0], b[0], "convergence time");
        assertEquals(a[1], b[1], "messages");
    }

    private static long[] summary(final long seed) {
        final Simulator sim = new Simulator(Topology.randomConnected(40, 80, new Random(seed)),
                Simulator.Config.defaults(seed), MeshSettings.defaults());
        sim.linkAll();
        final long took = sim.runUntilConverged(120 * S, 100 * MS);
        return new long[] {took, sim.messagesSent()};
    }

    @Test
    void theLauncherEndsWithOneSummaryLine() {
        final FipsSim.Args args = FipsSim.parse(new String[] {"--nodes", "30", "--degree", "3", "--seed", "4",
            "--scenario", "partition", "--lookups", "10"});
        final FipsSim.Result r = FipsSim.run(args, null);
        assertTrue(r.ok(), r.summary());
        assertTrue(r.summary().matches("sim: nodes=30 links=45 converged_sim_s=\\d+\\.\\d wall_s=\\d+\\.\\d"
                + " lookups_ok=10/10 mean_stretch=\\d+\\.\\d{3}"), r.summary());
    }
}
