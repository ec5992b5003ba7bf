package net.fips.control.nostr;

import java.util.OptionalLong;

/**
 * The checks an offer or answer must pass (discovery-gateway.md §1.11, the reference's {@code signal.rs}), with
 * its failure reasons ({@code invalid-offer}, {@code expired-offer}, ...), and the clock-skew estimate. Freshness
 * follows the reference with [master]'s fix (ADR 0039): a message issued more than 60 s in the future is stale, and
 * its expiry is trusted only up to {@code issuedAt + ttl}. Pure; times are Unix ms.
 */
public final class SignalValidation {
    /** Clock-skew grace on each side of the freshness window. */
    public static final long SKEW_TOLERANCE_MS = 60_000;

    private SignalValidation() {
    }

    /** How fresh an accepted message was. */
    public enum Freshness {
        /** Within the TTL. */
        FRESH,
        /** Only within the 60 s skew tolerance. */
        WITHIN_SKEW_TOLERANCE
    }

    /** A refused offer or answer, with the reference's reason text. */
    public static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param reason the reference's reason ({@code expired-offer}, {@code identity-mismatch}, ...) */
        public Rejected(final String reason) {
            super(reason);
        }

        /** @return the reason text */
        public String reason() {
            return getMessage();
        }
    }

    /**
     * @param issuedAt  the message's {@code issuedAt}
     * @param expiresAt the message's {@code expiresAt} (u64)
     * @param nowMs     the wall clock
     * @param ttlMs     our {@code signal_ttl_secs} in ms
     * @return how fresh it is, or null when stale
     */
    public static Freshness freshness(final long issuedAt, final long expiresAt, final long nowMs, final long ttlMs) {
        if (Long.compareUnsigned(issuedAt, nowMs + SKEW_TOLERANCE_MS) > 0) {
            return null; // future-dated (ADR 0039)
        }
        final long capped = issuedAt + ttlMs;
        final long expires = Long.compareUnsigned(expiresAt, capped) < 0 ? expiresAt : capped;
        final long age = Math.max(0, nowMs - issuedAt);
        if (expires > nowMs && age <= ttlMs) {
            return Freshness.FRESH;
        }
        if (expires + SKEW_TOLERANCE_MS > nowMs && age <= ttlMs + SKEW_TOLERANCE_MS) {
            return Freshness.WITHIN_SKEW_TOLERANCE;
        }
        return null;
    }

    /**
     * The responder's check of an offer.
     *
     * @param offer        the offer
     * @param nowMs        the wall clock
     * @param ttlMs        our signal TTL in ms
     * @param actualSender the npub of the seal's signer
     * @param localNpub    our npub
     * @return how fresh it was
     * @throws Rejected {@code invalid-offer}, {@code expired-offer} or {@code identity-mismatch}
     */
    public static Freshness validateOffer(final TraversalOffer offer, final long nowMs, final long ttlMs,
            final String actualSender, final String localNpub) throws Rejected {
        if (!TraversalOffer.TYPE.equals(offer.type())) {
            throw new Rejected("invalid-offer");
        }
        final Freshness f = freshness(offer.issuedAt(), offer.expiresAt(), nowMs, ttlMs);
        if (f == null) {
            throw new Rejected("expired-offer");
        }
        if (!offer.senderNpub().equals(actualSender) || !offer.recipientNpub().equals(localNpub)) {
            throw new Rejected("identity-mismatch");
        }
        return f;
    }

    /**
     * The initiator's check of an answer to its offer.
     *
     * @param offer        our offer
     * @param answer       the answer
     * @param nowMs        the wall clock
     * @param ttlMs        our signal TTL in ms
     * @param actualSender the npub of the answer seal's signer
     * @param localNpub    our npub
     * @return {@code FRESH} when both were strictly fresh
     * @throws Rejected {@code invalid-answer}, {@code expired-answer}, {@code session-mismatch},
     *                  {@code identity-mismatch}, {@code missing-addresses} or {@code missing-rejection-reason}
     */
    public static Freshness validateAnswer(final TraversalOffer offer, final TraversalAnswer answer,
            final long nowMs, final long ttlMs, final String actualSender, final String localNpub) throws Rejected {
        if (!TraversalAnswer.TYPE.equals(answer.type())) {
            throw new Rejected("invalid-answer");
        }
        final Freshness fo = freshness(offer.issuedAt(), offer.expiresAt(), nowMs, ttlMs);
        final Freshness fa = freshness(answer.issuedAt(), answer.expiresAt(), nowMs, ttlMs);
        if (fo == null || fa == null) {
            throw new Rejected("expired-answer");
        }
        if (!offer.sessionId().equals(answer.sessionId()) || !answer.inReplyTo().equals(offer.nonce())) {
            throw new Rejected("session-mismatch");
        }
        if (!offer.senderNpub().equals(localNpub) || !offer.recipientNpub().equals(actualSender)
                || !answer.senderNpub().equals(actualSender) || !answer.recipientNpub().equals(localNpub)) {
            throw new Rejected("identity-mismatch");
        }
        if (answer.accepted() && answer.reflexiveAddress() == null && answer.localAddresses().isEmpty()) {
            throw new Rejected("missing-addresses");
        }
        if (!answer.accepted() && (answer.reason() == null || answer.reason().isEmpty())) {
            throw new Rejected("missing-rejection-reason");
        }
        return fo == Freshness.FRESH && fa == Freshness.FRESH ? Freshness.FRESH : Freshness.WITHIN_SKEW_TOLERANCE;
    }

    /**
     * The NTP-style offset of the responder's clock: ((T2 - T1) + (T3 - T4)) / 2, rounded toward zero.
     *
     * @param offer            our offer (T1 = its {@code issuedAt})
     * @param answer           the answer (T2 = {@code offerReceivedAt}, T3 = {@code issuedAt})
     * @param answerReceivedAt when we got the answer (T4)
     * @return ms the responder is ahead (negative: behind), or empty without {@code offerReceivedAt}
     */
    public static OptionalLong estimateSkewMs(final TraversalOffer offer, final TraversalAnswer answer,
            final long answerReceivedAt) {
        if (answer.offerReceivedAt() == null) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(((answer.offerReceivedAt() - offer.issuedAt())
                + (answer.issuedAt() - answerReceivedAt)) / 2);
    }
}
