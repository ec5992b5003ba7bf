package net.fips.control.tree;

import static net.fips.control.tree.TreeHarness.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@code evaluate_parent} and the switch machinery (routing-session §1.4), as the reference's {@code tree/tests.rs}
 * pins them. Ranks are address order: rank 0 is the smallest address; ranks not added as peers are only ancestors.
 */
class ParentSelectionTest {
    /** The reference's unit-test defaults: no hold-down, no hysteresis. */
    private static final TreeConfig BARE = TreeConfig.defaults().withHoldDownNanos(0).withParentHysteresis(0);

    @Test
    void smallestRootWinsOverShallowerLargerRoot() {
        final TreeHarness h = new TreeHarness(6, 1, 5, BARE);
        h.add(3, 4);
        h.receive(4, 1); // 4 is a root at depth 0
        assertEquals(h.addr(4), h.tree.parent());
        h.receive(3, 1, h.path(1, 0)); // deeper, but rooted at 0
        assertEquals(h.addr(3), h.tree.parent());
        assertEquals(h.addr(0), h.tree.root());
        assertEquals(3, h.tree.depth());
        assertEquals(List.of(h.addr(5), h.addr(3), h.addr(1), h.addr(0)), h.tree.coordAddrs());
    }

    @Test
    void shallowestCandidateWinsAndTieBreaksBySmallestAddress() {
        final TreeHarness h = new TreeHarness(6, 2, 5, BARE);
        h.add(0, 2, 3, 4);
        h.receive(4, 1, h.path(1, 0));
        h.receive(3, 1, h.path(0));
        assertEquals(h.addr(3), h.tree.parent(), "shallower wins");
        h.receive(2, 1, h.path(0)); // same depth as 3, smaller address: equal is no improvement, stay
        assertEquals(h.addr(3), h.tree.parent());
        h.receive(0, 1); // the root itself
        assertEquals(h.addr(0), h.tree.parent());
        h.tree.removePeer(h.addr(0), h.now); // now 2 and 3 tie at depth 1: the smaller address wins
        assertEquals(h.addr(2), h.tree.parent());
        assertEquals(2, h.tree.depth());
    }

    @Test
    void staysRootWhenItIsTheSmallest() {
        final TreeHarness h = new TreeHarness(4, 3, 0, BARE);
        h.add(1, 2);
        final long seq = h.tree.sequence();
        h.receive(1, 1);
        h.receive(2, 1, h.path(1));
        assertTrue(h.tree.isRoot());
        assertEquals(seq, h.tree.sequence(), "no declaration change");
        assertNull(h.tree.evaluateParent(h.now));
    }

    @Test
    void noPeersNoChange() {
        final TreeHarness h = new TreeHarness(3, 4, 2, BARE);
        assertNull(h.tree.evaluateParent(h.now));
        assertTrue(h.tree.isRoot());
        assertEquals(0, h.tree.depth());
    }

    @Test
    void candidateWhoseAncestryContainsUsIsRejected() {
        final TreeHarness h = new TreeHarness(6, 5, 4, BARE);
        h.add(3, 5);
        h.receive(5, 1, h.path(4, 0)); // claims to reach 0 through us: a loop candidate
        assertTrue(h.tree.isRoot(), "must not adopt a peer whose path runs through us");
        h.receive(3, 1, h.path(1, 2, 0)); // deeper but loop-free
        assertEquals(h.addr(3), h.tree.parent());
    }

    @Test
    void parentWhoseNewAncestryContainsUsIsALoopAndIsDropped() {
        final TreeHarness h = new TreeHarness(6, 6, 5, BARE);
        h.add(3, 4);
        h.receive(3, 1, h.path(0));
        assertEquals(h.addr(3), h.tree.parent());
        final long seq = h.tree.sequence();
        h.sent.clear();
        h.advance(S);
        h.receive(3, 2, h.path(5, 0)); // parent now routes through us
        assertEquals(1, h.tree.counter(TreeCounter.LOOP_DETECTED));
        assertTrue(h.tree.isRoot(), "no loop-free alternative: self-root");
        assertEquals(seq + 1, h.tree.sequence());
        assertEquals(List.of(h.addr(3), h.addr(4)), h.sentTo(), "announced to all");
        assertTrue(h.invalidateVia > 0 && h.invalidateOtherRoots > 0);
    }

