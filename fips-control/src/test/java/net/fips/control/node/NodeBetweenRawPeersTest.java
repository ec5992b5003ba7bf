package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.ask;
import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.crypto.Schnorr;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.WireResult;
import net.fips.testing.FreePorts;

/**
 * Our node B between two reference-like peers A and C that are not our code ({@link RawPeer}: IK initiator, FMP
 * framing, message choice all written from the specs), checked byte by byte on the wire: B's tree declarations
 * (signature, semantics, sequence), its split-horizon filters, the discovery relay (TTL, request id, path_mtu fold,
 * proof untouched), transit forwarding of 100 datagrams, and the rate-limited CoordsRequired for an unknown
 * destination.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeBetweenRawPeersTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rekey:
                enabled: false
            """;
    /** B's UDP transport MTU (the default), the link MTU every path_mtu is folded to. */
    private static final int LINK_MTU = 1280;
    private static final int DATAGRAMS = 100;
    /** How long each step of the exchange may take. */
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private Node b;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        if (b != null) {
            b.close();
        }
        for (final AutoCloseable c : closeables) {
            c.close();
        }
    }

    @Test
    void ourNodeBetweenTwoRawPeersBuildsTheTreeRelaysDiscoveryAndForwards() throws Exception {
        // A gets the smallest address of the three, so A is the root B must adopt.
        final List<NodeIdentity> ids = new ArrayList<>(List.of(NodeIdentity.generate(), NodeIdentity.generate(),
                NodeIdentity.generate()));
        ids.sort(Comparator.comparing(NodeIdentity::nodeAddr));
        final NodeIdentity idA = ids.get(0);
        final NodeIdentity idB = ids.get(1);
        final NodeIdentity idC = ids.get(2);
        final NodeAddr addrA = idA.nodeAddr();
        final NodeAddr addrB = idB.nodeAddr();
        final NodeAddr addrC = idC.nodeAddr();

        final int pb = FreePorts.udp();
        b = Node.start(load(yaml(idB, pb, dir.resolve("b.sock"), NODE)),
                new NodeOptions().aclDirectory(dir.resolve("acl")));
        final InetSocketAddress toB = new InetSocketAddress("127.0.0.1", pb);
        final RawPeer a = new RawPeer(idA, "A", toB);
        closeables.add(a);
        final RawPeer c = new RawPeer(idC, "C", toB);
        closeables.add(c);

        // ---- 1. Link handshakes and the tree.
        a.dial(idB);
        until(WAIT, a::established, () -> "A's msg2 from B; " + a.problem.get());
        // On promotion B announces itself (self-root, sequence 1) at once.
        until(WAIT, () -> !a.trees.isEmpty(), () -> "B's first TreeAnnounce to A; " + a.problem.get());
        final long tsA = nowSecs();
        final TreeAnnounce rootA = signed(idA, 1, tsA, addrA, List.of(new CoordEntry(addrA, 1, tsA)));
        a.send(rootA.encode());
        a.send(filterOf(1, addrA).encode());
        until(WAIT, () -> latestRoot(a).equals(addrA), () -> "B adopts A: " + a.trees);

        c.dial(idB);
        until(WAIT, c::established, () -> "C's msg2 from B; " + c.problem.get());
        final long tsC = nowSecs();
        // C first believes it is a root of its own, as a fresh reference node does.
        c.send(signed(idC, 1, tsC, addrC, List.of(new CoordEntry(addrC, 1, tsC))).encode());
        c.send(filterOf(1, addrC).encode());
        until(WAIT, () -> latestRoot(c).equals(addrA), () -> "B's announce with root A at C: " + c.trees);
        // C's root is larger than B's: B echoes its declaration back (routing-session §1.3 step 7), limited to one
        // announce per peer per 500 ms, so after the one sent on promotion.
        until(WAIT, () -> c.trees.size() >= 2, () -> "B's root-disagreement echo to C: " + c.trees);
        // Seeing B's smaller root, C adopts B: ancestry [C, B's ancestry...] (copied verbatim, §1.2).
        final TreeAnnounce bAtC = c.trees.getLast();
        final List<CoordEntry> ancestryC = new ArrayList<>();
        ancestryC.add(new CoordEntry(addrC, 2, tsC + 1));
        ancestryC.addAll(bAtC.ancestry());
        c.send(signed(idC, 2, tsC + 1, addrB, ancestryC).encode());

        final JsonNode tree = ask(b, "show_tree");
        assertEquals(addrA.toString(), tree.get("root").asText(), tree::toString);
        assertFalse(tree.get("is_root").asBoolean());
        assertEquals(addrA.toString(), tree.get("parent").asText(), tree::toString);
        assertEquals(1, tree.get("depth").asInt(), tree::toString);
        until(WAIT, () -> ask(b, "show_tree").get("peer_tree_count").asInt() == 2,
                () -> "B holds both declarations: " + ask(b, "show_tree"));
        until(WAIT, () -> {
            int parents = 0;
            int children = 0;
            for (final JsonNode p : ask(b, "show_peers").get("peers")) {
                parents += p.get("is_parent").asBoolean() ? 1 : 0;
                children += p.get("is_child").asBoolean() ? 1 : 0;
            }
            return parents == 1 && children == 1;
        }, () -> "B: A is the parent, C a child: " + ask(b, "show_peers"));

        for (final RawPeer peer : List.of(a, c)) {
            checkDeclarations(peer, idB);
        }
        // The latest declaration carries A's entry exactly as A announced it.
        final TreeAnnounce lastAtA = a.trees.getLast();
        assertEquals(List.of(addrB, addrA), lastAtA.coords().addrs());
        assertEquals(addrA, lastAtA.parent());
        assertEquals(rootA.ancestry().getFirst(), lastAtA.ancestry().get(1), "A's entry copied verbatim");
        assertEquals(lastAtA.sequence(), lastAtA.ancestry().getFirst().sequence(), "own entry carries own sequence");
        final TreeAnnounce lastAtC = c.trees.getLast();
        assertEquals(List.of(addrB, addrA), lastAtC.coords().addrs(), "C sees B under A");
        assertEquals(lastAtA.sequence(), lastAtC.sequence(), "both peers hold B's current declaration");
        // The reference starts at sequence 1; ours deliberately starts at the wall clock in ms (SpanningTree,
        // routing-session §10.1), which a reference receiver accepts the same way (it only compares sequences).
        assertTrue(a.trees.getFirst().sequence() >= 1, "start-up sequence");
        assertTrue(a.trees.getFirst().isRoot(), "before hearing A, B is its own root");

        // ---- 2. Filters: split horizon over tree peers.
        until(Duration.ofSeconds(5),
                () -> c.filters.stream().anyMatch(f -> f.filter().contains(addrA) && f.filter().contains(addrB)),
                () -> "B's filter to C holds A and B: " + c.filters.size() + " filters");
        until(Duration.ofSeconds(5),
                () -> a.filters.stream().anyMatch(f -> f.filter().contains(addrB) && f.filter().contains(addrC)),
                () -> "B's filter to A holds B and C (C is B's child now): " + a.filters.size() + " filters");
        assertFilters(List.of(a, c), addrB);

        // ---- 3. Discovery relay: A looks C up through B.
        final SecureRandom random = new SecureRandom();
        final long requestId = random.nextLong();
        a.send(new LookupRequest(requestId, addrC, addrA, 64, 0, Coords.of(addrA)).encode());
        until(WAIT, () -> !c.requests.isEmpty(), () -> "C receives the request; " + c.problem.get());
        final LookupRequest atC = c.requests.getFirst();
        assertEquals(requestId, atC.requestId(), "same request id");
        assertEquals(63, atC.ttl(), "B decremented the TTL once");
        assertEquals(addrC, atC.target());
        assertEquals(addrA, atC.origin());
        assertEquals(Coords.of(addrA), atC.originCoords());
        final Coords coordsC = Coords.of(addrC, addrB, addrA);
        final byte[] proof = idC.sign(LookupResponse.proofBytes(requestId, addrC, coordsC));
        c.send(new LookupResponse(requestId, addrC, 0xFFFF, coordsC, proof).encode());
        until(WAIT, () -> !a.responses.isEmpty(), () -> "A receives the response; " + a.problem.get());
        final LookupResponse atA = a.responses.getFirst();
        assertEquals(requestId, atA.requestId());
        assertEquals(addrC, atA.target());
        assertEquals(coordsC, atA.targetCoords());
        assertEquals(LINK_MTU, atA.pathMtu(), "B min-folds path_mtu with its link MTU toward A");
        assertTrue(Schnorr.verifyData(idC.publicKey(), atA.proofBytes(), atA.proof()), "C's proof is intact");
        assertEquals(1, c.requests.size(), "one copy of the request");
        assertTrue(a.requests.isEmpty(), "A's filter does not hold C, so nothing bounces to A");

        // ---- 4. Transit: 100 datagrams from A to C through B's data plane.
        for (int i = 0; i < DATAGRAMS; i++) {
            a.send(new SessionDatagram(64, 0xFFFF, addrA, addrC, payload(i)).encode());
        }
        until(Duration.ofSeconds(10), () -> c.datagrams.size() >= DATAGRAMS,
                () -> "C got " + c.datagrams.size() + " of " + DATAGRAMS + "; " + NodeTestSupport.describe(b));
        for (int i = 0; i < DATAGRAMS; i++) {
            final SessionDatagram d = c.datagrams.get(i);
            assertEquals(addrA, d.src());
            assertEquals(addrC, d.dest());
            assertEquals(63, d.ttl(), "one hop decremented the TTL");
            assertEquals(LINK_MTU, d.pathMtu(), "path_mtu folded to B's link MTU");
            assertArrayEquals(payload(i), d.payload(), "datagram " + i + " intact and in order");
        }
        until(Duration.ofSeconds(5),
                () -> ask(b, "show_status").get("forwarding").get("forwarded_packets").asLong() >= DATAGRAMS,
                () -> "B's forwarded_packets: " + ask(b, "show_status").get("forwarding"));

        // A destination that is neither a peer nor cached: dropped, and A hears CoordsRequired from B.
        final NodeAddr addrD = NodeIdentity.generate().nodeAddr();
        final int burst = 20;
        final long burstStart = System.nanoTime();
        for (int i = 0; i < burst; i++) {
            a.send(new SessionDatagram(64, 0xFFFF, addrA, addrD, payload(1000 + i)).encode());
        }
        final var dp = b.dataPlane();
        until(WAIT, () -> dp.counter(DataPlaneCounter.DROP_NO_ROUTE) >= burst, () -> NodeTestSupport.describe(b));
        until(WAIT, () -> {
            final long reported = dp.counter(DataPlaneCounter.ROUTING_ERRORS_REPORTED);
            return reported >= 1 && a.datagrams.size() == reported;
        }, () -> "A receives every error B reports: " + a.datagrams.size() + "; " + NodeTestSupport.describe(b));
        final int errors = a.datagrams.size();
        for (final SessionDatagram e : a.datagrams) {
            assertEquals(addrB, e.src(), "the error comes from the transit");
            assertEquals(addrA, e.dest(), "back to the source");
            assertEquals(64, e.ttl());
            // The reference originates error signals with path_mtu 65535; only later hops fold it.
            assertEquals(0xFFFF, e.pathMtu(), "error signals leave with path_mtu 65535");
            final byte[] fsp = e.payload();
            assertEquals(new CoordsRequired(addrD, addrB),
                    ((WireResult.Ok<CoordsRequired>) CoordsRequired.decode(fsp, 0, fsp.length)).value());
        }
        final long spanNanos = a.datagramNanos.getLast() - burstStart;
        assertTrue(errors <= 1 + spanNanos / 100_000_000L, errors + " CoordsRequired within "
                + spanNanos / 1_000_000 + " ms: at most one per destination per 100 ms");
        assertEquals(burst - errors, dp.counter(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED), "the rest suppressed");
        assertEquals(DATAGRAMS, c.datagrams.size(), "nothing for D reached C");

        // ---- 5. Both links are still up (the raw peers answer B's heartbeats) and nothing broke the spec.
        until(WAIT, () -> a.heartbeats.get() >= 1 && c.heartbeats.get() >= 1, () -> "B's heartbeats");
        assertEquals(2, b.linkSnapshot().peers().size(), NodeTestSupport.describe(b));
        for (final DataPlaneCounter bad : List.of(DataPlaneCounter.DROP_AUTH_FAILED, DataPlaneCounter.DROP_REPLAY,
                DataPlaneCounter.DROP_BAD_PAYLOAD_LEN, DataPlaneCounter.DROP_SHORT_PLAINTEXT,
                DataPlaneCounter.DROP_MALFORMED_DATAGRAM, DataPlaneCounter.DROP_UNKNOWN_INDEX)) {
            assertEquals(0, dp.counter(bad), bad + ": B accepted every frame of the raw peers");
        }
        assertNull(a.problem.get());
        assertNull(c.problem.get());
    }

    /** Every TreeAnnounce B sent to {@code peer}: signed by B under the FIPS rule, semantically valid, sequenced. */
    private static void checkDeclarations(final RawPeer peer, final NodeIdentity idB) {
        TreeAnnounce prev = null;
        for (final TreeAnnounce t : peer.trees) {
            assertEquals(idB.nodeAddr(), t.nodeAddr(), "declared by B");
            // The FIPS rule: BIP-340 over SHA-256 of the 48 signed bytes (crypto-link §3.1/§3.2).
            assertTrue(Schnorr.verifyData(idB.publicKey(), t.signingBytes(), t.signature()), t::toString);
            assertTrue(Schnorr.verify(idB.publicKey(), t.signingDigest(), t.signature()));
            assertEquals(Optional.empty(), t.semanticViolation(), t::toString);
            if (prev != null) {
                final int cmp = Long.compareUnsigned(t.sequence(), prev.sequence());
                assertTrue(cmp >= 0, "sequence never goes back at " + peer.name + ": " + prev + " then " + t);
                if (cmp == 0) {
                    // A repeat (echo, re-broadcast) must be the same declaration; any change bumps the sequence.
                    assertEquals(prev.parent(), t.parent(), "changed parent without a new sequence");
                    assertEquals(prev.timestamp(), t.timestamp());
                    assertEquals(prev.ancestry(), t.ancestry(), "changed ancestry without a new sequence");
                }
            }
            prev = t;
        }
        final long distinct = peer.trees.stream().mapToLong(TreeAnnounce::sequence).distinct().count();
        assertTrue(distinct >= (peer.name.equals("A") ? 2 : 1), peer.name + " saw B's sequence advance: "
                + peer.trees);
    }

    private static NodeAddr latestRoot(final RawPeer p) {
        return p.trees.isEmpty() ? p.id.nodeAddr() : p.trees.getLast().root();
    }

    private static TreeAnnounce signed(final NodeIdentity id, final long seq, final long ts, final NodeAddr parent,
                                       final List<CoordEntry> ancestry) {
        final byte[] sig = id.sign(TreeAnnounce.signingBytes(id.nodeAddr(), parent, seq, ts));
        return new TreeAnnounce(seq, ts, parent, ancestry, sig);
    }

    private static FilterAnnounce filterOf(final long seq, final NodeAddr... addrs) {
        final BloomFilter f = BloomFilter.create();
        for (final NodeAddr x : addrs) {
            f.insert(x);
        }
        return FilterAnnounce.v1(seq, f);
    }

    /** 64 bytes: the sequence number (big-endian; first byte 0, an FSP phase-0 prefix without CP) and a pattern. */
    private static byte[] payload(final int seq) {
        final ByteBuffer p = ByteBuffer.allocate(64).putLong(seq);
        while (p.hasRemaining()) {
            p.put((byte) (seq * 31 + p.position()));
        }
        return p.array();
    }

    private static long nowSecs() {
        return System.currentTimeMillis() / 1000;
    }

    /** B's FilterAnnounces to its raw peers: v1, 5 hashes, B inside, split horizon, one rising node-wide sequence. */
    private static void assertFilters(final List<RawPeer> peers, final NodeAddr addrB) {
        final Set<Long> filterSeqs = new HashSet<>();
        for (final RawPeer peer : peers) {
            long prev = 0;
            for (final FilterAnnounce f : peer.filters) {
                assertTrue(f.isV1(), "size class 1");
                assertEquals(5, f.hashCount());
                assertTrue(f.filter().contains(addrB), "B's own address is always in its filter");
                assertFalse(f.filter().contains(peer.id.nodeAddr()), "split horizon: nothing of " + peer.name
                        + " is sent back to it");
                assertTrue(Long.compareUnsigned(f.sequence(), prev) > 0, "filter sequence increases per peer");
                prev = f.sequence();
                assertTrue(filterSeqs.add(f.sequence()), "one node-wide filter sequence counter (§2.4)");
            }
        }
    }
}
