package net.fips.control.nostr;

import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An answer to an offer (discovery-gateway.md §1.4), compact JSON in the reference's key order: {@code null}
 * written for absent optional members except {@code offerReceivedAt}, which is omitted when unknown.
 *
 * @param type             {@code answer} in a valid answer
 * @param sessionId        the offer's session id
 * @param issuedAt         Unix ms (u64)
 * @param expiresAt        Unix ms (u64)
 * @param nonce            a fresh nonce
 * @param senderNpub       the responder's npub
 * @param recipientNpub    the initiator's npub
 * @param inReplyTo        the offer's nonce
 * @param accepted         whether the responder will punch
 * @param reflexiveAddress the responder's STUN-learned address, or null
 * @param localAddresses   host candidates, possibly empty
 * @param stunServer       the STUN server used, or null
 * @param punch            the responder's punch schedule, null when not accepted
 * @param reason           why not accepted ({@code no-usable-addresses}), else null
 * @param offerReceivedAt  Unix ms at which the responder got the offer, or null (omitted)
 */
public record TraversalAnswer(String type, String sessionId, long issuedAt, long expiresAt, String nonce,
        String senderNpub, String recipientNpub, String inReplyTo, boolean accepted,
        TraversalAddress reflexiveAddress, List<TraversalAddress> localAddresses, String stunServer,
        PunchHint punch, String reason, Long offerReceivedAt) {
    /** The {@code type} of an answer. */
    public static final String TYPE = "answer";

    /** Checks required members and copies the list. */
    public TraversalAnswer {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(senderNpub, "senderNpub");
        Objects.requireNonNull(recipientNpub, "recipientNpub");
        Objects.requireNonNull(inReplyTo, "inReplyTo");
        localAddresses = List.copyOf(localAddresses);
    }

    /** @return the compact JSON the reference writes */
    public String toJson() {
        final Json j = Json.object().str("type", type).str("sessionId", sessionId).unsigned("issuedAt", issuedAt)
                .unsigned("expiresAt", expiresAt).str("nonce", nonce).str("senderNpub", senderNpub)
                .str("recipientNpub", recipientNpub).str("inReplyTo", inReplyTo).bool("accepted", accepted)
                .raw("reflexiveAddress", TraversalAddress.toJson(reflexiveAddress))
                .raw("localAddresses", TraversalAddress.listJson(localAddresses)).str("stunServer", stunServer)
                .raw("punch", punch == null ? null : punch.toJson()).str("reason", reason);
        if (offerReceivedAt != null) {
            j.unsigned("offerReceivedAt", offerReceivedAt);
        }
        return j.close();
    }

    /**
     * Decodes an answer as serde does: required members present and typed, unknown members ignored.
     *
     * @param json the rumor content
     * @return the answer
     * @throws NostrFormatException when it does not decode
     */
    public static TraversalAnswer parse(final String json) throws NostrFormatException {
        final JsonNode n = Fields.object(json, "answer");
        return new TraversalAnswer(Fields.str(n, "type"), Fields.str(n, "sessionId"), Fields.u64(n, "issuedAt"),
                Fields.u64(n, "expiresAt"), Fields.str(n, "nonce"), Fields.str(n, "senderNpub"),
                Fields.str(n, "recipientNpub"), Fields.str(n, "inReplyTo"), Fields.bool(n, "accepted"),
                TraversalAddress.read(n.get("reflexiveAddress"), "reflexiveAddress"),
                TraversalAddress.readList(n, "localAddresses"), Fields.optStr(n, "stunServer"),
                PunchHint.read(n.get("punch")), Fields.optStr(n, "reason"), Fields.optU64(n, "offerReceivedAt"));
    }
}
