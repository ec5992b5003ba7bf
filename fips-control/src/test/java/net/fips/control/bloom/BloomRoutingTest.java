package net.fips.control.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.NodeAddr;

/** {@link BloomRouting} on its own, with a scripted tree view (the reference's {@code bloom/tests.rs} state tests). */
class BloomRoutingTest {
    private static final long MS = 1_000_000L;
    private static final long SEED = 1_780_000_000_000L;
    private static final NodeAddr ME = NodeAddr.of(0x5000, 1);
    private static final NodeAddr A = NodeAddr.of(0x1000, 1);
    private static final NodeAddr B = NodeAddr.of(0x2000, 2);
    private static final NodeAddr C = NodeAddr.of(0x3000, 3);

    private record Sent(NodeAddr to, FilterAnnounce fa) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final Set<NodeAddr> treePeers = new HashSet<>();
    private NodeAddr parent;
    private boolean failSends;
    private final BloomRouting bloom = new BloomRouting(ME, BloomConfig.defaults(), treePeers::contains,
            () -> parent, (to, fa) -> {
                if (failSends) {
                    return false;
                }
                sent.add(new Sent(to, fa));
                return true;
            }, SEED, false);

    private static BloomFilter filterOf(final NodeAddr... addrs) {
        final BloomFilter f = BloomFilter.create();
        for (final NodeAddr a : addrs) {
            f.insert(a);
        }
        return f;
    }

    private static BloomFilter synthetic(final int entries, final long salt) {
        final BloomFilter f = BloomFilter.create();
        for (int i = 0; i < entries; i++) {
            f.insert(NodeAddr.of(salt, i));
        }
        return f;
    }

    private List<NodeAddr> sentTo() {
        return sent.stream().map(Sent::to).toList();
    }

    @Test
    void newPeerGetsItsFilterOnTheNextTickWithTheSeededNodeWideSequence() {
        bloom.addPeer(A);
        bloom.addPeer(B);
        assertTrue(sent.isEmpty(), "nothing is sent outside the tick");
        bloom.tick(0);
        assertEquals(List.of(A, B), sentTo());
        assertEquals(SEED + 1, sent.get(0).fa().sequence());
        assertEquals(SEED + 2, sent.get(1).fa().sequence(), "one counter for all peers");
        assertEquals(filterOf(ME), sent.get(0).fa().filter());
        assertTrue(sent.get(0).fa().isV1());
        assertEquals(1035, sent.get(0).fa().encode().length);
        assertEquals(SEED + 2, bloom.sequence());
    }

    @Test
    void debounceHoldsASecondUpdateForFiveHundredMilliseconds() {
        treePeers.add(A);
        bloom.addPeer(A);
        bloom.addPeer(B);
        bloom.tick(0);
        sent.clear();
        bloom.markUpdateNeeded(A);
        bloom.tick(200 * MS);
        assertTrue(sent.isEmpty());
        assertTrue(bloom.isUpdatePending(A));
        bloom.tick(499 * MS);
        assertTrue(sent.isEmpty());
        bloom.tick(500 * MS);
        assertEquals(List.of(A), sentTo());
        assertFalse(bloom.isUpdatePending(A));
        bloom.tick(2000 * MS);
        assertEquals(1, sent.size(), "no periodic refresh");
    }

