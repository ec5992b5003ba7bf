package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Offer/answer validation, freshness and skew (§1.11) and the replay cache (§1.12), ported from §7.2's cases. */
class SignalLogicTest {
    private static final long T1 = 1_700_000_000_000L;
    private static final String CLIENT = "npub1client";
    private static final String SERVER = "npub1server";

    private static TraversalOffer offer(final long issuedAt, final long ttlMs) {
        return new TraversalOffer("offer", "sess-1", issuedAt, issuedAt + ttlMs, "offer-1", CLIENT, SERVER, null,
                List.of(new TraversalAddress("udp", "192.168.1.10", 62000)), null);
    }

    private static TraversalAnswer answer(final long issuedAt, final long ttlMs, final boolean accepted,
            final String reason, final Long offerReceivedAt) {
        return new TraversalAnswer("answer", "sess-1", issuedAt, issuedAt + ttlMs, "answer-1", SERVER, CLIENT,
                "offer-1", accepted, accepted ? new TraversalAddress("udp", "198.51.100.20", 63000) : null, List.of(),
                null, null, reason, offerReceivedAt);
    }

    private static String reason(final Executable e) {
        return assertThrows(SignalValidation.Rejected.class, e).reason();
    }

    @Test
    void offerAndAnswerPairValidates() throws Exception {
        final TraversalOffer o = offer(T1, 60_000);
        assertEquals(SignalValidation.Freshness.FRESH,
                SignalValidation.validateOffer(o, T1 + 1000, 60_000, CLIENT, SERVER));
        assertEquals(SignalValidation.Freshness.FRESH, SignalValidation.validateAnswer(o,
                answer(T1 + 500, 60_000, true, null, null), T1 + 1000, 60_000, SERVER, CLIENT));
        assertEquals(SignalValidation.Freshness.FRESH, SignalValidation.validateAnswer(o,
                answer(T1 + 500, 60_000, false, "no-usable-addresses", null), T1 + 1000, 60_000, SERVER, CLIENT));
    }

    @Test
    void claimedSenderMustBeTheActualSender() {
        final TraversalOffer o = offer(T1, 60_000);
        assertEquals("identity-mismatch",
                reason(() -> SignalValidation.validateOffer(o, T1, 60_000, "npub1mallory", SERVER)));
        assertEquals("identity-mismatch",
                reason(() -> SignalValidation.validateOffer(o, T1, 60_000, CLIENT, "npub1someoneelse")));
        assertEquals("identity-mismatch", reason(() -> SignalValidation.validateAnswer(o,
                answer(T1, 60_000, true, null, null), T1, 60_000, "npub1mallory", CLIENT)));
    }

    @Test
    void answerRulesInTheReferencesOrder() {
        final TraversalOffer o = offer(T1, 60_000);
        final TraversalAnswer good = answer(T1, 60_000, true, null, null);
        assertEquals("invalid-answer", reason(() -> SignalValidation.validateAnswer(o, new TraversalAnswer("offer",
                "sess-1", T1, T1 + 60_000, "a", SERVER, CLIENT, "offer-1", true, null, List.of(), null, null, null,
                null), T1, 60_000, SERVER, CLIENT)));
        assertEquals("expired-answer",
                reason(() -> SignalValidation.validateAnswer(o, good, T1 + 200_000, 60_000, SERVER, CLIENT)));
        assertEquals("session-mismatch", reason(() -> SignalValidation.validateAnswer(o, new TraversalAnswer(
                "answer", "sess-2", T1, T1 + 60_000, "a", SERVER, CLIENT, "offer-1", true, null, List.of(), null, null,
                null, null), T1, 60_000, SERVER, CLIENT)));
        assertEquals("session-mismatch", reason(() -> SignalValidation.validateAnswer(o, new TraversalAnswer(
                "answer", "sess-1", T1, T1 + 60_000, "a", SERVER, CLIENT, "other", true, null, List.of(), null, null,
                null, null), T1, 60_000, SERVER, CLIENT)));
        assertEquals("missing-addresses", reason(() -> SignalValidation.validateAnswer(o, new TraversalAnswer(
                "answer", "sess-1", T1, T1 + 60_000, "a", SERVER, CLIENT, "offer-1", true, null, List.of(), null, null,
                null, null), T1, 60_000, SERVER, CLIENT)));
        assertEquals("missing-rejection-reason", reason(() -> SignalValidation.validateAnswer(o,
                answer(T1, 60_000, false, "", null), T1, 60_000, SERVER, CLIENT)));
    }

