package net.fips.control.nostr;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;

/**
 * A NIP-01 event: signed ({@code sig} present) or, as a NIP-59 rumor, unsigned ({@code sig} null). The id is the
 * SHA-256 of the canonical array {@code [0,pubkey,created_at,kind,tags,content]} written compactly with NIP-01's
 * escapes (discovery-gateway.md §1.3); the signature is BIP-340 over the 32-byte id with our {@link Schnorr}.
 *
 * <p>Instances are only made by {@link #sign}, {@link #rumor} and {@link #parse}, so hex fields are always
 * lowercase and of the right length; {@link #parse} checks shape only and {@link #verify} checks id and
 * signature.
 *
 * @param id        64 lowercase hex digits
 * @param pubkey    the author's x-only key, 64 lowercase hex digits
 * @param createdAt Unix seconds (an unsigned 64-bit value; negative means above 2^63)
 * @param kind      0 to 65535
 * @param tags      the tags, each a non-empty list of strings
 * @param content   the content
 * @param sig       128 lowercase hex digits, or null for a rumor
 */
public record NostrEvent(String id, String pubkey, long createdAt, int kind, List<List<String>> tags,
        String content, String sig) {
    /** Largest kind NIP-01 allows. */
    public static final int MAX_KIND = 65_535;

    private static final HexFormat HEX = HexFormat.of();
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Copies the tags so the record is immutable. */
    public NostrEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pubkey, "pubkey");
        Objects.requireNonNull(content, "content");
        final List<List<String>> copy = new ArrayList<>(tags.size());
        for (final List<String> t : tags) {
            copy.add(List.copyOf(t));
        }
        tags = List.copyOf(copy);
    }

    /**
     * The NIP-01 canonical serialisation that the id hashes.
     *
     * @param pubkeyHex lowercase hex x-only key
     * @param createdAt Unix seconds (unsigned)
     * @param kind      the kind
     * @param tags      the tags
     * @param content   the content
     * @return the UTF-8 bytes of {@code [0,pubkey,created_at,kind,tags,content]}
     */
    public static byte[] canonical(final String pubkeyHex, final long createdAt, final int kind,
            final List<List<String>> tags, final String content) {
        final StringBuilder sb = new StringBuilder(128 + content.length());
        sb.append("[0,");
        Json.quote(sb, pubkeyHex);
        sb.append(',').append(Long.toUnsignedString(createdAt)).append(',').append(kind).append(',');
        tagsJson(sb, tags);
        sb.append(',');
        Json.quote(sb, content);
        sb.append(']');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return the 32-byte id of those fields: SHA-256 of {@link #canonical} */
    public static byte[] computeId(final String pubkeyHex, final long createdAt, final int kind,
            final List<List<String>> tags, final String content) {
        return Secp256k1.sha256(canonical(pubkeyHex, createdAt, kind, tags, content));
    }

    /**
     * Builds and signs an event with fresh BIP-340 aux randomness.
     *
     * @param sk        the author's 32-byte secret key
     * @param createdAt Unix seconds
     * @param kind      0 to 65535
     * @param tags      the tags
     * @param content   the content
     * @return the signed event
     */
    public static NostrEvent sign(final byte[] sk, final long createdAt, final int kind,
            final List<List<String>> tags, final String content) {
        final byte[] aux = new byte[Schnorr.AUX_LENGTH];
        RANDOM.nextBytes(aux);
        return sign(sk, createdAt, kind, tags, content, aux);
    }

    /**
     * Builds and signs an event with the given aux randomness (deterministic, for tests and vectors).
     *
     * @param sk        the author's 32-byte secret key
     * @param createdAt Unix seconds
     * @param kind      0 to 65535
     * @param tags      the tags
     * @param content   the content
     * @param aux       32 bytes of BIP-340 aux randomness
     * @return the signed event
     */
    public static NostrEvent sign(final byte[] sk, final long createdAt, final int kind,
            final List<List<String>> tags, final String content, final byte[] aux) {
        checkKind(kind);
        final String pub = HEX.formatHex(Secp256k1.xOnly(sk));
        final byte[] id = computeId(pub, createdAt, kind, tags, content);
        return new NostrEvent(HEX.formatHex(id), pub, createdAt, kind, tags, content,
                HEX.formatHex(Schnorr.sign(sk, id, aux)));
    }

    /**
     * Builds an unsigned event with its id, as NIP-59 puts a rumor inside a seal.
     *
     * @param pubkey    the author's 32-byte x-only key
     * @param createdAt Unix seconds
     * @param kind      0 to 65535
     * @param tags      the tags
     * @param content   the content
     * @return the rumor
     */
    public static NostrEvent rumor(final byte[] pubkey, final long createdAt, final int kind,
            final List<List<String>> tags, final String content) {
        checkKind(kind);
        final String pub = HEX.formatHex(pubkey);
        return new NostrEvent(HEX.formatHex(computeId(pub, createdAt, kind, tags, content)), pub, createdAt, kind,
                tags, content, null);
    }

    private static void checkKind(final int kind) {
        if (kind < 0 || kind > MAX_KIND) {
            throw new IllegalArgumentException("event kind must be 0..65535, got " + kind);
        }
    }

    /** @return whether this event carries a signature (false for a rumor) */
    public boolean isSigned() {
        return sig != null;
    }

    /** @return the 32-byte x-only author key */
    public byte[] pubkeyBytes() {
        return HEX.parseHex(pubkey);
    }

    /**
     * Checks that the id is the hash of the fields and, for a signed event, that the signature verifies.
     *
     * @throws NostrFormatException {@link NostrFormatException.Problem#ID_MISMATCH} or
     *                              {@link NostrFormatException.Problem#BAD_SIGNATURE}
     */
    public void verify() throws NostrFormatException {
        final byte[] want = computeId(pubkey, createdAt, kind, tags, content);
        if (!HEX.formatHex(want).equals(id)) {
            throw new NostrFormatException(NostrFormatException.Problem.ID_MISMATCH,
                    "event id " + id + " is not the hash of its fields");
        }
        if (sig == null) {
            throw new NostrFormatException(NostrFormatException.Problem.BAD_SIGNATURE, "event " + id + " is unsigned");
        }
        if (!Schnorr.verify(HEX.parseHex(pubkey), want, HEX.parseHex(sig))) {
            throw new NostrFormatException(NostrFormatException.Problem.BAD_SIGNATURE,
                    "event " + id + ": signature does not verify");
        }
    }

    /** @return the value (second element) of the first tag named {@code name} */
    public Optional<String> tag(final String name) {
        for (final List<String> t : tags) {
            if (t.size() >= 2 && t.get(0).equals(name)) {
                return Optional.of(t.get(1));
            }
        }
        return Optional.empty();
    }

    /** @return the values (second elements) of every tag named {@code name}, in order */
    public List<String> tagValues(final String name) {
        final List<String> out = new ArrayList<>();
        for (final List<String> t : tags) {
            if (t.size() >= 2 && t.get(0).equals(name)) {
                out.add(t.get(1));
            }
        }
        return out;
    }

    /**
     * The NIP-40 expiration of the event, if it has a well-formed one.
     *
     * @return Unix seconds, empty without an {@code expiration} tag or with one that is not a decimal u64
     */
    public Optional<Long> expiration() {
        final Optional<String> v = tag("expiration");
        if (v.isEmpty() || v.get().isEmpty() || v.get().length() > 20
                || !v.get().chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseUnsignedLong(v.get()));
        } catch (final NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** @return whether the event has a NIP-40 expiration at or before {@code nowSecs} */
    public boolean isExpired(final long nowSecs) {
        final Optional<Long> exp = expiration();
        return exp.isPresent() && Long.compareUnsigned(exp.get(), nowSecs) <= 0;
    }

    /**
     * @return the event as compact JSON in the nostr crate's key order: id, pubkey, created_at, kind, tags,
     *     content, sig (absent for a rumor)
     */
    public String toJson() {
        final StringBuilder sb = new StringBuilder(256 + content.length());
        sb.append("{\"id\":");
        Json.quote(sb, id);
        sb.append(",\"pubkey\":");
        Json.quote(sb, pubkey);
        sb.append(",\"created_at\":").append(Long.toUnsignedString(createdAt));
        sb.append(",\"kind\":").append(kind).append(",\"tags\":");
        tagsJson(sb, tags);
        sb.append(",\"content\":");
        Json.quote(sb, content);
        if (sig != null) {
            sb.append(",\"sig\":");
            Json.quote(sb, sig);
        }
        return sb.append('}').toString();
    }

    private static void tagsJson(final StringBuilder sb, final List<List<String>> tags) {
        sb.append('[');
        for (int i = 0; i < tags.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Json.stringArray(sb, tags.get(i));
        }
        sb.append(']');
    }

    /**
     * Parses a signed event's JSON text (shape only; call {@link #verify}).
     *
     * @param json the text
     * @return the event
     * @throws NostrFormatException when it is not a well-formed signed event
     */
    public static NostrEvent parse(final String json) throws NostrFormatException {
        return fromJson(readTree(json), true);
    }

    /**
     * Parses an unsigned event (a rumor); a {@code sig} member, if present, is ignored, and a missing {@code id}
     * is computed.
     *
     * @param json the text
     * @return the rumor
     * @throws NostrFormatException when it is not a well-formed event
     */
    public static NostrEvent parseRumor(final String json) throws NostrFormatException {
        return fromJson(readTree(json), false);
    }

    static JsonNode readTree(final String json) throws NostrFormatException {
        try {
            final JsonNode n = MAPPER.readTree(json);
            if (n == null) {
                throw new NostrFormatException(NostrFormatException.Problem.MALFORMED_JSON, "empty JSON text");
            }
            return n;
        } catch (final JacksonException e) {
            throw new NostrFormatException(NostrFormatException.Problem.MALFORMED_JSON,
                    "not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads an event from a parsed JSON object.
     *
     * @param n      the object
     * @param signed whether {@code id} and {@code sig} are required
     * @return the event
     * @throws NostrFormatException when a member is missing, of the wrong type or out of range
     */
    public static NostrEvent fromJson(final JsonNode n, final boolean signed) throws NostrFormatException {
        if (n == null || !n.isObject()) {
            throw malformed("an event must be a JSON object");
        }
        final String pubkey = hex(n, "pubkey", 32);
        final JsonNode ca = n.get("created_at");
        if (ca == null || !ca.isIntegralNumber() || ca.bigIntegerValue().signum() < 0
                || ca.bigIntegerValue().bitLength() > 64) {
            throw malformed("created_at must be an unsigned 64-bit integer");
        }
        final long createdAt = ca.bigIntegerValue().longValue();
        final JsonNode k = n.get("kind");
        if (k == null || !k.isIntegralNumber() || !k.canConvertToInt() || k.intValue() < 0
                || k.intValue() > MAX_KIND) {
            throw malformed("kind must be an integer 0..65535");
        }
        final JsonNode t = n.get("tags");
        if (t == null || !t.isArray()) {
            throw malformed("tags must be an array");
        }
        final List<List<String>> tags = new ArrayList<>(t.size());
        for (final JsonNode tag : t) {
            if (!tag.isArray() || tag.isEmpty()) {
                throw malformed("each tag must be a non-empty array of strings");
            }
            final List<String> values = new ArrayList<>(tag.size());
            for (final JsonNode v : tag) {
                if (!v.isTextual()) {
                    throw malformed("each tag must be a non-empty array of strings");
                }
                values.add(v.textValue());
            }
            tags.add(values);
        }
        final JsonNode c = n.get("content");
        if (c == null || !c.isTextual()) {
            throw malformed("content must be a string");
        }
        final String content = c.textValue();
        final int kind = k.intValue();
        if (signed) {
            return new NostrEvent(hex(n, "id", 32), pubkey, createdAt, kind, tags, content, hex(n, "sig", 64));
        }
        final String id = n.has("id") && !n.get("id").isNull() ? hex(n, "id", 32)
                : HEX.formatHex(computeId(pubkey, createdAt, kind, tags, content));
        return new NostrEvent(id, pubkey, createdAt, kind, tags, content, null);
    }

    private static String hex(final JsonNode n, final String name, final int bytes) throws NostrFormatException {
        final JsonNode v = n.get(name);
        if (v == null || !v.isTextual()) {
            throw malformed(name + " must be a string of " + 2 * bytes + " hex digits");
        }
        final String s = v.textValue();
        if (s.length() != 2 * bytes) {
            throw invalid(name + " must be " + 2 * bytes + " hex digits, got " + s.length() + " characters");
        }
        for (int i = 0; i < s.length(); i++) {
            final char ch = s.charAt(i);
            if (!(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F')) {
                throw invalid(name + " must be hex digits");
            }
        }
        return s.toLowerCase(Locale.ROOT);
    }

    private static NostrFormatException malformed(final String message) {
        return new NostrFormatException(NostrFormatException.Problem.MALFORMED_JSON, message);
    }

    private static NostrFormatException invalid(final String message) {
        return new NostrFormatException(NostrFormatException.Problem.INVALID_FIELD, message);
    }
}