    @Test
    void cheaperDeeperParentBeatsExpensiveShallowOne() {
        final TreeHarness h = new TreeHarness(6, 7, 5, BARE);
        h.add(3, 4);
        h.tree.onLinkCost(h.addr(3), 3.0, h.now);
        h.tree.onLinkCost(h.addr(4), 1.0, h.now);
        h.receive(3, 1, h.path(0)); // effective depth 1 + 3.0 = 4.0
        h.receive(4, 1, h.path(1, 0)); // effective depth 2 + 1.0 = 3.0
        assertEquals(h.addr(4), h.tree.parent());
    }

    @Test
    void equalCostReducesToDepthAndTieBreaksByAddress() {
        final TreeHarness h = new TreeHarness(6, 8, 5, BARE);
        h.add(0, 3, 4);
        for (final int r : new int[] {0, 3, 4}) {
            h.tree.onLinkCost(h.addr(r), 1.5, h.now);
        }
        h.receive(0, 1);
        h.receive(4, 1, h.path(0));
        h.receive(3, 1, h.path(0));
        assertEquals(h.addr(0), h.tree.parent());
        h.tree.removePeer(h.addr(0), h.now);
        assertEquals(h.addr(3), h.tree.parent());
    }

    @Test
    void coldStartUsesDefaultCostButAnUnmeasuredPeerCannotBeatMeasuredOnes() {
        final TreeHarness h = new TreeHarness(6, 9, 5, BARE);
        h.add(3, 4);
        h.receive(4, 1, h.path(1, 0)); // cold start: nobody measured, cost 1.0
        assertEquals(h.addr(4), h.tree.parent());
        h.tree.onLinkCost(h.addr(4), 2.0, h.now); // first RTT sample of 4: re-evaluates, still the only measured
        h.receive(3, 1, h.path(0)); // shallower but unmeasured: skipped
        assertEquals(h.addr(4), h.tree.parent());
        h.tree.onLinkCost(h.addr(3), 1.0, h.now); // first sample of 3 triggers the evaluation at once
        assertEquals(h.addr(3), h.tree.parent());
    }

    @Test
    void hysteresisBlocksMarginalAndAllowsSignificantImprovement() {
        final TreeHarness h = new TreeHarness(6, 10, 5, TreeConfig.defaults().withHoldDownNanos(0));
        h.add(3, 4);
        h.tree.onLinkCost(h.addr(3), 1.0, h.now);
        h.receive(3, 1, h.path(0)); // parent 3, effective 2.0; a rival needs < 1.6
        h.receive(4, 1, h.path(0));
        h.tree.onLinkCost(h.addr(4), 0.7, h.now); // 1.7: marginal
        assertEquals(h.addr(3), h.tree.parent());
        h.tree.onLinkCost(h.addr(4), 0.5, h.now); // 1.5: significant, picked up by the periodic re-evaluation
        assertEquals(h.addr(3), h.tree.parent(), "a cost update alone does not re-evaluate");
        h.advance(S);
        h.tree.tick(h.now);
        assertEquals(h.addr(4), h.tree.parent());
    }

    @Test
    void holdDownSuppressesOptionalSwitchesButNotMandatoryOnes() {
        final TreeHarness h = new TreeHarness(7, 11, 6, TreeConfig.defaults());
        h.add(3, 4, 5);
        h.receive(5, 1, h.path(2, 1)); // root 1 via 5 (depth 2)
        assertEquals(h.addr(5), h.tree.parent());
        h.advance(5 * S);
        h.receive(4, 1, h.path(1)); // same root, much better, but within the 30 s hold-down
        assertEquals(h.addr(5), h.tree.parent());
        assertEquals(h.addr(4), h.tree.evaluateParent(h.now + 26 * S), "allowed once hold-down expired");
        h.receive(3, 1, h.path(2, 0)); // smaller root: mandatory, bypasses hold-down
        assertEquals(h.addr(3), h.tree.parent());
        assertEquals(h.addr(0), h.tree.root());
    }

