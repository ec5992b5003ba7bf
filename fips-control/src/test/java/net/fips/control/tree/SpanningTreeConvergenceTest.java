package net.fips.control.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.bloom.BloomConfig;
import net.fips.dataplane.wire.NodeAddr;

/** The reference's {@code spanning_tree.rs} convergence scenarios, over {@link TreeMesh} with real signatures. */
class SpanningTreeConvergenceTest {

    @Test
    void chainOfFiveConverges() {
        final TreeMesh m = TreeMesh.real(5, 1).connectAll(TreeMesh.chain(5));
        m.ticks(3);
        m.assertConverged();
    }

    @Test
    void ringOfFiveConverges() {
        final TreeMesh m = TreeMesh.real(5, 2).connectAll(new int[][] {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
        m.ticks(3);
        m.assertConverged();
    }

    @Test
    void starOfFiveConverges() {
        // Hub is node 0 whatever its address; spokes only see the hub.
        final TreeMesh m = TreeMesh.real(5, 3).connectAll(new int[][] {{0, 1}, {0, 2}, {0, 3}, {0, 4}});
        m.ticks(3);
        m.assertConverged();
        final NodeAddr min = m.components().getFirst().stream().map(i -> m.node(i).addr).min(NodeAddr::compareTo)
                .orElseThrow();
        for (int i = 1; i < 5; i++) {
            if (!m.node(i).addr.equals(min)) {
                assertTrue(m.node(i).tree.depth() <= 2);
            }
        }
    }

    @Test
    void chainBuiltFromTheFarEndConvergesToTheExactPath() {
        // Each hop that changes its mind inside the 500 ms limiter window waits for the next tick.
        final TreeMesh m = TreeMesh.realSorted(4, 4);
        m.connectAll(new int[][] {{3, 2}, {2, 1}, {1, 0}});
        m.ticks(4);
        m.assertConverged();
        assertEquals(List.of(m.node(3).addr, m.node(2).addr, m.node(1).addr, m.node(0).addr),
                m.node(3).tree.coordAddrs());
    }

    @Test
    void hundredNodesWith250EdgesConverge() {
        // Real BIP-340 signatures: measured at about 2.5 s on the build VM, so no fake signer is needed.
        final TreeMesh m = new TreeMesh(100, 42, false, TreeConfig.defaults(), BloomConfig.defaults());
        m.connectAll(TreeMesh.randomEdges(100, 250, 42));
        m.ticks(20);
        assertEquals(1, m.components().size());
        m.assertConverged();
        // Every node's filters reach everyone: the root's inbound union covers the mesh.
        for (int i = 0; i < 100; i++) {
            final TreeMesh.Node n = m.node(i);
            for (int j = 0; j < 100; j++) {
                final NodeAddr dest = m.node(j).addr;
                if (i == j) {
                    continue;
                }
                boolean reach = false;
                for (final NodeAddr p : n.tree.peers()) {
                    reach |= n.bloom.mayReach(p, dest);
                }
                final int fi = i;
                assertTrue(reach, () -> m.node(fi) + " has no filter reaching " + dest);
            }
        }
    }

    @Test
    void disconnectedComponentsEachConvergeToTheirOwnMinimum() {
        final TreeMesh m = TreeMesh.real(6, 5).connectAll(new int[][] {{0, 1}, {1, 2}, {3, 4}, {4, 5}});
        m.ticks(3);
        assertEquals(2, m.components().size());
        m.assertConverged();
        assertNotEquals(m.node(0).tree.root(), m.node(3).tree.root());
    }

    @Test
    void chainPartitionThenMergeReconverges() {
        final TreeMesh m = TreeMesh.realSorted(6, 6);
        // Chain 5-4-0-1-2-3 with the minimum (0) in the middle.
        m.connectAll(new int[][] {{5, 4}, {4, 0}, {0, 1}, {1, 2}, {2, 3}});
        m.ticks(2);
        m.assertConverged();
        m.disconnect(0, 1);
        m.ticks(3);
        m.assertConverged();
        // The cut-off side elects its own minimum (1) and no node there still names 0.
        for (int i = 1; i <= 3; i++) {
            assertEquals(m.node(1).addr, m.node(i).tree.root());
        }
        assertEquals(m.node(0).addr, m.node(5).tree.root());
        // Merge through a different edge: 3-5.
        m.connect(3, 5);
        m.deliver();
        m.ticks(3);
        m.assertConverged();
        for (int i = 0; i < 6; i++) {
            assertEquals(m.node(0).addr, m.node(i).tree.root());
        }
    }

    @Test
    void isolatedNodeOfAChainBecomesItsOwnRoot() {
        final TreeMesh m = TreeMesh.realSorted(3, 7).connectAll(TreeMesh.chain(3));
        m.ticks(2);
        m.assertConverged();
        final long seqBefore = m.node(2).tree.sequence();
        m.disconnect(1, 2);
        assertTrue(m.node(2).tree.isRoot());
        assertEquals(seqBefore + 1, m.node(2).tree.sequence());
        assertEquals(1, m.node(2).tree.counter(TreeCounter.PARENT_LOSSES));
        m.ticks(2);
        m.assertConverged();
    }

    @Test
    void starHubDepartingLeavesEverySpokeItsOwnRoot() {
        final TreeMesh m = TreeMesh.realSorted(5, 8);
        // Hub 0 is the minimum and everyone's parent.
        m.connectAll(new int[][] {{0, 1}, {0, 2}, {0, 3}, {0, 4}});
        m.ticks(2);
        m.assertConverged();
        m.isolate(0);
        m.ticks(2);
        for (int i = 1; i < 5; i++) {
            assertTrue(m.node(i).tree.isRoot(), "spoke " + i + " should be root");
            assertEquals(0, m.node(i).tree.depth());
        }
    }

    @Test
    void parentLossReparentsOntoAnAlternative() {
        final TreeMesh m = TreeMesh.realSorted(4, 9);
        // 3 has two ways up: via 1 (its parent, smaller addr) and via 2.
        m.connectAll(new int[][] {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
        m.ticks(2);
        m.assertConverged();
        assertEquals(m.node(1).addr, m.node(3).tree.parent());
        m.disconnect(1, 3);
        assertEquals(m.node(2).addr, m.node(3).tree.parent(), "re-parents at once on loss");
        assertEquals(m.node(0).addr, m.node(3).tree.root());
        m.ticks(2);
        m.assertConverged();
    }

    @Test
    void restartedNodeWithWallClockSeedIsAcceptedAtOnce() {
        final TreeMesh m = TreeMesh.realSorted(3, 10);
        m.connectAll(TreeMesh.chain(3));
        m.ticks(70); // includes a periodic re-evaluation round that bumps sequences
        m.assertConverged();
        final long oldSeq = m.node(1).tree.sequence();
        final long oldFilterSeq = m.node(1).bloom.sequence();
        final long staleBefore = m.node(0).tree.counter(TreeCounter.STALE);
        // Fast restart two seconds later: neighbours still hold the old record and sequence.
        m.restart(1, 2_000);
        m.deliver();
        assertTrue(Long.compareUnsigned(m.node(1).tree.sequence(), oldSeq) > 0,
                "a wall-clock seed starts above the old sequence");
        assertEquals(staleBefore, m.node(0).tree.counter(TreeCounter.STALE),
                "the root must not see the restart as stale");
        m.ticks(2);
        m.assertConverged();
        assertTrue(Long.compareUnsigned(m.node(0).bloom.inboundSequence(m.node(1).addr), oldFilterSeq) > 0,
                "the restarted node's filter is accepted too");
    }

    @Test
    void lostAttachingAnnounceIsHealedByThePeriodicRebroadcast() {
        final TreeMesh m = TreeMesh.realSorted(3, 11);
        m.dropWhen(msg -> msg.isTree() && msg.from() == 0 && msg.to() == 1);
        m.connectAll(new int[][] {{0, 1}, {0, 2}});
        m.ticks(5); // the hub's echo and its first (t = 1 s) re-broadcast are lost as well
        assertTrue(m.node(1).tree.isRoot(), "spoke 1 never heard the hub");
        m.dropWhen(msg -> false);
        m.ticks(54); // t = 59 s: nothing changes anywhere, nothing is sent to the spoke
        assertTrue(m.node(1).tree.isRoot());
        m.ticks(3); // t = 61 s: the hub (two peers) re-broadcasts its unchanged announce
        m.assertConverged();
        assertEquals(m.node(0).addr, m.node(1).tree.parent());
    }
}
