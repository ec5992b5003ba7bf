package net.fips.control.nostr;

import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An offer: the rumor content that opens a NAT traversal (discovery-gateway.md §1.4), compact JSON in the
 * reference's key order, {@code null} written for absent optional members.
 *
 * @param type             {@code offer} in a valid offer
 * @param sessionId        {@code <unix ms>-<16 hex>}
 * @param issuedAt         Unix ms (u64)
 * @param expiresAt        Unix ms (u64)
 * @param nonce            for an offer, the same string as {@code sessionId}
 * @param senderNpub       the sender's npub
 * @param recipientNpub    the recipient's npub
 * @param reflexiveAddress the sender's STUN-learned address, or null
 * @param localAddresses   host candidates, possibly empty
 * @param stunServer       the STUN server used, or null
 */
public record TraversalOffer(String type, String sessionId, long issuedAt, long expiresAt, String nonce,
        String senderNpub, String recipientNpub, TraversalAddress reflexiveAddress,
        List<TraversalAddress> localAddresses, String stunServer) {
    /** The {@code type} of an offer. */
    public static final String TYPE = "offer";

    /** Checks required members and copies the list. */
    public TraversalOffer {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(senderNpub, "senderNpub");
        Objects.requireNonNull(recipientNpub, "recipientNpub");
        localAddresses = List.copyOf(localAddresses);
    }

    /** @return the compact JSON the reference writes */
    public String toJson() {
        return Json.object().str("type", type).str("sessionId", sessionId).unsigned("issuedAt", issuedAt)
                .unsigned("expiresAt", expiresAt).str("nonce", nonce).str("senderNpub", senderNpub)
                .str("recipientNpub", recipientNpub).raw("reflexiveAddress", TraversalAddress.toJson(reflexiveAddress))
                .raw("localAddresses", TraversalAddress.listJson(localAddresses)).str("stunServer", stunServer)
                .close();
    }

    /**
     * Decodes an offer as serde does: required members present and typed, unknown members ignored.
     *
     * @param json the rumor content
     * @return the offer
     * @throws NostrFormatException when it does not decode
     */
    public static TraversalOffer parse(final String json) throws NostrFormatException {
        final JsonNode n = Fields.object(json, "offer");
        return new TraversalOffer(Fields.str(n, "type"), Fields.str(n, "sessionId"), Fields.u64(n, "issuedAt"),
                Fields.u64(n, "expiresAt"), Fields.str(n, "nonce"), Fields.str(n, "senderNpub"),
                Fields.str(n, "recipientNpub"), TraversalAddress.read(n.get("reflexiveAddress"), "reflexiveAddress"),
                TraversalAddress.readList(n, "localAddresses"), Fields.optStr(n, "stunServer"));
    }
}
