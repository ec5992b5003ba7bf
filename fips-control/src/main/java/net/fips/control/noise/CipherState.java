package net.fips.control.noise;

import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import net.fips.dataplane.crypto.AeadCipher;

/**
 * A Noise cipher state: a ChaCha20-Poly1305 key and a 64-bit nonce counter, with the reference's nonce layout
 * (4 zero bytes, then the counter as u64 little-endian).
 *
 * <p>Two ways to pick the nonce, as in the reference:
 * <ul>
 *   <li>the internal counter ({@link #encrypt}, {@link #decrypt}): handshake payloads, and the sending side of a
 *       transport session, whose counter then travels in the FMP/FSP frame header;</li>
 *   <li>an explicit counter ({@link #decryptWithCounter}): the receiving side of a transport session, which takes
 *       the counter from the frame header after the replay window allowed it; the internal counter is untouched.</li>
 * </ul>
 * The counter is an unsigned 64-bit value; the value 2^64-1 is never used (the reference refuses it as overflow).
 *
 * <p>Control-path code over byte arrays on the JDK cipher; not thread-safe.
 */
public final class CipherState {
    /** Key length. */
    public static final int KEY_BYTES = 32;
    /** Poly1305 tag length. */
    public static final int TAG_BYTES = 16;
    /** Largest Noise message, ciphertext and tag included. */
    public static final int MAX_MESSAGE_BYTES = 65535;
    /** Largest plaintext one message may carry. */
    public static final int MAX_PLAINTEXT_BYTES = MAX_MESSAGE_BYTES - TAG_BYTES;

    private static final byte[] EMPTY = new byte[0];

    private byte[] key;
    private long nonce;

    /** Creates a cipher state without a key (handshake start: encryption is the identity until MixKey). */
    public CipherState() {
    }

    /**
     * Creates a keyed cipher state with the counter at 0.
     *
     * @param key 32 bytes, copied
     * @throws NoiseException WRONG_LENGTH when the key is not 32 bytes
     */
    public CipherState(final byte[] key) throws NoiseException {
        initializeKey(key);
    }

    /**
     * Installs a new key and resets the counter to 0 (Noise InitializeKey).
     *
     * @param newKey 32 bytes, copied
     * @throws NoiseException WRONG_LENGTH when the key is not 32 bytes
     */
    public void initializeKey(final byte[] newKey) throws NoiseException {
        if (newKey == null || newKey.length != KEY_BYTES) {
            throw new NoiseException(NoiseException.Reason.WRONG_LENGTH, "cipher key must be 32 bytes");
        }
        if (key != null) {
            Arrays.fill(key, (byte) 0);
        }
        key = newKey.clone();
        nonce = 0;
    }

    /** @return true once a key is installed */
    public boolean hasKey() {
        return key != null;
    }

    /** @return the counter the next internal-counter operation will use (unsigned) */
    public long nonce() {
        return nonce;
    }

    /** Moves the counter, so tests can reach the overflow edge without 2^64 operations. */
    void setNonce(final long n) {
        nonce = n;
    }

    /** @return a copy of the key, or {@code null} when none is installed (diagnostics, hand-off to the data plane) */
    public byte[] key() {
        return key == null ? null : key.clone();
    }

    /** @return an independent copy (key and counter) */
    public CipherState copy() {
        final CipherState c = new CipherState();
        c.key = key == null ? null : key.clone();
        c.nonce = nonce;
        return c;
    }

    /** Overwrites the key with zeros and forgets it. */
    public void destroy() {
        if (key != null) {
            Arrays.fill(key, (byte) 0);
            key = null;
        }
    }

    /**
     * Reserves the next internal counter value and advances it, for senders that seal elsewhere (the data plane)
     * but must keep counter assignment here.
     *
     * @return the reserved counter
     * @throws NoiseException NONCE_OVERFLOW when the counter is exhausted
     */
    public long takeCounter() throws NoiseException {
        if (nonce == -1L) {
            throw new NoiseException(NoiseException.Reason.NONCE_OVERFLOW, "nonce counter exhausted");
        }
        return nonce++;
    }

