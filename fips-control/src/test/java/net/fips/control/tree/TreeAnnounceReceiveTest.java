package net.fips.control.tree;

import static net.fips.control.tree.TreeHarness.MS;
import static net.fips.control.tree.TreeHarness.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;

/** TreeAnnounce receive processing (routing-session §1.3), announce timing (§1.6) and sequences (§1.7). */
class TreeAnnounceReceiveTest {
    private static final TreeConfig BARE = TreeConfig.defaults().withHoldDownNanos(0).withParentHysteresis(0);

    @Test
    void startsAsSignedSelfRootWithWallClockSeededSequence() {
        final TreeHarness h = new TreeHarness(2, 1, 1, TreeConfig.defaults());
        assertTrue(h.tree.isRoot());
        assertEquals(h.wallMillis + h.now / MS, h.tree.sequence(), "sequence = Unix millis at start");
        assertEquals((h.wallMillis + h.now / MS) / 1000, h.tree.timestamp());
        final TreeAnnounce own = h.tree.ownAnnounce();
        assertNotNull(own);
        assertEquals(TreeAnnounce.BASE_SIZE + 32, own.encode().length);
        assertTrue(SchnorrTreeCrypto.verifier().verify(h.ids.get(1).publicKey(), own.signingBytes(),
                own.signature()));
    }

    @Test
    void rejectsEachInvalidKindWithoutStateChange() {
        final TreeHarness h = new TreeHarness(5, 2, 4, BARE);
        h.add(1);
        // Unknown peer.
        assertEquals(TreeAnnounceOutcome.UNKNOWN_PEER, h.receive(2, 1, h.path(0)));
        // Declared by someone else than the link peer.
        assertEquals(TreeAnnounceOutcome.ADDR_MISMATCH,
                h.tree.onTreeAnnounce(h.addr(1), h.announce(2, 1, h.path(0)), h.now));
        // Signed by the wrong key / tampered after signing.
        final TreeAnnounce good = h.announce(1, 5, h.path(0));
        final TreeAnnounce tampered = new TreeAnnounce(6, good.timestamp(), good.parent(), good.ancestry(),
                good.signature());
        assertEquals(TreeAnnounceOutcome.SIG_FAILED, h.tree.onTreeAnnounce(h.addr(1), tampered, h.now));
        // Undecodable.
        assertEquals(TreeAnnounceOutcome.DECODE_ERROR, h.tree.onTreeAnnounce(h.addr(1), new byte[] {0x10, 1}, h.now));
        final byte[] wrongVersion = good.encode();
        wrongVersion[1] = 2;
        assertEquals(TreeAnnounceOutcome.DECODE_ERROR, h.tree.onTreeAnnounce(h.addr(1), wrongVersion, h.now));
        assertTrue(h.tree.isRoot());
        assertEquals(0, h.tree.counter(TreeCounter.ACCEPTED));
        assertEquals(1, h.tree.counter(TreeCounter.UNKNOWN_PEER));
        assertEquals(1, h.tree.counter(TreeCounter.ADDR_MISMATCH));
        assertEquals(1, h.tree.counter(TreeCounter.SIG_FAILED));
        assertEquals(2, h.tree.counter(TreeCounter.DECODE_ERROR));
        assertEquals(5, h.tree.counter(TreeCounter.RECEIVED));
        // The genuine one is accepted from the wire form.
        assertEquals(TreeAnnounceOutcome.ACCEPTED, h.tree.onTreeAnnounce(h.addr(1), good.encode(), h.now));
        assertEquals(h.addr(1), h.tree.parent());
    }