    @Test
    void outgoingFilterIsSplitHorizonAndTreeOnly() {
        treePeers.add(A);
        treePeers.add(B);
        for (final NodeAddr p : List.of(A, B, C)) {
            bloom.addPeer(p);
        }
        final NodeAddr x = NodeAddr.of(0x7777, 7);
        final NodeAddr y = NodeAddr.of(0x8888, 8);
        final NodeAddr z = NodeAddr.of(0x9999, 9);
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(1, filterOf(A, x)), 0));
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(B, FilterAnnounce.v1(1, filterOf(B, y)), 0));
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(C, FilterAnnounce.v1(1, filterOf(C, z)), 0));
        assertEquals(filterOf(ME, B, y), bloom.outgoingFilter(A), "A's own filter is not sent back to it");
        assertEquals(filterOf(ME, A, x), bloom.outgoingFilter(B));
        assertEquals(filterOf(ME, A, x, B, y), bloom.outgoingFilter(C), "the mesh peer's filter is never merged");
        assertTrue(bloom.mayReach(C, z), "but it is stored for routing");
        assertFalse(bloom.mayReach(A, z));
    }

    @Test
    void changedOnlyMarkingSkipsUnchangedPeersAndTheSource() {
        treePeers.add(A);
        treePeers.add(B);
        for (final NodeAddr p : List.of(A, B, C)) {
            bloom.addPeer(p);
        }
        bloom.tick(0);
        sent.clear();
        final NodeAddr x = NodeAddr.of(0x7777, 7);
        bloom.onFilterAnnounce(A, FilterAnnounce.v1(1, filterOf(A, x)), 0);
        assertFalse(bloom.isUpdatePending(A), "the source is excluded");
        assertTrue(bloom.isUpdatePending(B));
        assertTrue(bloom.isUpdatePending(C));
        bloom.tick(1000 * MS);
        assertEquals(List.of(B, C), sentTo());
        sent.clear();
        // Same content, fresher sequence: nobody's outgoing filter changes.
        bloom.onFilterAnnounce(A, FilterAnnounce.v1(2, filterOf(A, x)), 2000 * MS);
        assertFalse(bloom.isUpdatePending(B) || bloom.isUpdatePending(C));
        // A non-tree peer's news changes nobody's outgoing filter either.
        bloom.onFilterAnnounce(C, FilterAnnounce.v1(1, filterOf(C, NodeAddr.of(5, 5))), 2000 * MS);
        assertFalse(bloom.isUpdatePending(A) || bloom.isUpdatePending(B));
        bloom.tick(3000 * MS);
        assertTrue(sent.isEmpty(), "no echo storm");
    }

    @Test
    void staleUnknownMalformedAndNonV1AreCountedDrops() {
        bloom.addPeer(A);
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(5, filterOf(A)), 0));
        assertEquals(FilterOutcome.STALE, bloom.onFilterAnnounce(A, FilterAnnounce.v1(5, filterOf(A, B)), 0));
        assertEquals(FilterOutcome.STALE, bloom.onFilterAnnounce(A, FilterAnnounce.v1(4, filterOf(A, B)), 0));
        assertEquals(filterOf(A), bloom.inboundFilter(A));
        assertEquals(FilterOutcome.UNKNOWN_PEER, bloom.onFilterAnnounce(B, FilterAnnounce.v1(9, filterOf(B)), 0));
        assertEquals(FilterOutcome.DECODE_ERROR, bloom.onFilterAnnounce(A, new byte[] {0x20, 1, 2}, 0));
        // Cut inside the filter body: undecodable, and the stored filter and sequence stay.
        final byte[] truncated = Arrays.copyOf(FilterAnnounce.v1(6, filterOf(A, B)).encode(), 500);
        assertEquals(FilterOutcome.DECODE_ERROR, bloom.onFilterAnnounce(A, truncated, 0));
        final byte[] sc0 = new FilterAnnounce(9, 0, BloomFilter.withParams(4096, 5)).encode();
        assertEquals(FilterOutcome.NON_V1, bloom.onFilterAnnounce(A, sc0, 0));
        assertEquals(FilterOutcome.NON_V1, bloom.onFilterAnnounce(A, new FilterAnnounce(9, 0,
                BloomFilter.withParams(4096, 5)), 0));
        assertEquals(1, bloom.counter(BloomCounter.ACCEPTED));
        assertEquals(2, bloom.counter(BloomCounter.STALE));
        assertEquals(1, bloom.counter(BloomCounter.UNKNOWN_PEER));
        assertEquals(2, bloom.counter(BloomCounter.DECODE_ERROR));
        assertEquals(2, bloom.counter(BloomCounter.NON_V1));
        assertEquals(8, bloom.counter(BloomCounter.RECEIVED));
        assertEquals(5, bloom.inboundSequence(A));
    }

    @Test
    void poisonedFilterIsRejectedWithoutAdvancingTheSequence() {
        // The reference's bloom_poison.rs: all-ones rejected, sub-cap accepted, rejection keeps the sequence.
        bloom.addPeer(A);
        final BloomFilter subCap = synthetic(400, 1); // fill ~0.22, fpr ~5e-4
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(10, subCap), 0));
        final byte[] ones = new byte[1024];
        Arrays.fill(ones, (byte) 0xFF);
        assertEquals(FilterOutcome.FILL_EXCEEDED,
                bloom.onFilterAnnounce(A, FilterAnnounce.v1(11, BloomFilter.fromBytes(ones, 5)), 0));
        assertEquals(subCap, bloom.inboundFilter(A), "previous filter kept");
        assertEquals(10, bloom.inboundSequence(A), "previous sequence kept");
        final BloomFilter heavy = synthetic(2500, 2); // fill ~0.78, fpr ~0.29 > 0.20
        assertEquals(FilterOutcome.FILL_EXCEEDED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(12, heavy), 0));
        final BloomFilter recovered = synthetic(1900, 3); // fill ~0.69, fpr ~0.16 < 0.20
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(11, recovered), 0),
                "the sequence of a rejected filter is still usable");
        assertEquals(2, bloom.counter(BloomCounter.FILL_EXCEEDED));
    }

    @Test
    void removedPeerStateIsDroppedAndTheOthersAreMarked() {
        treePeers.add(A);
        bloom.addPeer(A);
        bloom.addPeer(B);
        bloom.onFilterAnnounce(A, FilterAnnounce.v1(3, filterOf(A, C)), 0);
        bloom.tick(0);
        sent.clear();
        bloom.removePeer(A);
        assertTrue(bloom.isUpdatePending(B));
        assertNull(bloom.inboundFilter(A));
        assertEquals(filterOf(ME), bloom.outgoingFilter(B));
        bloom.tick(1000 * MS);
        assertEquals(List.of(B), sentTo());
        assertEquals(filterOf(ME), sent.getFirst().fa().filter());
        bloom.addPeer(A);
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(1, filterOf(A)), 0),
                "a re-added peer starts from sequence 0");
    }

    @Test
    void failedSendConsumesASequenceAndStaysPending() {
        bloom.addPeer(A);
        failSends = true;
        bloom.tick(0);
        assertEquals(1, bloom.counter(BloomCounter.SEND_FAILED));
        assertTrue(bloom.isUpdatePending(A));
        failSends = false;
        bloom.tick(1);
        assertEquals(SEED + 2, sent.getFirst().fa().sequence());
    }

    @Test
    void meshSizeEstimateUnionsEveryPeerFilterOnce() {
        bloom.tick(0);
        assertTrue(bloom.estimatedMeshSize().isEmpty(), "no peer filter yet");
        bloom.addPeer(A);
        bloom.addPeer(C);
        final BloomFilter fa = synthetic(30, 9);
        fa.insert(A);
        final BloomFilter fc = synthetic(30, 9); // the same 30 overlap
        fc.insert(C);
        bloom.onFilterAnnounce(A, FilterAnnounce.v1(1, fa), 0);
        bloom.onFilterAnnounce(C, FilterAnnounce.v1(1, fc), 0);
        bloom.tick(MS);
        final long n = bloom.estimatedMeshSize().orElseThrow();
        assertTrue(n >= 31 && n <= 35, "30 shared + A + C + me = 33, got " + n);
    }

    @Test
    void leafDependentsAreAdvertisedAndLeafOnlyIsReported() {
        bloom.addPeer(A);
        bloom.tick(0);
        sent.clear();
        bloom.addLeafDependent(C);
        assertTrue(bloom.isUpdatePending(A));
        assertEquals(filterOf(ME, C), bloom.outgoingFilter(A));
        assertTrue(bloom.removeLeafDependent(C));
        assertEquals(filterOf(ME), bloom.outgoingFilter(A));
        final BloomRouting leaf = new BloomRouting(ME, BloomConfig.defaults(), p -> false, () -> null,
                (p, f) -> true, 0, true);
        assertTrue(leaf.isLeafOnly());
        assertTrue(leaf.snapshot().isLeafOnly());
    }

    @Test
    void snapshotCarriesEveryShowBloomField() {
        treePeers.add(A);
        bloom.addPeer(A);
        bloom.addPeer(B);
        bloom.onFilterAnnounce(A, FilterAnnounce.v1(7, filterOf(A, C)), 0);
        BloomSnapshot s = bloom.snapshot();
        assertNull(s.uptreeFillRatio(), "root: no uptree filter");
        parent = A;
        bloom.tick(0);
        s = bloom.snapshot();
        assertEquals(ME, s.ownNodeAddr());
        assertFalse(s.isLeafOnly());
        assertEquals(SEED + 2, s.sequence());
        assertEquals(List.of(), s.leafDependents());
        assertEquals(2, s.peerFilters().size());
        final BloomSnapshot.PeerFilter pa = s.peerFilters().get(0);
        assertTrue(pa.hasFilter());
        assertEquals(7, pa.filterSequence());
        assertEquals(filterOf(A, C).countOnes(), pa.setBits());
        assertEquals(2.0, pa.estimatedCount(), 0.05);
        final BloomSnapshot.PeerFilter pb = s.peerFilters().get(1);
        assertFalse(pb.hasFilter());
        assertNull(pb.setBits());
        assertEquals(filterOf(ME).fillRatio(), s.uptreeFillRatio());
        assertEquals(1.0, s.uptreeEstimatedCount(), 0.01);
        assertEquals(BloomCounter.values().length, s.stats().size());
        assertEquals(2L, s.stats().get("sent"));
    }

    @Test
    void ownFilterOverTheCapWarnsAtMostOncePerMinute() {
        treePeers.add(A);
        treePeers.add(B);
        for (final NodeAddr p : List.of(A, B, C)) {
            bloom.addPeer(p);
        }
        // Each inbound filter is under the cap; their union (what C gets) is not.
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(A, FilterAnnounce.v1(1, synthetic(1900, 4)), 0));
        assertEquals(FilterOutcome.ACCEPTED, bloom.onFilterAnnounce(B, FilterAnnounce.v1(1, synthetic(1900, 5)), 0));
        bloom.tick(0);
        assertEquals(3, sent.size());
        assertEquals(1, bloom.ownFilterFprWarnings());
        bloom.markAllUpdatesNeeded();
        bloom.tick(1000 * MS);
        assertEquals(6, sent.size());
        assertEquals(1, bloom.ownFilterFprWarnings(), "rate-limited");
        bloom.markAllUpdatesNeeded();
        bloom.tick(60_000 * MS);
        assertEquals(2, bloom.ownFilterFprWarnings());
    }
}
