package net.fips.ffm.openssl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.ffm.openssl.gen.openssl_h;

/**
 * ChaCha20-Poly1305 (RFC 8439) over libcrypto's EVP interface, in place on caller-owned memory.
 *
 * <p>One instance is one thread's engine and is <b>not</b> thread-safe: it owns one {@code EVP_CIPHER_CTX},
 * created and bound to the cipher once. Each packet then re-initialises that context with its key and nonce, feeds
 * the AAD and the data, finishes and gets or sets the 16-byte tag. Nothing is allocated per packet (the segment
 * slices made for bounds checks are scalar-replaced by the JIT), and every region is bounds-checked in Java
 * before its address reaches native code.
 *
 * <pre>
 *   buf: ... | data (len) | tag (16) | ...     seal: plaintext -> ciphertext, tag appended
 *            ^ off                             open: ciphertext -> plaintext after the tag verifies
 * </pre>
 */
public final class ChaCha20Poly1305 implements AutoCloseable {
    /** Key length. */
    public static final int KEY_BYTES = 32;
    /** Nonce length (RFC 8439, 96 bits). */
    public static final int NONCE_BYTES = 12;
    /** Tag length. */
    public static final int TAG_BYTES = 16;
    /** Returned by {@link #open} when the tag does not verify. */
    public static final int AUTH_FAILED = -1;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment ctx;
    /** EVP's {@code int *outl} out-parameter, reused by every call. */
    private final MemorySegment outl;
    private boolean closed;

    /**
     * Creates the context and binds it to ChaCha20-Poly1305.
     *
     * @throws IllegalStateException if libcrypto is unavailable (see {@link Libcrypto#unavailableReason()}) or
     *                               refuses to create the context
     */
    public ChaCha20Poly1305() {
        Libcrypto.requireAvailable();
        final MemorySegment c = openssl_h.EVP_CIPHER_CTX_new();
        if (c.equals(MemorySegment.NULL)) {
            arena.close();
            throw new IllegalStateException("EVP_CIPHER_CTX_new returned NULL");
        }
        // Binding the cipher here (not per packet) matters on OpenSSL 3: an init that names the cipher fetches its
        // provider implementation, an init with a NULL cipher reuses the bound one.
        if (openssl_h.EVP_EncryptInit_ex(c, openssl_h.EVP_chacha20_poly1305(), MemorySegment.NULL,
                MemorySegment.NULL, MemorySegment.NULL) != 1
                || openssl_h.EVP_CIPHER_CTX_ctrl(c, Evp.CTRL_SET_IVLEN, NONCE_BYTES, MemorySegment.NULL) != 1) {
            openssl_h.EVP_CIPHER_CTX_free(c);
            arena.close();
            throw new IllegalStateException("binding EVP_chacha20_poly1305 to a context failed");
        }
        ctx = c;
        outl = arena.allocate(ValueLayout.JAVA_INT);
    }

    /**
     * Encrypts {@code len} bytes at {@code buf[off]} in place and writes the tag right after them.
     *
     * @param key    32 bytes at offset 0
     * @param nonce  12 bytes at offset 0
     * @param aad    holds the additional data at {@code aadOff}; may be {@link MemorySegment#NULL} if {@code aadLen}
     *               is 0
     * @param buf    holds the plaintext and room for the tag
     * @return {@code len + TAG_BYTES}
     * @throws IndexOutOfBoundsException if a region lies outside its segment
     * @throws IllegalStateException     if libcrypto reports an error (not expected for valid arguments)
     */
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        final MemorySegment data = buf.asSlice(off, checkLen(len) + (long) TAG_BYTES);
        begin(true, key, nonce, aad, aadOff, aadLen);
        if (len > 0) {
            check(Evp.update(true, ctx, data, outl, data, len) == 1 && outl.get(ValueLayout.JAVA_INT, 0) == len,
                    "EVP_EncryptUpdate");
        }
        final MemorySegment tag = data.asSlice(len, TAG_BYTES);
        // ChaCha20 is a stream cipher: final writes nothing, it only finishes the Poly1305 tag.
        check(Evp.finish(true, ctx, tag, outl) == 1, "EVP_EncryptFinal_ex");
        check(Evp.ctrl(ctx, Evp.CTRL_GET_TAG, TAG_BYTES, tag) == 1, "EVP_CTRL_AEAD_GET_TAG");
        return len + TAG_BYTES;
    }

    /**
     * Verifies the tag of {@code lenWithTag} bytes at {@code buf[off]} and decrypts the ciphertext in place.
     *
     * @return the plaintext length, or {@link #AUTH_FAILED}; on failure the would-be plaintext is zeroed so that
     *         unauthenticated bytes never linger in the buffer
     * @throws IndexOutOfBoundsException if a region lies outside its segment
     */
    public int open(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        if (lenWithTag < TAG_BYTES) {
            return AUTH_FAILED;
        }
        final MemorySegment data = buf.asSlice(off, lenWithTag);
        final int len = lenWithTag - TAG_BYTES;
        begin(false, key, nonce, aad, aadOff, aadLen);
        if (len > 0) {
            check(Evp.update(false, ctx, data, outl, data, len) == 1 && outl.get(ValueLayout.JAVA_INT, 0) == len,
                    "EVP_DecryptUpdate");
        }
        final MemorySegment tag = data.asSlice(len, TAG_BYTES);
        check(Evp.ctrl(ctx, Evp.CTRL_SET_TAG, TAG_BYTES, tag) == 1, "EVP_CTRL_AEAD_SET_TAG");
        if (Evp.finish(false, ctx, tag, outl) <= 0) {
            data.asSlice(0, len).fill((byte) 0);
            return AUTH_FAILED;
        }
        return len;
    }

    private void begin(final boolean encrypt, final MemorySegment key, final MemorySegment nonce,
                       final MemorySegment aad, final long aadOff, final int aadLen) {
        if (closed) {
            throw new IllegalStateException("engine closed");
        }
        // The slices check bounds before any address reaches OpenSSL, which reads exactly 32 and 12 bytes.
        check(Evp.init(encrypt, ctx, MemorySegment.NULL, key.asSlice(0, KEY_BYTES), nonce.asSlice(0, NONCE_BYTES))
                == 1, encrypt ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex");
        if (aadLen > 0) {
            // A NULL output pointer makes this update feed the AAD.
            check(Evp.update(encrypt, ctx, MemorySegment.NULL, outl, aad.asSlice(aadOff, aadLen), aadLen) == 1,
                    "AAD update");
        } else if (aadLen < 0) {
            throw new IllegalArgumentException("negative AAD length " + aadLen);
        }
    }

    private static int checkLen(final int len) {
        if (len < 0) {
            throw new IllegalArgumentException("negative length " + len);
        }
        return len;
    }

    private static void check(final boolean ok, final String call) {
        if (!ok) {
            throw new IllegalStateException(call + " failed");
        }
    }

    /** Frees the EVP context; further use throws. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            openssl_h.EVP_CIPHER_CTX_free(ctx);
            arena.close();
        }
    }
}