    @Test
    void rejectsTreeAnnounceWithInconsistentRoot() {
        // The reference's test_rejects_tree_announce_with_inconsistent_root, on a converged two-node mesh.
        final TreeMesh m = TreeMesh.realSorted(2, 3).connectAll(new int[][] {{0, 1}});
        m.ticks(1);
        m.assertConverged();
        final TreeMesh.Node a = m.node(1);
        final TreeMesh.Node b = m.node(0);
        final List<NodeAddr> coordsBefore = b.tree.peerCoords(a.addr);
        final NodeAddr rootBefore = b.tree.root();
        final long acceptedBefore = b.tree.counter(TreeCounter.ACCEPTED);
        // [A, 00..00, 00..01]: the tail 00..01 is not the minimum of the path.
        final NodeAddr fakeParent = NodeAddr.of(0, 0);
        final NodeAddr fakeRoot = NodeAddr.of(0, 1);
        final byte[] sig = a.identity.sign(TreeAnnounce.signingBytes(a.addr, fakeParent, 99, 12345), new byte[32]);
        final TreeAnnounce forged = new TreeAnnounce(99, 12345, fakeParent, List.of(new CoordEntry(a.addr, 99,
                12345), new CoordEntry(fakeParent, 98, 12344), new CoordEntry(fakeRoot, 97, 12343)), sig);
        assertEquals(TreeAnnounceOutcome.ANCESTRY_INVALID, b.tree.onTreeAnnounce(a.addr, forged.encode(), m.now()));
        assertEquals(rootBefore, b.tree.root());
        assertEquals(0, b.tree.depth());
        assertEquals(acceptedBefore, b.tree.counter(TreeCounter.ACCEPTED));
        assertEquals(coordsBefore, b.tree.peerCoords(a.addr));
        assertEquals(1, b.tree.counter(TreeCounter.ANCESTRY_INVALID));
    }

    @Test
    void staleAnnounceUpdatesOnlyTheDisplayCopy() {
        final TreeHarness h = new TreeHarness(5, 4, 4, BARE);
        h.add(2);
        final byte[] accepted = h.announce(2, 10, h.path(0)).encode();
        assertEquals(TreeAnnounceOutcome.ACCEPTED, h.tree.onTreeAnnounce(h.addr(2), accepted, h.now));
        final long seq = h.tree.sequence();
        // A byte-exact replay of the accepted announce is valid but not newer.
        assertEquals(TreeAnnounceOutcome.STALE, h.tree.onTreeAnnounce(h.addr(2), accepted.clone(), h.now));
        assertEquals(TreeAnnounceOutcome.STALE, h.receive(2, 10, h.path(1, 0)));
        assertEquals(TreeAnnounceOutcome.STALE, h.receive(2, 9, h.path(1, 0)));
        assertEquals(List.of(h.addr(2), h.addr(0)), h.tree.peerCoords(h.addr(2)), "tree state unchanged");
        assertEquals(3, h.tree.peerLastSeenAnnounce(h.addr(2)).ancestry().size(), "display copy is the latest");
        assertEquals(seq, h.tree.sequence());
        assertEquals(3, h.tree.counter(TreeCounter.STALE));
        // Forgetting the peer forgets its stored sequence: a lower one is accepted after re-promotion.
        h.tree.removePeer(h.addr(2), h.now);
        h.add(2);
        assertEquals(TreeAnnounceOutcome.ACCEPTED, h.receive(2, 1, h.path(0)));
    }

    @Test
    void treeAnnounceRepushedOnRootDisagreement() {
        // The reference's test_tree_announce_repushed_on_root_disagreement.
        final TreeMesh m = TreeMesh.realSorted(2, 5).connectAll(new int[][] {{0, 1}});
        m.ticks(1);
        final TreeMesh.Node root = m.node(0);
        final TreeMesh.Node child = m.node(1);
        assertEquals(root.addr, child.tree.root());
        // The attaching announce was "lost": the child is self-root and has no view of the root.
        child.tree.forceBecomeRoot();
        child.tree.forgetPeerDeclaration(root.addr);
        assertTrue(child.tree.isRoot());
        m.advance(S);
        final int rootSentBefore = root.treeSent;
        root.tree.onTreeAnnounce(child.addr, child.tree.ownAnnounce().encode(), m.now());
        assertEquals(rootSentBefore + 1, root.treeSent, "root re-pushes its announce to the worse-rooted peer");
        m.deliver();
        assertFalse(child.tree.isRoot(), "child re-attached");
        assertEquals(root.addr, child.tree.root());
    }

    @Test
    void noEchoWhenTheAnnouncerRootIsEqualOrSmaller() {
        final TreeHarness h = new TreeHarness(6, 6, 3, BARE);
        h.add(4, 5);
        h.receive(4, 1, h.path(0)); // adopts 4: announces to all (4 and 5)
        h.sent.clear();
        h.advance(S);
        h.receive(5, 1, h.path(4, 0)); // same root: no echo
        assertTrue(h.sent.isEmpty());
        h.advance(S);
        final TreeHarness h2 = new TreeHarness(6, 6, 0, BARE);
        h2.add(4);
        h2.advance(S);
        h2.sent.clear();
        h2.receive(4, 1, h2.path(1)); // announcer's root 1 is larger than our root (ourselves, 0): echo
        assertEquals(List.of(h2.addr(4)), h2.sentTo());
    }

