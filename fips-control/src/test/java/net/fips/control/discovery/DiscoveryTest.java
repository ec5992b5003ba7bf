package net.fips.control.discovery;

import static net.fips.control.discovery.TestMesh.ms;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.config.NodeConfig;
import net.fips.control.crypto.Schnorr;
import net.fips.control.discovery.Discovery.LookupResult;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/** The reference's discovery scenarios (src/node/tests/discovery.rs) over {@link TestMesh}, plus our own edges. */
class DiscoveryTest {
    static final int REQ = 0x30;
    static final int RESP = 0x31;
    static final NodeAddr ROOT = NodeAddr.of(0xF000_0000_0000_0000L, 0);

    static NodeAddr addr(final int b) {
        return NodeAddr.of((long) b << 56, 0);
    }

    static byte[] request(final long id, final NodeAddr target, final NodeAddr origin, final int ttl) {
        return new LookupRequest(id, target, origin, ttl, 0, Coords.of(origin, ROOT)).encode();
    }

    static LookupResponse signed(final long id, final NodeIdentity signer, final NodeAddr target, final Coords coords,
            final int pathMtu) {
        final byte[] proof = signer.sign(LookupResponse.proofBytes(id, target, coords));
        return new LookupResponse(id, target, pathMtu, coords, proof);
    }

    static LookupRequest decodeRequest(final byte[] msg) {
        return ((WireResult.Ok<LookupRequest>) LookupRequest.decode(msg, 0, msg.length)).value();
    }

    static LookupResponse decodeResponse(final byte[] msg) {
        return ((WireResult.Ok<LookupResponse>) LookupResponse.decode(msg, 0, msg.length)).value();
    }