    /**
     * Seals {@code plaintext} under the internal counter, then advances it. Without a key the plaintext is returned
     * unchanged (Noise EncryptWithAd before the first MixKey).
     *
     * @param aad associated data; empty or {@code null} for handshake payloads
     * @return ciphertext followed by the 16-byte tag
     * @throws NoiseException MESSAGE_TOO_LARGE or NONCE_OVERFLOW
     */
    public byte[] encrypt(final byte[] aad, final byte[] plaintext) throws NoiseException {
        if (key == null) {
            return plaintext.clone();
        }
        if (plaintext.length > MAX_PLAINTEXT_BYTES) {
            throw new NoiseException(NoiseException.Reason.MESSAGE_TOO_LARGE,
                    plaintext.length + " > " + MAX_PLAINTEXT_BYTES + " plaintext bytes");
        }
        final long counter = takeCounter();
        return crypt(Cipher.ENCRYPT_MODE, key, counter, aad, plaintext);
    }

    /**
     * Opens {@code ciphertext} under the internal counter, then advances it. As in the reference the counter
     * advances even when the tag fails; a failed handshake read is discarded by its caller anyway.
     *
     * @param aad associated data; empty or {@code null} for handshake payloads
     * @return the plaintext
     * @throws NoiseException WRONG_LENGTH (shorter than a tag), NONCE_OVERFLOW or DECRYPT_FAILED
     */
    public byte[] decrypt(final byte[] aad, final byte[] ciphertext) throws NoiseException {
        if (key == null) {
            return ciphertext.clone();
        }
        checkCiphertextLength(ciphertext);
        final long counter = takeCounter();
        return crypt(Cipher.DECRYPT_MODE, key, counter, aad, ciphertext);
    }

    /**
     * Opens {@code ciphertext} with an explicit counter from a frame header; the internal counter does not move.
     * The caller checks the counter against its replay window first.
     *
     * @return the plaintext
     * @throws NoiseException WRONG_STATE (no key), WRONG_LENGTH or DECRYPT_FAILED
     */
    public byte[] decryptWithCounter(final long counter, final byte[] aad, final byte[] ciphertext)
            throws NoiseException {
        if (key == null) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE, "transport cipher has no key");
        }
        checkCiphertextLength(ciphertext);
        return crypt(Cipher.DECRYPT_MODE, key, counter, aad, ciphertext);
    }

    /**
     * @return the 12-byte FIPS nonce of {@code counter}: 4 zero bytes then the counter as u64 little-endian
     */
    public static byte[] nonce(final long counter) {
        // Written here byte by byte rather than through AeadCipher.fipsNonce on a heap segment: the data plane calls
        // that with native segments only, and one heap call site made its receiver type bimorphic, so C2's compiled
        // seal/open hit a class_check trap and were recompiled at the first handshake after they were compiled
        // (docs/benchmarks.md, "The JIT ramp").
        final byte[] n = new byte[AeadCipher.NONCE_BYTES];
        for (int i = 0; i < Long.BYTES; i++) {
            n[AeadCipher.NONCE_BYTES - Long.BYTES + i] = (byte) (counter >>> (Byte.SIZE * i));
        }
        return n;
    }

    private static void checkCiphertextLength(final byte[] ciphertext) throws NoiseException {
        if (ciphertext == null || ciphertext.length < TAG_BYTES) {
            throw new NoiseException(NoiseException.Reason.WRONG_LENGTH,
                    "ciphertext shorter than the 16-byte tag");
        }
    }

    private static byte[] crypt(final int mode, final byte[] key, final long counter, final byte[] aad,
                                final byte[] input) throws NoiseException {
        try {
            // A fresh Cipher per call: the JDK refuses to re-init encryption with a repeated key and nonce on one
            // instance, and the control path is not hot enough for the allocation to matter.
            final Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
            c.init(mode, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce(counter)));
            final byte[] ad = aad == null ? EMPTY : aad;
            if (ad.length > 0) {
                c.updateAAD(ad);
            }
            return c.doFinal(input);
        } catch (final AEADBadTagException e) {
            throw new NoiseException(NoiseException.Reason.DECRYPT_FAILED,
                    "authentication tag mismatch at counter " + Long.toUnsignedString(counter));
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("this JDK's ChaCha20-Poly1305 failed", e);
        }
    }
}