    @Test
    void aParentThatMovesToALargerRootIsLeftAtOnceForAPeerAtTheSmallerRoot() {
        // Seen in tests/netns/chaos.sh: a restarted transit had taken a deep parent (the only peer measured yet),
        // was held down on it, and when that parent lost its own way to the root and became a root itself, the
        // transit followed it to the larger root although its other peer was the root (ADR 0026).
        final TreeHarness h = new TreeHarness(6, 13, 4, TreeConfig.defaults());
        h.add(0, 3);
        h.receive(3, 1, h.path(2, 0)); // root 0 via 3 (depth 2)
        assertEquals(h.addr(3), h.tree.parent());
        h.advance(5 * S);
        h.receive(0, 1); // 0 itself: better, same root, but within the 30 s hold-down
        assertEquals(h.addr(3), h.tree.parent());
        h.advance(S);
        h.receive(3, 2); // 3 lost its way to 0 and declares itself root: larger than peer 0's root
        assertEquals(h.addr(0), h.tree.parent(), "left the parent for the peer at the smaller root");
        assertEquals(h.addr(0), h.tree.root());
        assertEquals(1, h.tree.depth());
    }

    @Test
    void sameParentRefreshRestartsTheHoldDownClock() {
        final TreeHarness h = new TreeHarness(6, 12, 5, TreeConfig.defaults());
        h.add(3, 4);
        h.receive(4, 1, h.path(1, 0));
        h.receive(3, 1, h.path(1, 2, 0));
        assertEquals(h.addr(4), h.tree.parent());
        h.advance(25 * S);
        h.receive(4, 2, h.path(1, 0)); // fresher, identical path: same-parent refresh
        h.receive(3, 2, h.path(0)); // better, but the refresh restarted the hold-down 0 s ago
        assertEquals(h.addr(4), h.tree.parent());
        assertNull(h.tree.evaluateParent(h.now + 29 * S));
        assertEquals(h.addr(3), h.tree.evaluateParent(h.now + 30 * S));
    }

    @Test
    void flapDampeningEngagesAtThresholdAllowsMandatoryExpiresAndNeverReengages() {
        final TreeHarness h = new TreeHarness(7, 13, 6, BARE);
        h.add(3, 4, 5);
        // 4 sits at depth 2 under root 1; 3 alternates between depth 1 and depth 3, forcing a switch each time.
        long seq3 = 1;
        h.receive(3, seq3++, h.path(1)); // switch 1 (from root) -> 3
        h.receive(4, 1, h.path(2, 1));
        assertEquals(h.addr(3), h.tree.parent());
        h.advance(S);
        h.receive(3, seq3++, h.path(2, 5, 1)); // switch 2 -> 4
        assertEquals(h.addr(4), h.tree.parent());
        h.advance(S);
        h.receive(3, seq3++, h.path(1)); // switch 3 -> 3
        assertEquals(h.addr(3), h.tree.parent());
        assertEquals(0, h.tree.counter(TreeCounter.FLAP_DAMPENED));
        h.advance(S);
        h.receive(3, seq3++, h.path(2, 5, 1)); // switch 4 -> 4: threshold reached
        assertEquals(h.addr(4), h.tree.parent());
        assertEquals(1, h.tree.counter(TreeCounter.FLAP_DAMPENED));
        assertTrue(h.tree.isFlapDampenedAt(h.now));
        h.advance(S);
        h.receive(3, seq3++, h.path(1)); // would be switch 5: dampened
        assertEquals(h.addr(4), h.tree.parent());
        h.receive(5, 1, h.path(0)); // smaller root: mandatory, bypasses dampening
        assertEquals(h.addr(5), h.tree.parent());
        assertEquals(h.addr(0), h.tree.root());

        // After 120 s dampening has expired; eight more switches inside one window do not re-engage it (the
        // reference never clears the deadline: dampening engages once per process).
        h.advance(121 * S);
        assertFalse(h.tree.isFlapDampenedAt(h.now));
        h.receive(5, 2, h.path(2, 0)); // parent 5 moves to depth 2 (same-parent refresh, no flap)
        long seq4 = 2;
        for (int i = 0; i < 4; i++) {
            h.advance(S);
            h.receive(4, seq4++, h.path(0)); // -> 4
            assertEquals(h.addr(4), h.tree.parent());
            h.advance(S);
            h.receive(4, seq4++, h.path(2, 1, 0)); // -> 5
            assertEquals(h.addr(5), h.tree.parent());
        }
        assertEquals(1, h.tree.counter(TreeCounter.FLAP_DAMPENED));
        assertFalse(h.tree.isFlapDampenedAt(h.now));
    }

