package net.fips.control.crypto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * BIP-340 Schnorr signatures over secp256k1, plus the FIPS signing rule.
 *
 * <p>{@link #sign} and {@link #verify} are plain BIP-340 and accept messages of any length, as the current BIP
 * does. FIPS never signs application bytes directly: it signs the 32-byte SHA-256 of them ({@link #signData},
 * {@link #verifyData}), and the reference draws fresh aux randomness for every signature, so its signatures are
 * not reproducible and peers only ever verify them.
 *
 * <p>The arithmetic runs on the {@linkplain Secp256k1Backends#active() active backend} (libsecp256k1 when it loads,
 * else BouncyCastle); both give the same signatures and verdicts.
 */
public final class Schnorr {
    /** Length of a signature: R.x (32) followed by s (32). */
    public static final int SIGNATURE_LENGTH = 64;
    /** Length of a BIP-340 aux randomness value. */
    public static final int AUX_LENGTH = 32;

    /** The 64-byte prefixes of the BIP-340 tagged hashes (the BouncyCastle backend's). */
    static final byte[] TAG_AUX = tagPrefix("BIP0340/aux");
    static final byte[] TAG_NONCE = tagPrefix("BIP0340/nonce");
    static final byte[] TAG_CHALLENGE = tagPrefix("BIP0340/challenge");
    private static final SecureRandom RANDOM = new SecureRandom();

    private Schnorr() {
    }

    /**
     * Signs {@code msg} exactly as BIP-340 specifies.
     *
     * @param sk  32-byte secret key, 1 <= k < n
     * @param msg the message (any length; FIPS passes a 32-byte digest)
     * @param aux 32 bytes of auxiliary randomness
     * @return the 64-byte signature
     * @throws IllegalArgumentException when {@code sk} is not a valid secret or {@code aux} is not 32 bytes
     */
    public static byte[] sign(final byte[] sk, final byte[] msg, final byte[] aux) {
        Objects.requireNonNull(msg, "msg");
        if (aux == null || aux.length != AUX_LENGTH) {
            throw new IllegalArgumentException("BIP-340 aux randomness must be 32 bytes");
        }
        Secp256k1.scalar(sk);
        return Secp256k1Backends.active().sign(sk, msg, aux);
    }

    /**
     * Verifies a BIP-340 signature. Malformed inputs (wrong lengths, key not on the curve, r >= p, s >= n) make
     * the signature invalid rather than throwing.
     *
     * @param xOnlyPub 32-byte x-only public key
     * @param msg      the signed message (any length)
     * @param sig      the 64-byte signature
     * @return true only for a valid signature
     */
    public static boolean verify(final byte[] xOnlyPub, final byte[] msg, final byte[] sig) {
        if (xOnlyPub == null || xOnlyPub.length != 32 || msg == null || sig == null
                || sig.length != SIGNATURE_LENGTH) {
            return false;
        }
        return Secp256k1Backends.active().verify(xOnlyPub, msg, sig);
    }

    /**
     * The FIPS signing rule: BIP-340 over SHA-256({@code data}) with fresh random aux data, as the reference's
     * {@code Identity::sign} does.
     *
     * @param sk   32-byte secret key
     * @param data the bytes to sign (any length)
     * @return the 64-byte signature
     */
    public static byte[] signData(final byte[] sk, final byte[] data) {
        final byte[] aux = new byte[AUX_LENGTH];
        RANDOM.nextBytes(aux);
        return signData(sk, data, aux);
    }

    /**
     * The FIPS signing rule with caller-chosen aux data (deterministic; 32 zero bytes reproduce the vectors'
     * {@code deterministic_*} signatures).
     *
     * @param sk   32-byte secret key
     * @param data the bytes to sign
     * @param aux  32 bytes of aux randomness
     * @return the 64-byte signature
     */
    public static byte[] signData(final byte[] sk, final byte[] data, final byte[] aux) {
        return sign(sk, Secp256k1.sha256(Objects.requireNonNull(data, "data")), aux);
    }

    /**
     * The FIPS verification rule: BIP-340 over SHA-256({@code data}).
     *
     * @param xOnlyPub 32-byte x-only public key
     * @param data     the signed bytes
     * @param sig      the 64-byte signature
     * @return true only for a valid signature
     */
    public static boolean verifyData(final byte[] xOnlyPub, final byte[] data, final byte[] sig) {
        return data != null && verify(xOnlyPub, Secp256k1.sha256(data), sig);
    }

    /**
     * BIP-340 tagged hash: SHA-256(SHA-256(tag) || SHA-256(tag) || parts...).
     *
     * @param tag   the ASCII tag
     * @param parts the data
     * @return the 32-byte hash
     */
    public static byte[] taggedHash(final String tag, final byte[]... parts) {
        return taggedHash(tagPrefix(tag), parts);
    }

    static byte[] taggedHash(final byte[] prefix, final byte[]... parts) {
        final MessageDigest md = sha256();
        md.update(prefix);
        for (final byte[] part : parts) {
            md.update(part);
        }
        return md.digest();
    }

    private static byte[] tagPrefix(final String tag) {
        final byte[] h = Secp256k1.sha256(tag.getBytes(StandardCharsets.UTF_8));
        final byte[] prefix = new byte[64];
        System.arraycopy(h, 0, prefix, 0, 32);
        System.arraycopy(h, 0, prefix, 32, 32);
        return prefix;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
