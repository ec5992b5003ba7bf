package net.fips.control.noise;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Noise symmetric state as the reference implements it (spec crypto-link §4.2, §4.3): chaining key
 * {@code ck}, handshake hash {@code h} and the handshake {@link CipherState}.
 *
 * <p>Differences from textbook Noise that matter here: EncryptAndHash/DecryptAndHash pass <b>empty</b> associated
 * data (h is hashed but never authenticated), and there is no prologue step. MixKey and Split are HKDF-SHA256 with
 * salt = ck, empty info and 64 bytes of output.
 */
public final class SymmetricState {
    private static final byte[] EMPTY = new byte[0];

    private byte[] ck;
    private byte[] h;
    private CipherState cipher;

    private SymmetricState(final byte[] ck, final byte[] h, final CipherState cipher) {
        this.ck = ck;
        this.h = h;
        this.cipher = cipher;
    }

    /**
     * Noise InitializeSymmetric: h = the name zero-padded when it fits in 32 bytes, else SHA-256(name); ck = h.
     *
     * @param protocolName the ASCII protocol name
     * @return a fresh state without a cipher key
     */
    public static SymmetricState initialize(final String protocolName) {
        final byte[] name = protocolName.getBytes(StandardCharsets.US_ASCII);
        final byte[] h = name.length <= 32 ? Arrays.copyOf(name, 32) : sha256(name);
        return new SymmetricState(h.clone(), h, new CipherState());
    }

    /** MixHash: h = SHA-256(h || data). */
    public void mixHash(final byte[] data) {
        h = sha256(h, data);
    }

    /**
     * MixKey: (ck, k) = HKDF(ck, ikm); the handshake cipher gets k with its counter reset to 0.
     *
     * @param ikm input key material, here always a 32-byte DH output
     */
    public void mixKey(final byte[] ikm) {
        final byte[][] out = hkdf2(ck, ikm);
        Arrays.fill(ck, (byte) 0);
        ck = out[0];
        try {
            cipher.initializeKey(out[1]);
        } catch (final NoiseException e) {
            throw new AssertionError("HKDF output is always 32 bytes", e);
        } finally {
            Arrays.fill(out[1], (byte) 0);
        }
    }

    /**
     * EncryptAndHash with empty associated data (reference behaviour): c = Seal(k, n, "", p); MixHash(c).
     *
     * @return the ciphertext with its tag (the plaintext itself before the first MixKey)
     * @throws NoiseException when the cipher refuses (size, counter)
     */
    public byte[] encryptAndHash(final byte[] plaintext) throws NoiseException {
        final byte[] c = cipher.encrypt(EMPTY, plaintext);
        mixHash(c);
        return c;
    }

    /**
     * DecryptAndHash with empty associated data: p = Open(k, n, "", c); MixHash(c).
     *
     * @return the plaintext
     * @throws NoiseException DECRYPT_FAILED or WRONG_LENGTH; h is then not updated
     */
    public byte[] decryptAndHash(final byte[] ciphertext) throws NoiseException {
        final byte[] p = cipher.decrypt(EMPTY, ciphertext);
        mixHash(ciphertext);
        return p;
    }

    /**
     * Split: (k1, k2) = HKDF(ck, empty ikm). k1 protects initiator-to-responder traffic, k2 the other direction.
     *
     * @return {k1, k2}, fresh arrays the caller owns
     */
    public byte[][] split() {
        return hkdf2(ck, EMPTY);
    }

    /** @return a copy of the handshake hash h */
    public byte[] handshakeHash() {
        return h.clone();
    }

    /** @return a copy of the chaining key ck */
    public byte[] chainingKey() {
        return ck.clone();
    }

    /** @return an independent copy, so a failed message read can be discarded without touching this state */
    public SymmetricState copy() {
        return new SymmetricState(ck.clone(), h.clone(), cipher.copy());
    }

    /** @return the current values, for test traces and diagnostics */
    public Snapshot snapshot() {
        return new Snapshot(h.clone(), ck.clone(), cipher.key(), cipher.hasKey() ? cipher.nonce() : -1L);
    }

    /** Overwrites ck and the cipher key with zeros. */
    public void destroy() {
        Arrays.fill(ck, (byte) 0);
        cipher.destroy();
    }

    /**
     * The symmetric state's values at one point of a handshake.
     *
     * @param h  handshake hash
     * @param ck chaining key
     * @param k  current handshake cipher key, {@code null} before the first MixKey
     * @param n  the handshake cipher's next nonce, -1 when there is no key
     */
    public record Snapshot(byte[] h, byte[] ck, byte[] k, long n) {
    }

    /**
     * HKDF-SHA256 (RFC 5869) with salt {@code salt}, empty info and 64 bytes of output, split in two halves.
     *
     * @return {T1, T2}
     */
    static byte[][] hkdf2(final byte[] salt, final byte[] ikm) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(salt, "HmacSHA256"));
            final byte[] prk = mac.doFinal(ikm);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update((byte) 0x01);
            final byte[] t1 = mac.doFinal();
            mac.update(t1);
            mac.update((byte) 0x02);
            final byte[] t2 = mac.doFinal();
            Arrays.fill(prk, (byte) 0);
            return new byte[][] {t1, t2};
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 missing from the JDK", e);
        }
    }

    static byte[] sha256(final byte[]... parts) {
        try {
            final MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (final byte[] p : parts) {
                md.update(p);
            }
            return md.digest();
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