    @Test
    void freshnessStrictToleratedAndStale() {
        assertEquals(SignalValidation.Freshness.FRESH, SignalValidation.freshness(T1, T1 + 60_000, T1 + 30_000,
                60_000));
        // 90 s after issue with a 60 s TTL: only within the skew tolerance.
        assertEquals(SignalValidation.Freshness.WITHIN_SKEW_TOLERANCE,
                SignalValidation.freshness(T1, T1 + 60_000, T1 + 90_000, 60_000));
        // 130 s: stale, and an offer that old is refused as expired-offer.
        assertNull(SignalValidation.freshness(T1, T1 + 60_000, T1 + 130_000, 60_000));
        assertEquals("expired-offer", reason(() -> SignalValidation.validateOffer(offer(T1, 60_000), T1 + 130_000,
                60_000, CLIENT, SERVER)));
    }

    @Test
    void futureDatedSignalsAndInflatedExpiriesAreNotTrusted() {
        // [master]'s rule (ADR 0039): more than 60 s in the future is stale; exactly 60 s is still accepted.
        assertNull(SignalValidation.freshness(T1 + 60_001, T1 + 120_000, T1, 60_000));
        assertEquals(SignalValidation.Freshness.FRESH, SignalValidation.freshness(T1 + 60_000, T1 + 120_000, T1,
                60_000));
        // An expiresAt far beyond issuedAt + ttl is capped: 100 s after issue with ttl 60 s is not strictly fresh.
        assertEquals(SignalValidation.Freshness.WITHIN_SKEW_TOLERANCE,
                SignalValidation.freshness(T1, Long.MAX_VALUE, T1 + 100_000, 60_000));
        assertNull(SignalValidation.freshness(T1, -1L, T1 + 130_000, 60_000));
    }

    @Test
    void skewEstimateOfTheWorkedExample() {
        final TraversalOffer o = offer(T1, 60_000);
        assertEquals(OptionalLong.of(500), SignalValidation.estimateSkewMs(o,
                answer(T1 + 550, 60_000, true, null, T1 + 550), T1 + 100));
        assertEquals(OptionalLong.empty(), SignalValidation.estimateSkewMs(o,
                answer(T1 + 550, 60_000, true, null, null), T1 + 900));
        // Rounded toward zero, also when negative.
        assertEquals(OptionalLong.of(-1), SignalValidation.estimateSkewMs(o,
                answer(T1, 60_000, true, null, T1 - 1), T1 + 2));
    }

    @Test
    void replayCacheRefusesKnownIdsUntilTheyExpireAndEvictsSoonest() {
        final ReplayCache cache = new ReplayCache(2, 300_000);
        assertTrue(cache.markSeen("a", T1));
        assertFalse(cache.markSeen("a", T1 + 299_999));
        assertTrue(cache.markSeen("a", T1 + 300_000));
        assertTrue(cache.markSeen("b", T1 + 300_001));
        assertTrue(cache.markSeen("c", T1 + 300_002));
        assertEquals(2, cache.size());
        // "a" (soonest to expire) was evicted, "b" and "c" are still known.
        assertFalse(cache.markSeen("b", T1 + 300_003));
        assertFalse(cache.markSeen("c", T1 + 300_003));
        assertTrue(cache.markSeen("a", T1 + 300_004));
    }
}
