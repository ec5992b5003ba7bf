package net.fips.control.discovery;

import static net.fips.control.discovery.TestMesh.ms;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Schnorr;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;
import net.fips.control.identity.TestIdentities;

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
        final NodeIdentity t = TestIdentities.random(new Random(99));
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
        final NodeIdentity wrong = TestIdentities.random(new Random(100));
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
        final NodeIdentity t = TestIdentities.random(new Random(5));
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
        final NodeIdentity t = TestIdentities.random(new Random(8));
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
        final NodeIdentity t = TestIdentities.random(new Random(6));
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
        final NodeIdentity t = TestIdentities.random(new Random(7));
        n.discovery.onLinkMessage(m.addr(2), request(447, t.nodeAddr(), m.addr(2), 0), 0);
        n.discovery.onLinkMessage(m.addr(1),
                signed(447, t, t.nodeAddr(), Coords.of(t.nodeAddr(), ROOT), 1500).encode(), 0);
        assertEquals(1500, decodeResponse(m.sentBetween(0, 2, RESP).getFirst().msg()).pathMtu());
    }
}