    @Test
    void flapBelowThresholdAndSameParentRefreshesDoNotDampen() {
        final TreeHarness h = new TreeHarness(6, 14, 5, BARE);
        h.add(3, 4);
        h.receive(3, 1, h.path(1)); // 1
        h.receive(4, 1, h.path(1));
        h.receive(3, 2, h.path(2, 1)); // 2 -> 4
        h.receive(3, 3, h.path(1)); // 3 -> 3
        for (long s = 4; s < 20; s++) {
            h.receive(3, s, h.path(1)); // same-parent refreshes: not flaps
        }
        assertEquals(0, h.tree.counter(TreeCounter.FLAP_DAMPENED));
        // A new window: three more switches after 61 s do not reach 4 inside one window.
        h.advance(61 * S);
        h.receive(3, 30, h.path(2, 1)); // window restarts at 1
        h.receive(3, 31, h.path(1)); // 2
        h.receive(3, 32, h.path(2, 1)); // 3
        assertEquals(0, h.tree.counter(TreeCounter.FLAP_DAMPENED));
    }

    @Test
    void parentLossPicksAnAlternativeOrBecomesRoot() {
        final TreeHarness h = new TreeHarness(6, 15, 3, BARE);
        h.add(4, 5);
        h.receive(4, 1, h.path(0));
        h.receive(5, 1, h.path(2));
        assertEquals(h.addr(4), h.tree.parent());
        final long seq = h.tree.sequence();
        assertTrue(h.tree.removePeer(h.addr(4), h.now));
        assertEquals(h.addr(5), h.tree.parent(), "alternative with root 2");
        assertEquals(seq + 1, h.tree.sequence());
        assertEquals(1, h.tree.counter(TreeCounter.PARENT_LOSSES));
        // Losing a non-parent changes nothing.
        final TreeHarness h2 = new TreeHarness(6, 15, 1, BARE);
        h2.add(4, 5);
        h2.receive(4, 1, h2.path(0));
        h2.receive(5, 1, h2.path(2)); // root 2 > us (rank 1): when 4 goes, we are the smallest
        assertEquals(h2.addr(4), h2.tree.parent());
        assertTrue(h2.tree.removePeer(h2.addr(4), h2.now));
        assertTrue(h2.tree.isRoot(), "smaller than every remaining root: self-root");
        assertFalse(h2.tree.removePeer(h2.addr(5), h2.now));
        assertTrue(h2.tree.removePeer(h2.addr(4), h2.now) == false);
    }

    @Test
    void parentLossMarksEveryRemainingPeerPendingForTheNextTick() {
        final TreeHarness h = new TreeHarness(6, 16, 5, BARE);
        h.add(2, 3, 4);
        h.receive(2, 1, h.path(0));
        h.sent.clear();
        h.tree.removePeer(h.addr(2), h.now);
        assertTrue(h.sent.isEmpty(), "sent from the tick, not inline");
        h.advance(S);
        h.tree.tick(h.now);
        assertEquals(List.of(h.addr(3), h.addr(4)), h.sentTo());
    }

