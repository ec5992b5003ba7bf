package net.fips.control.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link LanPeers}: when a LAN peer is due for a dial, driven by a clock of our own (no waiting). */
class LanPeersTest {
    private static final long S = 1_000_000_000L;
    private static final String A = "npub1aaaaaaaaaaaqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq";
    private static final String B = "npub1bbbbbbbbbbbqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq";
    private static final InetSocketAddress AT = new InetSocketAddress("10.0.0.2", 2121);

    private static List<String> due(final LanPeers p, final long now) {
        return p.due(now).stream().map(LanPeers.Peer::npub).toList();
    }

    @Test
    void aNewPeerIsDueAtOnceThenBacksOffDoublingUpToTheCap() {
        final LanPeers p = new LanPeers(5 * S, 20 * S);
        final long t0 = 1_000 * S;
        assertTrue(p.seen(A, "fips-overlay-v1", AT, t0));
        assertEquals(List.of(A), due(p, t0));
        p.dialled(A, LanPeers.Outcome.STARTED, t0);
        assertEquals(List.of(), due(p, t0 + 5 * S - 1));
        assertEquals(List.of(A), due(p, t0 + 5 * S));
        p.dialled(A, LanPeers.Outcome.STARTED, t0 + 5 * S);
        assertEquals(List.of(), due(p, t0 + 15 * S - 1), "10 s after the second dial");
        p.dialled(A, LanPeers.Outcome.REFUSED, t0 + 15 * S);
        assertEquals(List.of(), due(p, t0 + 35 * S - 1), "20 s (the cap) after the refusal");
        p.dialled(A, LanPeers.Outcome.STARTED, t0 + 35 * S);
        assertEquals(List.of(A), due(p, t0 + 55 * S), "still the cap");
        assertEquals(3, p.dialsStarted());
        assertEquals(3, p.snapshot().getFirst().dials());
        // A repeated announcement at the same address does not make it due earlier.
        assertFalse(p.seen(A, "fips-overlay-v1", AT, t0 + 36 * S));
        assertEquals(List.of(), due(p, t0 + 36 * S));
    }

    @Test
    void aLinkedPeerIsCheckedEveryBaseIntervalAndItsBackoffStartsOver() {
        final LanPeers p = new LanPeers(5 * S, 300 * S);
        p.seen(A, null, AT, 0);
        p.dialled(A, LanPeers.Outcome.STARTED, 0);
        p.dialled(A, LanPeers.Outcome.STARTED, 5 * S);
        assertTrue(p.dialled(A, LanPeers.Outcome.LINKED, 15 * S), "newly linked");
        assertFalse(p.dialled(A, LanPeers.Outcome.LINKED, 20 * S), "reported once");
        assertEquals(List.of(A), due(p, 25 * S));
        p.dialled(A, LanPeers.Outcome.STARTED, 25 * S);
        assertEquals(List.of(A), due(p, 30 * S), "the link was lost: the backoff starts at the base again");
        assertEquals(LanPeers.Outcome.STARTED, p.snapshot().getFirst().lastOutcome());
        assertTrue(p.dialled(A, LanPeers.Outcome.LINKED, 30 * S), "linked again");
        p.dialled(A, LanPeers.Outcome.IN_PROGRESS, 35 * S);
        assertEquals(List.of(A), due(p, 40 * S));
    }

    @Test
    void aWithdrawnPeerIsNotDueUntilItIsAnnouncedAgainAndAMoveIsNews() {
        final LanPeers p = new LanPeers(5 * S, 300 * S);
        p.seen(A, null, AT, 0);
        p.seen(B, null, new InetSocketAddress("10.0.0.3", 2121), 0);
        p.dialled(A, LanPeers.Outcome.STARTED, 0);
        assertEquals(List.of(A), p.gone(LanAdvert.instanceName(A)));
        assertEquals(List.of(), p.gone("fips-npub1unknown"));
        assertEquals(List.of(B), due(p, 100 * S), "A is withdrawn, B never dialled");
        assertFalse(p.snapshot().getFirst().present());
        assertTrue(p.seen(A, null, AT, 101 * S), "re-appeared");
        assertEquals(List.of(A, B), due(p, 101 * S), "due at once");
        p.dialled(A, LanPeers.Outcome.STARTED, 101 * S);
        assertTrue(p.seen(A, null, new InetSocketAddress("10.0.0.9", 2121), 102 * S), "moved");
        assertEquals(List.of(A, B), due(p, 102 * S));
        assertEquals(new InetSocketAddress("10.0.0.9", 2121), p.snapshot().getFirst().address());
        assertEquals(0, p.snapshot().getFirst().firstSeen());
        assertEquals(102 * S, p.snapshot().getFirst().lastSeen());
        assertFalse(p.dialled("npub1nobody", LanPeers.Outcome.STARTED, 0), "unknown peers are ignored");
    }

