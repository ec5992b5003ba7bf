package net.fips.control.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Fast failover in the spanning tree (ADR 0024): a suspect parent is left at once for another peer, without the
 * link going down; a suspect peer that is not the parent changes nothing; a suspect peer is no candidate until it
 * answers again. Diamond 0-1, 0-2, 1-3, 2-3 with node 0 the smallest address (the root).
 */
class SuspectParentTest {
    private final TreeMesh m = TreeMesh.realSorted(4, 24).connectAll(new int[][] {{0, 1}, {0, 2}, {1, 3}, {2, 3}});

    SuspectParentTest() {
        m.ticks(3);
        m.assertConverged();
    }

    @Test
    void aSuspectParentIsLeftAtOnceForTheOtherPath() {
        final SpanningTree t3 = m.node(3).tree;
        final int parent = t3.parent().equals(m.node(1).addr) ? 1 : 2;
        final int other = 3 - parent;
        final long switches = t3.counter(TreeCounter.PARENT_SWITCHES) + t3.counter(TreeCounter.PARENT_LOSSES);

        assertTrue(t3.setSuspect(m.node(parent).addr, true, m.now()));
        assertEquals(m.node(other).addr, t3.parent(), "re-parented at once, the link still up");
        assertEquals(List.of(m.node(3).addr, m.node(other).addr, m.node(0).addr), t3.coordAddrs());
        assertTrue(t3.hasPeer(m.node(parent).addr), "still a peer");
        m.ticks(3);
        assertEquals(m.node(other).addr, t3.parent(), "the suspect stays no candidate, announces notwithstanding");
        m.assertConverged();

        // Answers again: a candidate once more (whether 3 switches back is the usual parent selection's call).
        t3.setSuspect(m.node(parent).addr, false, m.now());
        m.ticks(3);
        m.assertConverged();
        assertTrue(t3.counter(TreeCounter.PARENT_SWITCHES) + t3.counter(TreeCounter.PARENT_LOSSES) > switches);
    }

    @Test
    void aSuspectPeerThatIsNotTheParentChangesNothing() {
        final SpanningTree t3 = m.node(3).tree;
        final var parent = t3.parent();
        final int other = parent.equals(m.node(1).addr) ? 2 : 1;
        final long seq = t3.sequence();
        assertFalse(t3.setSuspect(m.node(other).addr, true, m.now()));
        assertEquals(parent, t3.parent());
        assertEquals(seq, t3.sequence(), "no new declaration");
        assertFalse(t3.setSuspect(m.node(other).addr, true, m.now()), "already suspect");
    }
}