    @Test
    void perPeerLimiterCoalescesIntoOneSendOfTheCurrentState() {
        final TreeHarness h = new TreeHarness(6, 7, 5, BARE);
        h.add(1, 2); // promotion sends at once to each
        assertEquals(List.of(h.addr(1), h.addr(2)), h.sentTo());
        h.sent.clear();
        h.advance(100 * MS);
        h.receive(2, 1, h.path(3, 0)); // adopt 2: announce to all, but both are within 500 ms
        h.advance(100 * MS);
        h.receive(1, 1, h.path(0)); // adopt 1 (smaller), still limited
        assertTrue(h.sent.isEmpty());
        assertEquals(4, h.tree.counter(TreeCounter.RATE_LIMITED));
        h.tree.tick(h.now); // 200 ms after the last send: still held
        assertTrue(h.sent.isEmpty());
        h.advance(300 * MS);
        h.tree.tick(h.now);
        assertEquals(List.of(h.addr(1), h.addr(2)), h.sentTo(), "one send per peer");
        for (final TreeHarness.Sent s : h.sent) {
            assertEquals(h.tree.sequence(), s.announce().sequence(), "the current state, not the first change");
            assertEquals(h.addr(1), s.announce().parent());
        }
    }

    @Test
    void failedSendIsCountedAndRetriedFromThePendingFlag() {
        final TreeHarness h = new TreeHarness(3, 8, 2, BARE);
        h.failSends = true;
        h.add(1);
        assertEquals(1, h.tree.counter(TreeCounter.SEND_FAILED));
        h.failSends = false;
        h.advance(S);
        h.receive(1, 1, h.path(0)); // a change: sends to all now (the failed one left no limiter history)
        assertEquals(List.of(h.addr(1)), h.sentTo());
    }

    @Test
    void periodicRebroadcastOnlyWithTwoOrMorePeers() {
        final TreeHarness one = new TreeHarness(4, 9, 3, TreeConfig.defaults());
        one.add(1);
        one.sent.clear();
        one.receive(1, 1, one.path(0));
        one.advance(S);
        one.tree.tick(one.now); // the change announce held back by the limiter goes out here
        assertEquals(1, one.sent.size());
        one.sent.clear();
        for (int i = 0; i < 200; i++) {
            one.advance(S);
            one.tree.tick(one.now);
        }
        assertTrue(one.sent.isEmpty(), "a single-peer node never re-broadcasts");

        final TreeHarness two = new TreeHarness(4, 9, 3, TreeConfig.defaults());
        two.add(1, 2);
        two.receive(1, 1, two.path(0));
        two.receive(2, 1, two.path(0));
        two.sent.clear();
        final long seq = two.tree.sequence();
        for (int i = 0; i < 180; i++) {
            two.advance(S);
            two.tree.tick(two.now);
        }
        // t+1 s: the limited change announces are flushed, and the first tick with 2 peers runs the re-evaluation,
        // whose re-broadcast is limited in turn and goes out at t+2 s; then every 60 s (t+61, t+121).
        assertEquals(4 * 2, two.sent.size());
        assertEquals(seq, two.tree.sequence(), "an unchanged declaration is re-sent as is");
    }

    @Test
    void reevalIntervalZeroDisablesReevaluationAndRebroadcast() {
        final TreeHarness h = new TreeHarness(4, 10, 3, TreeConfig.defaults().withReevalIntervalNanos(0));
        h.add(1, 2);
        h.receive(1, 1, h.path(0));
        h.advance(S);
        h.tree.tick(h.now);
        h.sent.clear();
        for (int i = 0; i < 200; i++) {
            h.advance(S);
            h.tree.tick(h.now);
        }
        assertTrue(h.sent.isEmpty());
    }