    @Test
    void aPeerAtSeveralAddressesKeepsThemAllAndADialThatDidNotLinkMovesOnToTheNext() {
        final LanPeers p = new LanPeers(5 * S, 300 * S);
        final InetSocketAddress v6 = new InetSocketAddress("fd00:77::2", 2121);
        final InetSocketAddress ll = new InetSocketAddress("fe80::2", 2121);
        assertTrue(p.seen(A, null, AT, 0));
        p.dialled(A, LanPeers.Outcome.STARTED, 0);
        assertTrue(p.seen(A, null, v6, S), "a new address is news");
        assertEquals(List.of(v6), p.due(S).stream().map(LanPeers.Peer::address).toList(), "dialled at once, there");
        p.dialled(A, LanPeers.Outcome.IN_PROGRESS, S);
        assertFalse(p.seen(A, null, AT, 2 * S), "a known address is no news");
        assertFalse(p.seen(A, null, v6, 2 * S));
        assertTrue(p.seen(A, null, ll, 2 * S));
        p.dialled(A, LanPeers.Outcome.STARTED, 2 * S);
        assertEquals(List.of(AT, v6, ll), p.snapshot().getFirst().addresses(), "in the order first seen");
        // The handshake to ll did not link: the next attempt goes to the next address, round the list.
        assertEquals(List.of(AT), p.due(7 * S).stream().map(LanPeers.Peer::address).toList());
        assertEquals(List.of(AT), p.due(7 * S).stream().map(LanPeers.Peer::address).toList(),
                "not dialled yet (the per-tick cap): it stays there");
        p.dialled(A, LanPeers.Outcome.REFUSED, 7 * S);
        assertEquals(List.of(v6), p.due(17 * S).stream().map(LanPeers.Peer::address).toList());
        p.dialled(A, LanPeers.Outcome.LINKED, 17 * S);
        assertEquals(List.of(v6), p.due(22 * S).stream().map(LanPeers.Peer::address).toList(),
                "linked: it stays at the address that linked");
    }

    @Test
    void addressesAreBoundedAndStaleOnesForgotten() {
        final LanPeers p = new LanPeers(5 * S, 300 * S);
        for (int i = 0; i < LanPeers.MAX_ADDRESSES + 3; i++) {
            p.seen(A, null, new InetSocketAddress("10.0.1." + i, 2121), i * S);
        }
        final List<InetSocketAddress> kept = p.snapshot().getFirst().addresses();
        assertEquals(LanPeers.MAX_ADDRESSES, kept.size());
        assertFalse(kept.contains(new InetSocketAddress("10.0.1.0", 2121)), "the least recently seen went");
        assertTrue(kept.contains(new InetSocketAddress("10.0.1.10", 2121)));
        final long later = 10 * S + LanPeers.STALE_NANOS + 1;
        p.seen(A, null, new InetSocketAddress("10.0.1.10", 2121), later);
        assertEquals(List.of(new InetSocketAddress("10.0.1.10", 2121)), p.snapshot().getFirst().addresses(),
                "only the one announced within the stale time is left");
    }

    @Test
    void theTableIsBoundedWithdrawnPeersGoFirst() {
        final LanPeers p = new LanPeers(S, S);
        for (int i = 0; i < LanPeers.MAX_PEERS; i++) {
            p.seen("npub1peer" + i, null, AT, i);
        }
        p.gone(LanAdvert.instanceName("npub1peer7"));
        p.seen("npub1late", null, AT, 10_000);
        assertEquals(LanPeers.MAX_PEERS, p.snapshot().size());
        assertTrue(p.snapshot().stream().noneMatch(e -> e.npub().equals("npub1peer7")), "the withdrawn one went");
        p.seen("npub1later", null, AT, 10_001);
        assertTrue(p.snapshot().stream().noneMatch(e -> e.npub().equals("npub1peer0")), "then the oldest seen");
        assertEquals(2, p.evicted());
        assertNull(p.snapshot().getFirst().lastOutcome());
        assertThrows(IllegalArgumentException.class, () -> new LanPeers(0, S));
        assertThrows(IllegalArgumentException.class, () -> new LanPeers(2 * S, S));
    }
}