    /** Node 0 (real Discovery) linked as tree peer to sink node 1, MTU 1280. */
    static TestMesh pair() {
        return new TestMesh(2, 7).sink(1).tree(1, 0, 1280).build();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Request handler

    @Test
    void requestDecodeErrorIsCountedAndRecordsNothing() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        n.discovery.onLinkMessage(m.addr(1), new byte[] {0x30, 0, 0, 0, 0}, 0);
        assertEquals(0, n.discovery.recentRequestCount());
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_MALFORMED));
        assertTrue(m.sent.isEmpty());
    }

    @Test
    void requestDedupDropsSecondCopy() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        final byte[] req = request(999, addr(0xBB), addr(0xCC), 5);
        n.discovery.onLinkMessage(m.addr(1), req, 0);
        assertEquals(1, n.discovery.recentRequestCount());
        n.discovery.onLinkMessage(m.addr(1), req, ms(10));
        assertEquals(1, n.discovery.recentRequestCount());
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_DUPLICATE));
    }

    /** ADR 0025: our own request bounced back is dropped, so its response is still ours to accept. */
    @Test
    void ourOwnRequestBouncedBackIsDroppedAndNotRecorded() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        n.inbound.get(1).insert(addr(0xBB));
        n.discovery.onLinkMessage(m.addr(1), request(555, addr(0xBB), n.addr, 5), 0);
        assertFalse(n.discovery.hasRecentRequest(555), "not recorded as a transit");
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_DUPLICATE));
        assertTrue(m.sentBetween(0, 1, REQ).isEmpty(), "not forwarded");
    }

    @Test
    void targetIsSelfRespondsWithSignedCoordsEvenAtTtlZero() {
        for (final int ttl : new int[] {5, 0}) {
            final TestMesh m = pair();
            final TestMesh.Node n = m.node(0);
            n.discovery.onLinkMessage(m.addr(1), request(777, n.addr, addr(0xCC), ttl), 0);
            assertTrue(n.discovery.hasRecentRequest(777));
            final List<TestMesh.Envelope> out = m.sentBetween(0, 1, RESP);
            assertEquals(1, out.size(), "one response back to the peer the request came from (ttl " + ttl + ")");
            final LookupResponse r = decodeResponse(out.getFirst().msg());
            assertEquals(777, r.requestId());
            assertEquals(n.addr, r.target());
            assertEquals(n.coords, r.targetCoords());
            assertEquals(1280, r.pathMtu(), "65535 folded with the link MTU toward the next hop");
            assertTrue(Schnorr.verifyData(n.identity.publicKey(), r.proofBytes(), r.proof()));
            assertEquals(1, n.count(DiscoveryCounter.RESPONSES_SENT));
        }
    }

    @Test
    void ttlZeroIsRecordedButNotForwarded() {
        // 0 — 1 (sink, tree child) and 1's filter claims 0xBB.
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        n.inbound.get(1).insert(addr(0xBB));
        n.discovery.onLinkMessage(m.addr(1), request(666, addr(0xBB), addr(0xCC), 0), 0);
        assertTrue(n.discovery.hasRecentRequest(666));
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_TTL_EXPIRED));
        assertTrue(m.sentBetween(0, 1, REQ).isEmpty());
        // ttl 1 is forwarded with ttl 0 (and the bounce to the sender is not excluded, as the reference).
        n.discovery.onLinkMessage(m.addr(1), request(667, addr(0xBB), addr(0xCC), 1), 0);
        final List<TestMesh.Envelope> fwd = m.sentBetween(0, 1, REQ);
        assertEquals(1, fwd.size());
        assertEquals(0, decodeRequest(fwd.getFirst().msg()).ttl());
    }

    @Test
    void requestTableCapDropsNewRequests() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        for (int i = 0; i < DiscoveryConfig.DEFAULT_MAX_RECENT_REQUESTS; i++) {
            n.discovery.onLinkMessage(m.addr(1), request(i, addr(0xBB), addr(0xCC), 0), 0);
        }
        assertEquals(4096, n.discovery.recentRequestCount());
        n.discovery.onLinkMessage(m.addr(1), request(1_000_000, n.addr, addr(0xCC), 3), ms(1));
        assertEquals(1, n.count(DiscoveryCounter.REQUESTS_TABLE_FULL));
        assertFalse(n.discovery.hasRecentRequest(1_000_000));
        assertTrue(m.sentBetween(0, 1, RESP).isEmpty(), "a dropped request is not answered even for us");
        // After the 10 s expiry the table empties on the next request and we answer again.
        n.discovery.onLinkMessage(m.addr(1), request(1_000_001, n.addr, addr(0xCC), 3), ms(10_001));
        assertEquals(1, n.discovery.recentRequestCount());
        assertEquals(1, m.sentBetween(0, 1, RESP).size());
    }

    @Test
    void recentRequestExpiryIsStrictlyAfterTenSeconds() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        n.discovery.onLinkMessage(m.addr(1), request(123, addr(0xBB), addr(0xCC), 0), 0);
        n.discovery.onLinkMessage(m.addr(1), request(456, addr(0xBB), addr(0xCC), 0), ms(1_000));
        // At exactly 10 s after 123 nothing expires (strictly older than 10 s).
        n.discovery.onLinkMessage(m.addr(1), request(500, addr(0xBB), addr(0xCC), 0), ms(10_000));
        assertTrue(n.discovery.hasRecentRequest(123));
        // 11 s after 123: purged; 456 (10 s old) and the new one stay.
        n.discovery.onLinkMessage(m.addr(1), request(789, addr(0xBB), addr(0xCC), 0), ms(11_000));
        assertFalse(n.discovery.hasRecentRequest(123));
        assertTrue(n.discovery.hasRecentRequest(456));
        assertTrue(n.discovery.hasRecentRequest(789));
        // An expired request_id is new again (not a duplicate).
        n.discovery.onLinkMessage(m.addr(1), request(123, addr(0xBB), addr(0xCC), 0), ms(11_000));
        assertTrue(n.discovery.hasRecentRequest(123));
        assertEquals(0, n.count(DiscoveryCounter.REQUESTS_DUPLICATE));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Response handler (originator side)

    @Test
    void responseDecodeErrorCachesNothing() {
        final TestMesh m = pair();
        final TestMesh.Node n = m.node(0);
        n.discovery.onLinkMessage(m.addr(1), new byte[] {0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0);
        assertTrue(n.coordCache.isEmpty());
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_MALFORMED));
    }

    /** Node 0 knows a far target's key; returns [mesh, target identity]. */
    record Far(TestMesh mesh, NodeIdentity target) {
    }

    static Far far(final boolean register) {
        final TestMesh m = pair();
        final NodeIdentity t = TestMesh.identity(new Random(99));
        if (register) {
            m.node(0).identities.register(t.toPeer(), 0);
        }
        return new Far(m, t);
    }

    @Test
    void originatorVerifiesProofAndCachesRoute() {
        final Far f = far(true);
        final TestMesh.Node n = f.mesh().node(0);
        final NodeAddr target = f.target().nodeAddr();
        final Coords coords = Coords.of(target, ROOT);
        n.discovery.onLinkMessage(f.mesh().addr(1), signed(555, f.target(), target, coords, 65535).encode(),
                ms(42));
        final TestMesh.Route r = n.coordCache.get(target);
        assertNotNull(r, "verified response is cached");
        assertEquals(coords, r.coords());
        assertEquals(ms(42), r.atNanos());
        assertEquals(List.of(target), n.found, "session layer told to retry");
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_ACCEPTED));
        assertEquals(0, n.count(DiscoveryCounter.LOOKUPS_SUCCEEDED), "no lookup was pending; cached anyway");
    }

    @Test
    void proofFromWrongKeyIsRejected() {
        final Far f = far(true);
        final TestMesh.Node n = f.mesh().node(0);
        final NodeAddr target = f.target().nodeAddr();
        final NodeIdentity wrong = TestMesh.identity(new Random(100));
        n.discovery.onLinkMessage(f.mesh().addr(1),
                signed(701, wrong, target, Coords.of(target, ROOT), 65535).encode(), 0);
        assertNull(n.coordCache.get(target));
        assertTrue(n.found.isEmpty());
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_PROOF_FAILED));
    }

    @Test
    void identityCacheMissDiscardsResponse() {
        final Far f = far(false);
        final TestMesh.Node n = f.mesh().node(0);
        final NodeAddr target = f.target().nodeAddr();
        n.discovery.onLinkMessage(f.mesh().addr(1),
                signed(702, f.target(), target, Coords.of(target, ROOT), 65535).encode(), 0);
        assertNull(n.coordCache.get(target));
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_IDENTITY_MISS));
    }

    @Test
    void coordinateSubstitutionIsDetected() {
        final Far f = far(true);
        final TestMesh.Node n = f.mesh().node(0);
        final NodeAddr target = f.target().nodeAddr();
        final LookupResponse real = signed(703, f.target(), target, Coords.of(target, ROOT), 65535);
        final LookupResponse fake = new LookupResponse(703, target, 65535, Coords.of(target, addr(0xEE), ROOT),
                real.proof());
        n.discovery.onLinkMessage(f.mesh().addr(1), fake.encode(), 0);
        assertNull(n.coordCache.get(target));
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_PROOF_FAILED));
        // path_mtu is outside the proof: lowering it in transit keeps the proof valid.
        n.discovery.onLinkMessage(f.mesh().addr(1), real.withPathMtu(1000).encode(), 0);
        assertEquals(1000, n.coordCache.get(target).pathMtu());
    }

    @Test
    void originatorStoresPathMtuAndTightensClampOnly() {
        final Far f = far(true);
        final TestMesh.Node n = f.mesh().node(0);
        final NodeAddr target = f.target().nodeAddr();
        final Coords coords = Coords.of(target, ROOT);
        n.discovery.onLinkMessage(f.mesh().addr(1), signed(800, f.target(), target, coords, 1280).encode(), 0);
        assertEquals(1280, n.coordCache.get(target).pathMtu());
        assertEquals(1280, n.clampMap.get(target), "empty clamp map gets the discovered value");
        // A looser discovery estimate is cached but does not loosen the clamp.
        n.discovery.onLinkMessage(f.mesh().addr(1), signed(801, f.target(), target, coords, 1500).encode(), 0);
        assertEquals(1500, n.coordCache.get(target).pathMtu());
        assertEquals(1280, n.clampMap.get(target), "keeps the tighter existing value");
        // A tighter one does tighten it.
        n.discovery.onLinkMessage(f.mesh().addr(1), signed(802, f.target(), target, coords, 1200).encode(), 0);
        assertEquals(1200, n.clampMap.get(target));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Response handler (transit side)

    @Test
    void transitRelaysOnlyWithRecordedRequestAndDoesNotCache() {
        // 2 (sink, origin side) — 0 — 1 (sink, target side); 0 recorded request 444 from 2.
        final TestMesh m = new TestMesh(3, 11).sink(1).sink(2).tree(1, 0, 1400).tree(0, 2, 1300).build();
        final TestMesh.Node n = m.node(0);
        final NodeIdentity t = TestMesh.identity(new Random(5));
        final NodeAddr target = t.nodeAddr();
        n.identities.register(t.toPeer(), 0); // even knowing the key, a transit does not cache
        n.discovery.onLinkMessage(m.addr(2), request(444, target, m.addr(2), 0), 0);
        final LookupResponse resp = signed(444, t, target, Coords.of(target, ROOT), 65535);
        n.discovery.onLinkMessage(m.addr(1), resp.encode(), ms(5));
        assertTrue(n.coordCache.isEmpty(), "no caching at transit");
        final List<TestMesh.Envelope> relayed = m.sentBetween(0, 2, RESP);
        assertEquals(1, relayed.size());
        final LookupResponse out = decodeResponse(relayed.getFirst().msg());
        assertEquals(1300, out.pathMtu(), "min-folded with the link toward from_peer");
        assertArrayEquals(resp.proof(), out.proof());
        // A second response for the same request is dropped.
        n.discovery.onLinkMessage(m.addr(1), resp.encode(), ms(6));
        assertEquals(1, m.sentBetween(0, 2, RESP).size());
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_DUPLICATE));
    }

    @Test
    void responseWhoseFromPeerIsGoneIsCountedAsNoRouteAndNotSent() {
        final TestMesh m = new TestMesh(3, 14).sink(1).sink(2).tree(1, 0, 1400).tree(0, 2, 1300).build();
        final TestMesh.Node n = m.node(0);
        final NodeIdentity t = TestMesh.identity(new Random(8));
        n.discovery.onLinkMessage(m.addr(2), request(448, t.nodeAddr(), m.addr(2), 0), 0);
        n.links.remove(2);   // the link to the origin side goes down before the response comes back
        final LookupResponse resp = signed(448, t, t.nodeAddr(), Coords.of(t.nodeAddr(), ROOT), 65535);
        n.discovery.onLinkMessage(m.addr(1), resp.encode(), ms(5));
        assertTrue(m.sentBetween(0, 2, RESP).isEmpty());
        assertEquals(0, m.undeliverable, "not even tried");
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_NO_ROUTE));
        assertEquals(0, n.count(DiscoveryCounter.RESPONSES_RELAYED));
        assertEquals(1, DiscoveryStats.of(n.discovery).respNoRoute());
        // With the peer back, a duplicate response for the same request is still dropped as a duplicate.
        n.links.put(2, 1300);
        n.discovery.onLinkMessage(m.addr(1), resp.encode(), ms(6));
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_DUPLICATE));
    }

    @Test
    void responseAfterRequestExpiredIsTreatedAsOwnAndDiesAtTransit() {
        final TestMesh m = new TestMesh(3, 12).sink(1).sink(2).tree(1, 0, 1400).tree(0, 2, 1300).build();
        final TestMesh.Node n = m.node(0);
        final NodeIdentity t = TestMesh.identity(new Random(6));
        n.discovery.onLinkMessage(m.addr(2), request(445, t.nodeAddr(), m.addr(2), 0), 0);
        // Another request 11 s later purges 445.
        n.discovery.onLinkMessage(m.addr(2), request(446, addr(0xBB), m.addr(2), 0), ms(11_000));
        n.discovery.onLinkMessage(m.addr(1),
                signed(445, t, t.nodeAddr(), Coords.of(t.nodeAddr(), ROOT), 65535).encode(), ms(11_001));
        assertTrue(m.sentBetween(0, 2, RESP).isEmpty());
        assertEquals(1, n.count(DiscoveryCounter.RESPONSES_IDENTITY_MISS));
    }

    @Test
    void pathMtuFoldWithUnknownLinkMtuIsNoOp() {
        final TestMesh m = new TestMesh(3, 13).sink(1).sink(2).tree(1, 0, 1400).tree(0, 2, 0).build();
        final TestMesh.Node n = m.node(0);
        final NodeIdentity t = TestMesh.identity(new Random(7));
        n.discovery.onLinkMessage(m.addr(2), request(447, t.nodeAddr(), m.addr(2), 0), 0);
        n.discovery.onLinkMessage(m.addr(1),
                signed(447, t, t.nodeAddr(), Coords.of(t.nodeAddr(), ROOT), 1500).encode(), 0);
        assertEquals(1500, decodeResponse(m.sentBetween(0, 2, RESP).getFirst().msg()).pathMtu());
    }

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
