package net.fips.control.discovery;

import static net.fips.control.discovery.DiscoveryTest.REQ;
import static net.fips.control.discovery.DiscoveryTest.RESP;
import static net.fips.control.discovery.DiscoveryTest.addr;
import static net.fips.control.discovery.DiscoveryTest.decodeRequest;
import static net.fips.control.discovery.DiscoveryTest.decodeResponse;
import static net.fips.control.discovery.DiscoveryTest.pair;
import static net.fips.control.discovery.DiscoveryTest.request;
import static net.fips.control.discovery.TestMesh.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.config.NodeConfig;
import net.fips.control.discovery.Discovery.LookupResult;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.NodeAddr;

/** Discovery's transit forwarding rules, lookups from this node and the retry ladder, over {@link TestMesh}. */
class DiscoveryLookupTest {

    // ---------------------------------------------------------------------------------------------------------
    // Transit forwarding rules

    @Test
    void transitPrefersTreePeersThenFallsBackToNonTreePeers() {
        // Node 0 with tree peers 1, 2 and non-tree peers 3, 4 (all sinks); the request comes from 1.
        final TestMesh m = new TestMesh(5, 14).sink(1).sink(2).sink(3).sink(4)
                .tree(1, 0, 1280).tree(0, 2, 1280).mesh(0, 3, 1280).mesh(0, 4, 1280).build();
        final TestMesh.Node n = m.node(0);
        final NodeAddr x = addr(0xAB);
        n.inbound.get(2).insert(x);
        n.inbound.get(3).insert(x);
        n.discovery.onLinkMessage(m.addr(1), request(1, x, m.addr(1), 9), 0);
        assertEquals(1, m.sentBetween(0, 2, REQ).size(), "matching tree peer");
        assertTrue(m.sentBetween(0, 3, REQ).isEmpty(), "non-tree peer skipped while a tree peer matches");
        assertEquals(8, decodeRequest(m.sentBetween(0, 2, REQ).getFirst().msg()).ttl());

        // Another target only non-tree peers 3 and 4 claim: sent to both.
        final NodeAddr y = addr(0xAC);
        n.inbound.get(3).insert(y);
        n.inbound.get(4).insert(y);
        n.discovery.onLinkMessage(m.addr(1), request(2, y, m.addr(1), 9), 0);
        assertEquals(2, m.sentBetween(0, 3, REQ).size() + m.sentBetween(0, 4, REQ).size());
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_FORWARDED_FALLBACK));

        // Nobody claims z: dropped.
        n.discovery.onLinkMessage(m.addr(1), request(3, addr(0xAD), m.addr(1), 9), 0);
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_NO_ROUTE));
        assertEquals(2, n.count(DiscoveryCounter.REQUESTS_FORWARDED));
        final DiscoveryStats st = n.discovery.stats();
        assertEquals(3, st.reqForwarded(), "reference counts past the rate limit, before peer selection");
        assertEquals(1, st.reqNoTreePeer());
        assertEquals(1, st.reqFallbackForwarded());
        assertEquals(3, st.reqReceived());
    }

    @Test
    void transitRateLimitsPerTargetForTwoSeconds() {
        final TestMesh m = new TestMesh(3, 15).sink(1).sink(2).tree(1, 0, 1280).tree(0, 2, 1280).build();
        final TestMesh.Node n = m.node(0);
        final NodeAddr x = addr(0xAB);
        n.inbound.get(2).insert(x);
        n.inbound.get(2).insert(addr(0xAC));
        n.discovery.onLinkMessage(m.addr(1), request(1, x, m.addr(1), 9), 0);
        n.discovery.onLinkMessage(m.addr(1), request(2, x, m.addr(1), 9), ms(1_999));
        assertEquals(1, m.sentBetween(0, 2, REQ).size(), "fresh request_id, same target, within 2 s");
        assertTrue(n.discovery.hasRecentRequest(2), "suppressed requests stay recorded");
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_RATE_LIMITED));
        n.discovery.onLinkMessage(m.addr(1), request(3, addr(0xAC), m.addr(1), 9), ms(1_999));
        assertEquals(2, m.sentBetween(0, 2, REQ).size(), "the limit is per target");
        n.discovery.onLinkMessage(m.addr(1), request(4, x, m.addr(1), 9), ms(2_000));
        assertEquals(3, m.sentBetween(0, 2, REQ).size(), "allowed again after 2 s");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Originator

    /** ADR 0024: a pending lookup goes to a tree peer as soon as that peer's new filter claims the target. */
    @Test
    void aPendingLookupGoesToATreePeerWhoseNewFilterClaimsTheTarget() {
        // 0 with tree peers 1 and 3 and non-tree peer 2 (sinks).
        final TestMesh m = new TestMesh(4, 17).sink(1).sink(2).sink(3).tree(1, 0, 1280).tree(3, 0, 1280)
                .mesh(0, 2, 1280).build();
        final TestMesh.Node n = m.node(0);
        n.inbound.get(1).insert(addr(0xAB));
        assertEquals(LookupResult.STARTED, n.discovery.lookup(addr(0xAB), 0));
        assertEquals(1, m.sentBetween(0, 1, REQ).size());
        assertEquals(0, n.discovery.onPeerFilter(m.addr(3), ms(100)), "3's filter does not claim it yet");
        n.inbound.get(3).insert(addr(0xAB));
        n.inbound.get(2).insert(addr(0xAB));
        assertEquals(1, n.discovery.onPeerFilter(m.addr(3), ms(200)));
        final List<TestMesh.Envelope> to3 = m.sentBetween(0, 3, REQ);
        assertEquals(1, to3.size());
        assertEquals(addr(0xAB), decodeRequest(to3.getFirst().msg()).target());
        assertEquals(0, n.discovery.onPeerFilter(m.addr(2), ms(300)), "not to a non-tree peer");
        assertEquals(1, m.sentBetween(0, 1, REQ).size(), "nothing more to 1");
        assertEquals(List.of(new Discovery.PendingLookup(addr(0xAB), 0, 0, 1)), n.discovery.pendingLookups(),
                "the attempt and its timer are unchanged");
    }

    @Test
    void lookupPreChecksAndTreeOnlyOrigin() {
        // 0 with tree peer 1 and non-tree peer 2 (sinks).
        final TestMesh m = new TestMesh(3, 16).sink(1).sink(2).tree(1, 0, 1280).mesh(0, 2, 1280).build();
        final TestMesh.Node n = m.node(0);
        assertEquals(LookupResult.NOT_IN_FILTERS, n.discovery.lookup(addr(0xAB), 0));
        n.inbound.get(2).insert(addr(0xAB));
        assertEquals(LookupResult.NO_TREE_PEER, n.discovery.lookup(addr(0xAB), 0), "no non-tree fallback at origin");
        assertTrue(m.sent.isEmpty());
        assertFalse(n.discovery.isPending(addr(0xAB)));
        n.inbound.get(1).insert(addr(0xAB));
        assertEquals(LookupResult.STARTED, n.discovery.lookup(addr(0xAB), ms(1)));
        assertEquals(LookupResult.ALREADY_PENDING, n.discovery.lookup(addr(0xAB), ms(2)));
        final List<TestMesh.Envelope> out = m.sentBetween(0, 1, REQ);
        assertEquals(1, out.size());
        assertTrue(m.sentBetween(0, 2, REQ).isEmpty());
        final LookupRequest r = decodeRequest(out.getFirst().msg());
        assertEquals(64, r.ttl());
        assertEquals(n.addr, r.origin());
        assertEquals(n.coords, r.originCoords());
        assertEquals(0, r.minMtu());
        assertFalse(n.discovery.hasRecentRequest(r.requestId()), "the origin does not record its own request");
        assertEquals(List.of(new Discovery.PendingLookup(addr(0xAB), ms(1), ms(1), 1)),
                n.discovery.pendingLookups());
        final DiscoverySnapshot snap = n.discovery.snapshot();
        assertEquals(n.discovery.pendingLookups(), snap.pendingLookups());
        assertEquals(1, snap.stats().reqBloomMiss());
        assertEquals(1, snap.stats().reqDeduplicated());
        assertEquals(2, snap.stats().reqInitiated(), "the NO_TREE_PEER attempt reached the send step");
    }

    @Test
    void backoffSuppressesAfterFailuresAndResetsOnTopologyChange() {
        final DiscoveryConfig cfg = DiscoveryConfig.defaults().withBackoff(30, 300);
        final TestMesh m = new TestMesh(2, 17, cfg).sink(1).tree(1, 0, 1280).build();
        final TestMesh.Node n = m.node(0);
        final NodeAddr x = addr(0xAB);
        assertEquals(LookupResult.NOT_IN_FILTERS, n.discovery.lookup(x, 0));
        assertEquals(LookupResult.BACKOFF, n.discovery.lookup(x, ms(29_999)));
        assertEquals(LookupResult.NOT_IN_FILTERS, n.discovery.lookup(x, ms(30_000)));
        // Second failure doubles: 60 s.
        assertEquals(LookupResult.BACKOFF, n.discovery.lookup(x, ms(89_999)));
        n.discovery.resetBackoff();
        assertEquals(LookupResult.NOT_IN_FILTERS, n.discovery.lookup(x, ms(30_001)));
        // Defaults (0/0) never suppress.
        final TestMesh d = pair();
        assertEquals(LookupResult.NOT_IN_FILTERS, d.node(0).discovery.lookup(x, 0));
        assertEquals(LookupResult.NOT_IN_FILTERS, d.node(0).discovery.lookup(x, 0));
    }

    @Test
    void retryLadderWithOneSecondTickThenUnreachable() {
        // The peer (sink) claims the target but never answers.
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        final NodeAddr x = addr(0xAB);
        n.inbound.get(1).insert(x);
        assertEquals(LookupResult.STARTED, n.discovery.lookup(x, ms(100)));
        for (long t = 1_100; t <= 20_100; t += 1_000) {
            m.at(ms(t));
            n.discovery.tick(ms(t));
        }
        final List<TestMesh.Envelope> sent = m.sentBetween(0, 1, REQ);
        assertEquals(List.of(ms(1_100), ms(3_100), ms(7_100)),
                sent.subList(1, sent.size()).stream().map(TestMesh.Envelope::sentAtNanos).toList());
        final Set<Long> ids = new HashSet<>();
        for (final TestMesh.Envelope e : sent) {
            ids.add(decodeRequest(e.msg()).requestId());
        }
        assertEquals(4, ids.size(), "fresh request_id per attempt");
        assertEquals(List.of(x), n.unreachable);
        assertEquals(List.of(ms(15_100)), n.unreachableAt);
        assertFalse(n.discovery.isPending(x));
        assertEquals(3, n.count(DiscoveryCounter.LOOKUPS_RETRIED));
        assertEquals(1, n.count(DiscoveryCounter.LOOKUPS_UNREACHABLE));
        final DiscoveryStats st = n.discovery.stats();
        assertEquals(4, st.reqInitiated(), "reference counts every attempt as initiated");
        assertEquals(1, st.respTimedOut());
    }

    @Test
    void retryLadderReferenceTimeline() {
        // As the reference test: pending at t=0, checks at 1.1, 3.1, 7.1, 15.099, 15.1 s.
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        final NodeAddr x = addr(0xAB);
        n.inbound.get(1).insert(x);
        n.discovery.lookup(x, 0);
        final long[] steps = {1_100, 3_100, 7_100};
        for (int i = 0; i < steps.length; i++) {
            n.discovery.tick(ms(steps[i]));
            final Discovery.PendingLookup p = n.discovery.pendingLookups().getFirst();
            assertEquals(i + 2, p.attempt());
            assertEquals(ms(steps[i]), p.lastSentNanos());
            assertEquals(0, p.initiatedNanos());
        }
        n.discovery.tick(ms(15_099));
        assertTrue(n.discovery.isPending(x), "8 s window not yet over");
        assertTrue(n.unreachable.isEmpty());
        n.discovery.tick(ms(15_100));
        assertFalse(n.discovery.isPending(x));
        assertEquals(List.of(x), n.unreachable);
        assertEquals(4, m.sentBetween(0, 1, REQ).size(), "the final step sends nothing");
    }

    @Test
    void configDefaultsMatchTheParsedNodeDiscoverySection() {
        assertEquals(DiscoveryConfig.defaults(), DiscoveryConfig.from(NodeConfig.Lookup.DEFAULTS));
        assertEquals(List.of(1L, 2L, 4L, 8L), DiscoveryConfig.defaults().attemptTimeoutsSecs());
        assertEquals(64, DiscoveryConfig.defaults().ttl());
    }

    @Test
    void emptyAttemptListGivesUpAtTheFirstTick() {
        final DiscoveryConfig cfg = new DiscoveryConfig(64, List.of(), 10, 0, 0, 2, 4096);
        final TestMesh m = new TestMesh(2, 18, cfg).sink(1).tree(1, 0, 1280).build();
        final TestMesh.Node n = m.node(0);
        n.inbound.get(1).insert(addr(0xAB));
        assertEquals(LookupResult.STARTED, n.discovery.lookup(addr(0xAB), 0));
        n.discovery.tick(ms(1));
        assertEquals(List.of(addr(0xAB)), n.unreachable);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Multi-node

    @Test
    void twoNodeLookupCachesTargetWithTargetEdgeMtu() {
        final TestMesh m = new TestMesh(2, 21).tree(0, 1, 1280).build();
        assertEquals(LookupResult.STARTED, m.node(0).discovery.lookup(m.addr(1), 0));
        m.deliverAll();
        assertEquals(1, m.node(1).discovery.recentRequestCount(), "node 1 recorded the request");
        final TestMesh.Route r = m.node(0).coordCache.get(m.addr(1));
        assertNotNull(r);
        assertEquals(m.node(1).coords, r.coords());
        assertEquals(1280, r.pathMtu(), "the target folds its own outgoing link");
        assertFalse(m.node(0).discovery.isPending(m.addr(1)));
        assertEquals(1, m.node(0).count(DiscoveryCounter.LOOKUPS_SUCCEEDED));
    }

    @Test
    void threeNodeChainRoundTrip() {
        final TestMesh m = new TestMesh(3, 22).tree(0, 1, 1280).tree(1, 2, 1280).build();
        m.node(0).learn(m.node(2));
        m.node(0).discovery.lookup(m.addr(2), 0);
        m.deliverAll();
        assertEquals(1, m.node(1).discovery.recentRequestCount(), "node 1 was a transit");
        assertEquals(1, m.node(2).discovery.recentRequestCount(), "node 2 received the request");
        assertEquals(m.node(2).coords, m.node(0).coordCache.get(m.addr(2)).coords());
        assertEquals(1280, m.node(0).coordCache.get(m.addr(2)).pathMtu());
        assertTrue(m.node(1).coordCache.isEmpty(), "transit caches nothing");
        assertEquals(63, decodeRequest(m.sentBetween(1, 2, REQ).getFirst().msg()).ttl());
    }

    @Test
    void threeNodeChainPathMtuIsTheBottleneckWhicheverHopItIs() {
        // Bottleneck on the target's edge (folded by the target) ...
        final TestMesh a = new TestMesh(3, 23).tree(0, 1, 1400).tree(1, 2, 1280).build();
        a.node(0).learn(a.node(2));
        a.node(0).discovery.lookup(a.addr(2), 0);
        a.deliverAll();
        assertEquals(1280, a.node(0).coordCache.get(a.addr(2)).pathMtu());
        // ... or on the origin's edge (folded by the transit).
        final TestMesh b = new TestMesh(3, 23).tree(0, 1, 1200).tree(1, 2, 1500).build();
        b.node(0).learn(b.node(2));
        b.node(0).discovery.lookup(b.addr(2), 0);
        b.deliverAll();
        assertEquals(1200, b.node(0).coordCache.get(b.addr(2)).pathMtu());
        assertEquals(1500, decodeResponse(b.sentBetween(2, 1, RESP).getFirst().msg()).pathMtu());
    }

    @Test
    void convergentPathsAreDedupedAtTheTarget() {
        // Tree: 0 root with children 1, 2, 3; non-tree edge 1—2. Node 0's filter from 1 falsely claims 2 and
        // node 1's filter from 0 is stale (lacks 2), so the request reaches 2 directly and via 1's fallback.
        final TestMesh m = new TestMesh(4, 24).tree(0, 1, 1280).tree(0, 2, 1280).tree(0, 3, 1280)
                .mesh(1, 2, 1280).build();
        m.node(0).addToFilter(1, 2);
        m.node(1).setFilter(0, 0, 3);
        m.node(3).learn(m.node(2));
        assertEquals(LookupResult.STARTED, m.node(3).discovery.lookup(m.addr(2), 0));
        m.deliverAll();
        assertEquals(1, m.sentBetween(1, 2, REQ).size(), "fallback copy sent");
        assertEquals(1, m.node(2).count(DiscoveryCounter.REQUESTS_DUPLICATE));
        assertEquals(1, m.node(2).count(DiscoveryCounter.RESPONSES_SENT), "answered once");
        assertEquals(m.node(2).coords, m.node(3).coordCache.get(m.addr(2)).coords());
    }

    @Test
    void ownRequestBouncedBackIsDroppedSoTheOriginatorStillAcceptsTheAnswer() {
        // The reference's quirk (the originator records its own bounced request as a transit and then relays the
        // answer away) is not kept: ADR 0025. 1's filter from 0 claims 2, so 1 bounces the request back; 0 drops
        // it and accepts 2's answer.
        final TestMesh m = new TestMesh(3, 27).tree(0, 1, 1280).tree(1, 2, 1280).build();
        m.node(1).addToFilter(0, 2);
        m.node(0).learn(m.node(2));
        m.node(0).discovery.lookup(m.addr(2), 0);
        m.deliverAll();
        assertEquals(1, m.sentBetween(1, 0, REQ).size(), "bounced to the origin");
        assertEquals(1, m.node(0).count(DiscoveryCounter.REQUESTS_DUPLICATE), "dropped there");
        assertTrue(m.sentBetween(0, 1, RESP).isEmpty(), "the origin relays nothing");
        assertEquals(m.node(2).coords, m.node(0).coordCache.get(m.addr(2)).coords());
        assertFalse(m.node(0).discovery.isPending(m.addr(2)));
    }

    @Test
    void transitLimiterSuppressesTheOneSecondRetry() {
        // 0 — 1 — 2 (sink that never answers): attempts at 0, 1, 3, 7 s; 1 forwards attempts 1, 3 and 4.
        final TestMesh m = new TestMesh(3, 25).sink(2).tree(0, 1, 1280).tree(1, 2, 1280).build();
        m.node(0).discovery.lookup(m.addr(2), 0);
        m.deliverAll();
        for (long t = 1_000; t <= 16_000; t += 1_000) {
            m.at(ms(t));
            m.node(0).discovery.tick(ms(t));
            m.deliverAll();
        }
        assertEquals(4, m.sentBetween(0, 1, REQ).size());
        assertEquals(List.of(0L, ms(3_000), ms(7_000)),
                m.sentBetween(1, 2, REQ).stream().map(TestMesh.Envelope::sentAtNanos).toList());
        assertEquals(1, m.node(1).count(DiscoveryCounter.REQUESTS_RATE_LIMITED));
        assertEquals(List.of(m.addr(2)), m.node(0).unreachable);
    }

    @Test
    void hundredNodeMeshFindsEveryTargetWithCorrectCoords() {
        final int n = 100;
        final Random rnd = new Random(4242);
        final TestMesh m = new TestMesh(n, 26, DiscoveryConfig.defaults().withForwardMinIntervalSecs(0));
        for (int i = 1; i < n; i++) {
            m.tree(rnd.nextInt(i), i, 1200 + rnd.nextInt(300));
        }
        for (int e = 0; e < 150; e++) {
            final int a = rnd.nextInt(n);
            final int b = rnd.nextInt(n);
            if (a != b && !m.node(a).links.containsKey(b)) {
                m.mesh(a, b, 1200 + rnd.nextInt(300));
            }
        }
        m.build();
        int lookups = 0;
        final Set<Integer> pairs = new HashSet<>();
        for (int k = 0; k < 120; k++) {
            final int o = rnd.nextInt(n);
            final int t = rnd.nextInt(n);
            if (o == t || m.node(o).links.containsKey(t) || !pairs.add(o * n + t)) {
                continue;
            }
            m.node(o).learn(m.node(t));
            assertEquals(LookupResult.STARTED, m.node(o).discovery.lookup(m.addr(t), 0), o + " -> " + t);
            m.deliverAll();
            final TestMesh.Route r = m.node(o).coordCache.get(m.addr(t));
            assertNotNull(r, o + " found " + t);
            assertEquals(m.node(t).coords, r.coords());
            assertTrue(r.pathMtu() >= 1200 && r.pathMtu() < 1500);
            lookups++;
        }
        assertTrue(lookups > 80);
        long cached = 0;
        for (final TestMesh.Node x : m.nodes) {
            cached += x.coordCache.size();
        }
        assertEquals(lookups, cached, "only originators cache");
    }
}