    @Test
    void neverAnnouncesAPathWhoseRootIsNotTheMinimum() {
        final TreeHarness h = new TreeHarness(6, 17, 1, BARE);
        h.add(3, 4);
        h.receive(3, 1, h.path(0));
        assertEquals(h.addr(3), h.tree.parent());
        h.advance(S);
        h.receive(3, 2, h.path(2)); // parent's root is now 2, larger than us
        assertTrue(h.tree.isRoot(), "we are the smallest visible address");
        h.advance(S);
        h.receive(4, 1, h.path(2));
        h.tree.tick(h.now + 100 * S);
        for (final TreeHarness.Sent s : h.sent) {
            assertTrue(s.announce().semanticViolation().isEmpty(), () -> "invalid path sent: " + s.announce());
        }
        assertTrue(h.tree.ownAnnounce().semanticViolation().isEmpty());
    }

    @Test
    void costDegradationOfTheParentSwitchesOnThePeriodicReevaluation() {
        final TreeHarness h = new TreeHarness(6, 18, 5, TreeConfig.defaults());
        h.add(1, 2);
        h.tree.onLinkCost(h.addr(1), 1.05, h.now);
        h.tree.onLinkCost(h.addr(2), 1.08, h.now);
        h.receive(1, 1, h.path(0));
        h.receive(2, 1, h.path(0));
        assertEquals(h.addr(1), h.tree.parent());
        h.advance(S);
        h.tree.tick(h.now); // first periodic round: stable
        assertEquals(h.addr(1), h.tree.parent());
        h.tree.onLinkCost(h.addr(1), 1.9, h.now); // 2.08 < 2.9 * 0.8: worth a switch, on the next periodic round
        h.advance(59 * S);
        h.tree.tick(h.now);
        assertEquals(h.addr(1), h.tree.parent(), "still inside the 60 s cadence");
        h.advance(S);
        h.tree.tick(h.now);
        assertEquals(h.addr(2), h.tree.parent(), "degraded parent replaced (LoRa-like cost)");
    }

    @Test
    void improvementWithinHysteresisDoesNotSwitch() {
        final TreeHarness h = new TreeHarness(6, 19, 5, TreeConfig.defaults().withHoldDownNanos(0));
        h.add(1, 2);
        h.tree.onLinkCost(h.addr(1), 2.0, h.now);
        h.tree.onLinkCost(h.addr(2), 1.5, h.now);
        h.receive(1, 1, h.path(0)); // only 1 is known: adopt
        h.receive(2, 1, h.path(0)); // 2.5 vs 3.0 * 0.8 = 2.4: no
        assertEquals(h.addr(1), h.tree.parent());
        h.advance(S);
        h.tree.tick(h.now);
        assertEquals(h.addr(1), h.tree.parent());
    }

    @Test
    void bottleneckParentIsLeftForACheapLink() {
        // The reference's heterogeneous 7-node case from node 5's view: LoRa peer 2 (cost 6.0) vs fiber peer 1.
        final TreeHarness h = new TreeHarness(6, 20, 5, TreeConfig.defaults().withHoldDownNanos(0));
        h.add(1, 2);
        h.receive(2, 1, h.path(0)); // cold start: adopt 2
        h.receive(1, 1, h.path(0));
        assertEquals(h.addr(2), h.tree.parent());
        h.tree.onLinkCost(h.addr(2), 6.0, h.now); // first sample: 2 is the only measured peer
        assertEquals(h.addr(2), h.tree.parent());
        h.tree.onLinkCost(h.addr(1), 1.01, h.now); // 2.01 < 7.0 * 0.8: switch at once (first sample)
        assertEquals(h.addr(1), h.tree.parent());
    }

    @Test
    void singlePeerHasNoAlternativeWhateverItsCost() {
        final TreeHarness h = new TreeHarness(3, 21, 2, TreeConfig.defaults().withHoldDownNanos(0));
        h.add(1);
        h.tree.onLinkCost(h.addr(1), 1.05, h.now);
        h.receive(1, 1, h.path(0));
        h.tree.onLinkCost(h.addr(1), 50.0, h.now);
        assertNull(h.tree.evaluateParent(h.now + 100 * S));
        assertEquals(h.addr(1), h.tree.parent());
    }
}