    @Test
    void sameParentRefreshBumpsSequenceButReannouncesOnlyOnPathChange() {
        final TreeHarness h = new TreeHarness(6, 11, 5, BARE);
        h.add(3, 4);
        h.receive(3, 1, h.path(1, 0));
        assertEquals(h.addr(3), h.tree.parent());
        final int markAll = h.markAll;
        h.sent.clear();
        h.advance(S);
        final long seq = h.tree.sequence();
        final int inval = h.invalidateVia;
        h.receive(3, 2, h.path(1, 0)); // fresher, same path
        assertEquals(seq + 1, h.tree.sequence());
        assertTrue(h.sent.isEmpty(), "a sequence-only refresh is not re-announced");
        assertEquals(inval + 1, h.invalidateVia, "but the coordinate cache is still invalidated via us");
        assertTrue(h.markedChangedExcluding.isEmpty());
        h.advance(S);
        h.receive(3, 3, h.path(2, 0)); // mid-chain ancestor swap: same root, same depth
        assertEquals(seq + 2, h.tree.sequence());
        assertEquals(List.of(h.addr(3), h.addr(4)), h.sentTo());
        assertEquals(List.of(h.addr(3)), h.markedChangedExcluding, "changed-only filter marking, parent excluded");
        assertEquals(markAll, h.markAll, "no mark-all for a same-parent path change");
        assertEquals(1, h.tree.counter(TreeCounter.ANCESTRY_CHANGED));
        assertEquals(List.of(h.addr(5), h.addr(3), h.addr(2), h.addr(0)), h.tree.coordAddrs());
    }

    @Test
    void parentSwitchIncrementsSequenceOnceAndMarksAllFilters() {
        final TreeHarness h = new TreeHarness(6, 12, 5, BARE);
        h.add(3);
        final long seq = h.tree.sequence();
        h.receive(3, 1, h.path(0));
        assertEquals(seq + 1, h.tree.sequence());
        assertEquals(1, h.markAll);
        assertEquals(1, h.tree.counter(TreeCounter.PARENT_SWITCHES));
        assertEquals(h.tree.sequence(), h.tree.coordEntries().getFirst().sequence(), "entry 0 carries our seq");
    }

    @Test
    void snapshotCarriesEveryShowTreeField() {
        final TreeHarness h = new TreeHarness(6, 13, 3, BARE);
        h.add(1, 4, 5);
        h.tree.onLinkCost(h.addr(1), 1.25, h.now);
        h.receive(1, 1, h.path(0));
        h.receive(4, 1, h.path(3, 1, 0)); // a child
        final TreeSnapshot s = h.tree.snapshot();
        assertEquals(h.me(), s.myNodeAddr());
        assertEquals(h.addr(0), s.root());
        assertFalse(s.isRoot());
        assertEquals(2, s.depth());
        assertEquals(List.of(h.addr(3), h.addr(1), h.addr(0)), s.myCoords());
        assertEquals(h.addr(1), s.parent());
        assertEquals(h.tree.sequence(), s.declarationSequence());
        assertTrue(s.declarationSigned());
        assertEquals(2, s.peerTreeCount());
        assertEquals(3, s.peers().size());
        final TreeSnapshot.Peer p1 = s.peers().get(0);
        assertTrue(p1.isParent() && !p1.isChild() && p1.hasPosition());
        assertEquals(1.25, p1.cost());
        assertEquals(1, p1.distanceToUs());
        final TreeSnapshot.Peer p4 = s.peers().get(1);
        assertTrue(p4.isChild() && !p4.isParent());
        assertEquals(3, p4.depth());
        assertEquals(1, p4.distanceToUs());
        assertFalse(s.peers().get(2).hasPosition());
        assertEquals(2L, s.stats().get("accepted"));
        assertEquals(TreeCounter.values().length, s.stats().size());
        assertTrue(h.tree.isTreePeer(h.addr(1)) && h.tree.isTreePeer(h.addr(4)) && !h.tree.isTreePeer(h.addr(5)));
    }

    @Test
    void treeDistanceMatchesTheReference() {
        final NodeAddr r = NodeAddr.of(0, 1);
        final NodeAddr a = NodeAddr.of(0, 2);
        final NodeAddr b = NodeAddr.of(0, 3);
        final NodeAddr c = NodeAddr.of(0, 4);
        final NodeAddr d = NodeAddr.of(0, 5);
        assertEquals(0, TreeCoordinates.distance(List.of(a, r), List.of(a, r)));
        assertEquals(2, TreeCoordinates.distance(List.of(a, r), List.of(b, r)), "siblings");
        assertEquals(1, TreeCoordinates.distance(List.of(a, r), List.of(r)), "ancestor");
        assertEquals(4, TreeCoordinates.distance(List.of(c, a, r), List.of(d, b, r)), "cousins");
        assertEquals(TreeCoordinates.UNREACHABLE, TreeCoordinates.distance(List.of(a, r), List.of(b)));
        assertEquals(1.5, TreeCoordinates.linkCost(1.0, 50.0));
    }
}
