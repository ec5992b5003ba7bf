package net.fips.control.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.tree.TreeMesh;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.control.tree.TreeConfig;

/** The reference's {@code node/tests/bloom.rs} and {@code disconnect.rs} bloom scenarios over {@link TreeMesh}. */
class BloomMeshTest {

    private static BloomFilter filterOf(final TreeMesh m, final Set<Integer> nodes) {
        final BloomFilter f = BloomFilter.create();
        for (final int i : nodes) {
            f.insert(m.node(i).addr);
        }
        return f;
    }

    /** What node {@code at} holds from {@code from}. */
    private static BloomFilter held(final TreeMesh m, final int at, final int from) {
        return m.node(at).bloom.inboundFilter(m.node(from).addr);
    }

    private static void assertEveryoneReachable(final TreeMesh m, final int at) {
        final TreeMesh.Node n = m.node(at);
        for (int j = 0; j < m.size(); j++) {
            if (j == at) {
                continue;
            }
            boolean reach = false;
            for (final NodeAddr p : n.tree.peers()) {
                reach |= n.bloom.mayReach(p, m.node(j).addr);
            }
            final int fj = j;
            assertTrue(reach, () -> n + " cannot reach " + m.node(fj));
        }
    }

    @Test
    void splitHorizonOnASevenNodeTreeGivesExactFiltersPerEdge() {
        // 0 (smallest) is the root: 0-{1,2}, 1-{3,4}, 2-{5,6}; plus a mesh link 3-5 that is not a tree edge.
        final TreeMesh m = TreeMesh.realSorted(7, 21);
        m.connectAll(new int[][] {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}, {3, 5}});
        m.ticks(10);
        m.assertConverged();
        assertEquals(m.node(1).addr, m.node(3).tree.parent());
        assertEquals(m.node(2).addr, m.node(5).tree.parent());
        final int[][] treeEdges = {{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 2}, {6, 2}};
        final Set<Integer> all = Set.of(0, 1, 2, 3, 4, 5, 6);
        final List<Set<Integer>> subtree = List.of(all, Set.of(1, 3, 4), Set.of(2, 5, 6), Set.of(3), Set.of(4),
                Set.of(5), Set.of(6));
        for (final int[] e : treeEdges) {
            final int child = e[0];
            final int parent = e[1];
            // Upward: exactly the child's subtree (bit-exact).
            assertEquals(filterOf(m, subtree.get(child)), held(m, parent, child), "up " + child + "->" + parent);
            // Downward: everything except the child's subtree.
            final Set<Integer> rest = new HashSet<>(all);
            rest.removeAll(subtree.get(child));
            assertEquals(filterOf(m, rest), held(m, child, parent), "down " + parent + "->" + child);
        }
        // Over the mesh link each side sends everything it knows via the tree, and never merges the other's.
        assertEquals(filterOf(m, all), held(m, 5, 3));
        assertEquals(filterOf(m, all), held(m, 3, 5));
        // 5 does not merge 3's filter into what it sends up: its parent still gets exactly {5}.
        assertEquals(filterOf(m, Set.of(5)), held(m, 2, 5));
        // Cardinalities match the set sizes.
        assertEquals(3.0, held(m, 0, 1).estimatedCount(0.2), 0.1);
        assertEquals(6.0, held(m, 3, 1).estimatedCount(0.2), 0.1);
        for (int i = 0; i < 7; i++) {
            assertEveryoneReachable(m, i);
        }
    }

    @Test
    void starHubSeesEverySpoke() {
        final TreeMesh m = TreeMesh.real(6, 22).connectAll(new int[][] {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}});
        m.ticks(8);
        m.assertConverged();
        assertEveryoneReachable(m, 0);
        for (int i = 1; i < 6; i++) {
            assertEveryoneReachable(m, i);
        }
    }

    @Test
    void chainPropagationReachesBothEnds() {
        final TreeMesh m = TreeMesh.real(8, 23).connectAll(TreeMesh.chain(8));
        m.ticks(20);
        m.assertConverged();
        assertEveryoneReachable(m, 0);
        assertEveryoneReachable(m, 7);
    }

    @Test
    void ringOfFiveAndTenNodeMeshReachEveryone() {
        final TreeMesh ring = TreeMesh.real(5, 24).connectAll(new int[][] {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
        ring.ticks(10);
        for (int i = 0; i < 5; i++) {
            assertEveryoneReachable(ring, i);
        }
        final TreeMesh ten = TreeMesh.real(10, 25).connectAll(TreeMesh.randomEdges(10, 18, 25));
        ten.ticks(12);
        ten.assertConverged();
        for (int i = 0; i < 10; i++) {
            assertEveryoneReachable(ten, i);
        }
    }

    @Test
    void noFilterAnnouncesInSteadyState() {
        final TreeMesh m = TreeMesh.real(20, 26).connectAll(TreeMesh.randomEdges(20, 40, 26));
        m.ticks(30);
        m.assertConverged();
        final long filters = m.filterSent();
        final long trees = m.treeSent();
        m.ticks(120); // two periodic re-evaluation rounds with their TreeAnnounce re-broadcasts
        assertEquals(filters, m.filterSent(), "no FilterAnnounce in a converged mesh");
        assertTrue(m.treeSent() > trees, "the periodic TreeAnnounce re-broadcast still runs");
        m.assertConverged();
    }

    @Test
    void chainPartitionStopsBloomBridging() {
        final TreeMesh m = TreeMesh.realSorted(4, 27).connectAll(TreeMesh.chain(4));
        m.ticks(10);
        assertTrue(m.node(0).bloom.mayReach(m.node(1).addr, m.node(3).addr));
        m.disconnect(1, 2);
        m.ticks(5);
        assertFalse(m.node(0).bloom.mayReach(m.node(1).addr, m.node(3).addr), "2-3 are gone from 0's view");
        assertFalse(m.node(0).bloom.mayReach(m.node(1).addr, m.node(2).addr));
        assertFalse(m.node(3).bloom.mayReach(m.node(2).addr, m.node(0).addr));
        assertEquals(filterOf(m, Set.of(1)), held(m, 0, 1));
        assertEquals(filterOf(m, Set.of(2)), held(m, 3, 2));
    }

    @Test
    void hundredNodeMeshEstimatesItsSize() {
        // Fake signatures: the 100-node convergence test already runs this topology size with BIP-340.
        final TreeMesh m = new TreeMesh(100, 28, true, TreeConfig.defaults(),
                BloomConfig.defaults());
        m.connectAll(TreeMesh.randomEdges(100, 250, 28));
        m.ticks(20);
        for (int i = 0; i < 100; i++) {
            final long n = m.node(i).bloom.estimatedMeshSize().orElseThrow();
            assertTrue(n >= 95 && n <= 105, "estimate " + n);
        }
    }
}
