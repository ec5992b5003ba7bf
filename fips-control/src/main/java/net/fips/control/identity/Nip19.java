package net.fips.control.identity;

import java.util.HexFormat;
import java.util.Objects;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;

/**
 * NIP-19 {@code npub}/{@code nsec} strings and the hex key forms, accepted and rejected as the reference's
 * {@code src/identity/encoding.rs} does.
 *
 * <ul>
 *   <li>{@code npub}: bech32 (see {@link Bech32} for the lenient rules), HRP {@code npub} in either case,
 *       exactly 32 payload bytes that are a valid x coordinate.</li>
 *   <li>{@code nsec}: the same with HRP {@code nsec} and a scalar 1 &lt;= k &lt; n.</li>
 *   <li>{@link #decodeSecret}: bech32 only when the text starts with the literal lowercase {@code nsec1},
 *       otherwise 64 hex digits of either case (so {@code NSEC1...} is rejected there although
 *       {@link #decodeNsec} accepts it).</li>
 * </ul>
 * Messages about secrets never repeat the secret text.
 */
public final class Nip19 {
    /** HRP of a public key. */
    public static final String NPUB_HRP = "npub";
    /** HRP of a secret key. */
    public static final String NSEC_HRP = "nsec";
    /** Bytes in a key payload. */
    public static final int KEY_LENGTH = 32;

    private static final HexFormat HEX = HexFormat.of();

    private Nip19() {
    }

    /**
     * @param xOnly 32-byte x-only public key
     * @return its {@code npub1...} string (always 63 characters)
     */
    public static String encodeNpub(final byte[] xOnly) {
        requireLength(xOnly, "x-only public key");
        return Bech32.encode(NPUB_HRP, xOnly);
    }

    /**
     * @param secret 32-byte secret key
     * @return its {@code nsec1...} string (always 63 characters)
     */
    public static String encodeNsec(final byte[] secret) {
        requireLength(secret, "secret key");
        return Bech32.encode(NSEC_HRP, secret);
    }

    /**
     * Decodes an npub.
     *
     * @param npub the string
     * @return the 32-byte x-only public key, known to lie on the curve
     * @throws IdentityFormatException when it is not bech32, has a bad checksum, another HRP, a payload other
     *     than 32 bytes, or an x that is not on the curve
     */
    public static byte[] decodeNpub(final String npub) throws IdentityFormatException {
        final byte[] key = decodeKey(npub, NPUB_HRP);
        if (!Secp256k1.isValidXOnly(key)) {
            throw new IdentityFormatException(Problem.INVALID_KEY, "invalid npub: not a point on secp256k1");
        }
        return key;
    }

    /**
     * Decodes an nsec.
     *
     * @param nsec the string
     * @return the 32-byte secret key, known to be in [1, n-1]
     * @throws IdentityFormatException as {@link #decodeNpub}, or when the scalar is out of range
     */
    public static byte[] decodeNsec(final String nsec) throws IdentityFormatException {
        final byte[] key = decodeKey(nsec, NSEC_HRP);
        return requireValidSecret(key, "invalid nsec");
    }

    /**
     * Decodes a secret key as the reference reads one from config, {@code fips.key} or the command line: bech32
     * when the text starts with the literal {@code nsec1}, otherwise hex. No whitespace is trimmed here.
     *
     * @param text the nsec or 64-hex-digit secret
     * @return the 32-byte secret key
     * @throws IdentityFormatException when the text is neither a valid nsec nor 32 bytes of hex of a valid scalar
     */
    public static byte[] decodeSecret(final String text) throws IdentityFormatException {
        Objects.requireNonNull(text, "text");
        if (text.startsWith(NSEC_HRP + "1")) {
            return decodeNsec(text);
        }
        final byte[] bytes = parseHex(text, "secret key");
        if (bytes.length != KEY_LENGTH) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid secret key: expected 32 bytes, got " + bytes.length);
        }
        return requireValidSecret(bytes, "invalid secret key");
    }

    /**
     * Decodes an x-only public key written as 64 hex digits (either case).
     *
     * @param text the hex
     * @return the 32-byte key, known to lie on the curve
     * @throws IdentityFormatException when it is not hex, not 32 bytes, or not on the curve
     */
    public static byte[] decodePublicHex(final String text) throws IdentityFormatException {
        final byte[] bytes = parseHex(text, "public key");
        if (bytes.length != KEY_LENGTH) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid public key: expected 32 bytes, got " + bytes.length);
        }
        if (!Secp256k1.isValidXOnly(bytes)) {
            throw new IdentityFormatException(Problem.INVALID_KEY, "invalid public key: not a point on secp256k1");
        }
        return bytes;
    }

    /**
     * Strict hex: an even number of ASCII {@code 0-9a-fA-F} characters (no prefix, no whitespace), as the Rust
     * {@code hex} crate accepts.
     *
     * @param text the hex
     * @param what what the value is, for the message
     * @return the bytes
     * @throws IdentityFormatException {@link Problem#BAD_HEX}
     */
    public static byte[] parseHex(final String text, final String what) throws IdentityFormatException {
        Objects.requireNonNull(text, "text");
        if ((text.length() & 1) != 0) {
            throw new IdentityFormatException(Problem.BAD_HEX, "invalid " + what + ": odd number of hex digits");
        }
        for (int i = 0; i < text.length(); i++) {
            // HexFormat.isHexDigit is ASCII-only, unlike Character.digit which takes other Unicode digits.
            if (!HexFormat.isHexDigit(text.charAt(i))) {
                throw new IdentityFormatException(Problem.BAD_HEX,
                        "invalid " + what + ": non-hex character at position " + i);
            }
        }
        return HEX.parseHex(text);
    }

    private static byte[] decodeKey(final String s, final String hrp) throws IdentityFormatException {
        final Bech32.Decoded d;
        try {
            d = Bech32.decode(s);
        } catch (final IdentityFormatException e) {
            throw new IdentityFormatException(e.problem(), "invalid " + hrp + ": " + e.getMessage());
        }
        if (!d.hrp().equals(hrp)) {
            throw new IdentityFormatException(Problem.WRONG_PREFIX,
                    "invalid " + hrp + ": expected '" + hrp + "' prefix, got '" + printable(d.hrp()) + "'");
        }
        final byte[] data = d.data();
        if (data.length != KEY_LENGTH) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid " + hrp + ": expected 32 bytes, got " + data.length);
        }
        return data;
    }

    private static byte[] requireValidSecret(final byte[] key, final String what) throws IdentityFormatException {
        if (!Secp256k1.isValidSecret(key)) {
            Secp256k1.wipe(key);
            throw new IdentityFormatException(Problem.INVALID_KEY, what + ": scalar must be in [1, n-1]");
        }
        return key;
    }

    private static String printable(final String hrp) {
        return hrp.length() <= 16 ? hrp : hrp.substring(0, 16) + "...";
    }

    private static void requireLength(final byte[] key, final String what) {
        if (key == null || key.length != KEY_LENGTH) {
            throw new IllegalArgumentException(what + " must be 32 bytes");
        }
    }
}
