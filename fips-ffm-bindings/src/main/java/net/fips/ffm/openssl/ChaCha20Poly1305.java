package net.fips.ffm.openssl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.util.Objects;

import net.fips.ffm.openssl.gen.openssl_h;

/**
 * ChaCha20-Poly1305 (RFC 8439) over libcrypto's EVP interface, in place on caller-owned memory.
 *
 * <p>One instance is one thread's engine and is <b>not</b> thread-safe: it owns {@value #KEYED_CONTEXTS}
 * {@code EVP_CIPHER_CTX}s, created and bound to the cipher once. On the native path each context remembers the key
 * it was last initialised with (a copy in this engine's native memory, compared byte for byte on every call, so a
 * new key at a reused address is never mistaken for the old one): a packet under a key one of them holds
 * re-initialises that context with its nonce only; any other key takes the least recently used context and
 * initialises it with key and nonce. OpenSSL 3 spends about a tenth of a 1400-byte seal on a key init (its
 * key-length query through {@code OSSL_PARAM}s among it), and a worker alternates between at least two keys per
 * packet (the session's, then the link's). Then the AAD and the data are fed, the context finishes and gets or
 * sets the 16-byte tag. Every region is bounds-checked in Java before its address reaches native code.
 *
 * <p>Two paths. When the key, nonce, AAD and buffer are all native segments (the data plane's case), the engine
 * checks each region itself ({@code Objects.checkFromIndexSize}, scope alive, thread allowed), computes raw
 * addresses and calls libcrypto through {@code JAVA_LONG}-typed handles, keeping the segments reachable until the
 * calls return: nothing is allocated per packet, however the caller's loop is compiled. If any of them is a heap
 * segment, it cuts bounds-checked slices and uses the segment-typed handles, which accept heap memory only while
 * they are critical (the default; see {@code Evp}); those slices are garbage unless the JIT scalar-replaces them.
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

    /** Contexts per engine, each keeping its last key (see the class comment). */
    public static final int KEYED_CONTEXTS = 8;

    private final Arena arena = Arena.ofShared();
    /** Context 0, also the one the heap-segment path uses (which forgets its key). */
    private final MemorySegment ctx;
    /** Every context, {@link #ctx} first, and their addresses. */
    private final MemorySegment[] contexts = new MemorySegment[KEYED_CONTEXTS];
    private final long[] contextAt = new long[KEYED_CONTEXTS];
    /** The key each context was last initialised with, {@link #KEY_BYTES} each; valid where {@link #keyed}. */
    private final MemorySegment keys;
    private final boolean[] keyed = new boolean[KEYED_CONTEXTS];
    private final long[] lastUse = new long[KEYED_CONTEXTS];
    private long uses;
    /** EVP's {@code int *outl} out-parameter, reused by every call. */
    private final MemorySegment outl;
    /** The address of {@link #outl}, for the address handles. */
    private final long outlAt;
    private boolean closed;

    /**
     * Creates the context and binds it to ChaCha20-Poly1305.
     *
     * @throws IllegalStateException if libcrypto is unavailable (see {@link Libcrypto#unavailableReason()}) or
     *                               refuses to create the context
     */
    public ChaCha20Poly1305() {
        Libcrypto.requireAvailable();
        for (int i = 0; i < KEYED_CONTEXTS; i++) {
            final MemorySegment c = openssl_h.EVP_CIPHER_CTX_new();
            if (c.equals(MemorySegment.NULL)) {
                freeContexts();
                arena.close();
                throw new IllegalStateException("EVP_CIPHER_CTX_new returned NULL");
            }
            contexts[i] = c;
            contextAt[i] = c.address();
            // Binding the cipher here (not per packet) matters on OpenSSL 3: an init that names the cipher fetches
            // its provider implementation, an init with a NULL cipher reuses the bound one.
            if (openssl_h.EVP_EncryptInit_ex(c, openssl_h.EVP_chacha20_poly1305(), MemorySegment.NULL,
                    MemorySegment.NULL, MemorySegment.NULL) != 1
                    || openssl_h.EVP_CIPHER_CTX_ctrl(c, Evp.CTRL_SET_IVLEN, NONCE_BYTES, MemorySegment.NULL) != 1) {
                freeContexts();
                arena.close();
                throw new IllegalStateException("binding EVP_chacha20_poly1305 to a context failed");
            }
        }
        ctx = contexts[0];
        outl = arena.allocate(ValueLayout.JAVA_INT);
        keys = arena.allocate((long) KEYED_CONTEXTS * KEY_BYTES, 8);
        outlAt = outl.address();
    }

    private void freeContexts() {
        for (int i = 0; i < KEYED_CONTEXTS; i++) {
            if (contexts[i] != null) {
                openssl_h.EVP_CIPHER_CTX_free(contexts[i]);
                contexts[i] = null;
            }
        }
    }

    /**
     * Encrypts {@code len} bytes at {@code buf[off]} in place and writes the tag right after them.
     *
     * <p>Every region is checked before anything reaches libcrypto, so a rejected call leaves {@code buf} and the
     * engine untouched. When all the segments involved are native, nothing is allocated (see the class comment).
     *
     * @param key    32 bytes at offset 0
     * @param nonce  12 bytes at offset 0
     * @param aad    holds the additional data at {@code aadOff}; may be {@link MemorySegment#NULL} if {@code aadLen}
     *               is 0
     * @param buf    holds the plaintext and room for the tag; must be writable
     * @return {@code len + TAG_BYTES}
     * @throws IndexOutOfBoundsException     if a region lies outside its segment
     * @throws IllegalArgumentException      if {@code len} or {@code aadLen} is negative
     * @throws UnsupportedOperationException if {@code buf} is read-only
     * @throws IllegalStateException         if this engine or the scope of a segment is closed, or libcrypto reports
     *                                       an error (not expected for valid arguments)
     * @throws WrongThreadException          if a segment is confined to another thread
     */
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        checkArgs(aadLen, buf);
        final long region = checkLen(len) + (long) TAG_BYTES;
        if (Evp.ADDRESSES && isNative(key, nonce, aad, aadLen, buf)) {
            return sealAt(key, nonce, aad, aadOff, aadLen, buf, off, len, region);
        }
        final MemorySegment data = buf.asSlice(off, region);
        keyed[0] = false;
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
     * <p>Regions are checked as for {@link #seal}; a {@code lenWithTag} below {@link #TAG_BYTES} is an
     * authentication failure, not an error.
     *
     * @return the plaintext length, or {@link #AUTH_FAILED}; on failure the would-be plaintext is zeroed so that
     *         unauthenticated bytes never linger in the buffer
     * @throws IndexOutOfBoundsException     if a region lies outside its segment
     * @throws IllegalArgumentException      if {@code aadLen} is negative
     * @throws UnsupportedOperationException if {@code buf} is read-only
     * @throws IllegalStateException         if this engine or the scope of a segment is closed
     * @throws WrongThreadException          if a segment is confined to another thread
     */
    public int open(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        if (lenWithTag < TAG_BYTES) {
            return AUTH_FAILED;
        }
        checkArgs(aadLen, buf);
        if (Evp.ADDRESSES && isNative(key, nonce, aad, aadLen, buf)) {
            return openAt(key, nonce, aad, aadOff, aadLen, buf, off, lenWithTag);
        }
        final MemorySegment data = buf.asSlice(off, lenWithTag);
        final int len = lenWithTag - TAG_BYTES;
        keyed[0] = false;
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

    /** {@link #seal} on native memory through the address handles: no slices, so no allocation to eliminate. */
    private int sealAt(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                       final int aadLen, final MemorySegment buf, final long off, final int len, final long region) {
        final long data = address(buf, off, region);
        final long k = address(key, 0, KEY_BYTES);
        final long n = address(nonce, 0, NONCE_BYTES);
        final long a = aadLen > 0 ? address(aad, aadOff, aadLen) : 0L;
        try {
            final long c = beginAt(true, key, k, n, a, aadLen);
            if (len > 0) {
                check(Evp.updateAt(true, c, data, outlAt, data, len) == 1
                        && outl.get(ValueLayout.JAVA_INT, 0) == len, "EVP_EncryptUpdate");
            }
            final long tag = data + len;
            check(Evp.finishAt(true, c, tag, outlAt) == 1, "EVP_EncryptFinal_ex");
            check(Evp.ctrlAt(c, Evp.CTRL_GET_TAG, TAG_BYTES, tag) == 1, "EVP_CTRL_AEAD_GET_TAG");
            return len + TAG_BYTES;
        } finally {
            // A raw address does not keep its segment reachable; an automatic arena must not free the memory
            // (a Cleaner runs once the segment is unreachable) while libcrypto still works on it.
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(nonce);
            Reference.reachabilityFence(aad);
            Reference.reachabilityFence(buf);
        }
    }

    /** {@link #open} on native memory through the address handles. */
    private int openAt(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                       final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        final long data = address(buf, off, lenWithTag);
        final long k = address(key, 0, KEY_BYTES);
        final long n = address(nonce, 0, NONCE_BYTES);
        final long a = aadLen > 0 ? address(aad, aadOff, aadLen) : 0L;
        final int len = lenWithTag - TAG_BYTES;
        try {
            final long c = beginAt(false, key, k, n, a, aadLen);
            if (len > 0) {
                check(Evp.updateAt(false, c, data, outlAt, data, len) == 1
                        && outl.get(ValueLayout.JAVA_INT, 0) == len, "EVP_DecryptUpdate");
            }
            final long tag = data + len;
            check(Evp.ctrlAt(c, Evp.CTRL_SET_TAG, TAG_BYTES, tag) == 1, "EVP_CTRL_AEAD_SET_TAG");
            if (Evp.finishAt(false, c, tag, outlAt) <= 0) {
                buf.asSlice(off, len).fill((byte) 0);
                return AUTH_FAILED;
            }
            return len;
        } finally {
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(nonce);
            Reference.reachabilityFence(aad);
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * Initialises the context that holds {@code keySegment}'s key with this packet's nonce alone, or the least
     * recently used one with key and nonce, and feeds the AAD.
     *
     * @param keySegment the key's segment, already checked ({@code key} is the address of its first byte)
     * @return the address of the context to finish the packet on
     */
    private long beginAt(final boolean encrypt, final MemorySegment keySegment, final long key, final long nonce,
                         final long aad, final int aadLen) {
        final long k0 = keySegment.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        final long k1 = keySegment.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        final long k2 = keySegment.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
        final long k3 = keySegment.get(ValueLayout.JAVA_LONG_UNALIGNED, 24);
        int e = -1;
        for (int i = 0; i < KEYED_CONTEXTS; i++) {
            if (keyed[i] && holds(i, k0, k1, k2, k3)) {
                e = i;
                break;
            }
        }
        final String init = encrypt ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex";
        final long c;
        if (e >= 0) {
            lastUse[e] = ++uses;
            c = contextAt[e];
            // A NULL cipher and key re-initialise the bound cipher with the key this context already holds.
            check(Evp.initAt(encrypt, c, 0L, nonce) == 1, init);
        } else {
            // an unused context, else the least recently used one
            int victim = 0;
            for (int i = 0; i < KEYED_CONTEXTS; i++) {
                if (!keyed[i]) {
                    victim = i;
                    break;
                }
                if (lastUse[i] < lastUse[victim]) {
                    victim = i;
                }
            }
            lastUse[victim] = ++uses;
            c = contextAt[victim];
            keyed[victim] = false;
            // A NULL cipher re-initialises the bound one with this packet's key and nonce.
            check(Evp.initAt(encrypt, c, key, nonce) == 1, init);
            final long at = (long) victim * KEY_BYTES;
            keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at, k0);
            keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, k1);
            keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, k2);
            keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24, k3);
            keyed[victim] = true;
        }
        if (aadLen > 0) {
            // A NULL output pointer makes this update feed the AAD.
            check(Evp.updateAt(encrypt, c, 0L, outlAt, aad, aadLen) == 1, "AAD update");
        }
        return c;
    }

    /** @return whether context {@code i} was last initialised with the key {@code k0..k3} */
    private boolean holds(final int i, final long k0, final long k1, final long k2, final long k3) {
        final long at = (long) i * KEY_BYTES;
        return keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at) == k0
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8) == k1
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16) == k2
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 24) == k3;
    }

    private void begin(final boolean encrypt, final MemorySegment key, final MemorySegment nonce,
                       final MemorySegment aad, final long aadOff, final int aadLen) {
        // The slices check bounds before any address reaches OpenSSL, which reads exactly 32 and 12 bytes.
        final MemorySegment k = key.asSlice(0, KEY_BYTES);
        final MemorySegment n = nonce.asSlice(0, NONCE_BYTES);
        final MemorySegment a = aadLen > 0 ? aad.asSlice(aadOff, aadLen) : MemorySegment.NULL;
        check(Evp.init(encrypt, ctx, MemorySegment.NULL, k, n) == 1,
                encrypt ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex");
        if (aadLen > 0) {
            check(Evp.update(encrypt, ctx, MemorySegment.NULL, outl, a, aadLen) == 1, "AAD update");
        }
    }

    /** The checks both paths share, made before any region is looked at. */
    private void checkArgs(final int aadLen, final MemorySegment buf) {
        if (closed) {
            throw new IllegalStateException("engine closed");
        }
        if (aadLen < 0) {
            throw new IllegalArgumentException("negative AAD length " + aadLen);
        }
        if (buf.isReadOnly()) {
            throw new UnsupportedOperationException("buffer segment is read-only");
        }
    }

    /** @return whether every segment whose memory libcrypto will touch is native, so has a real address */
    private static boolean isNative(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad,
                                    final int aadLen, final MemorySegment buf) {
        return key.isNative() && nonce.isNative() && buf.isNative() && (aadLen == 0 || aad.isNative());
    }

    /**
     * The checks the linker makes on a segment argument, made by hand because a raw address skips them: the region
     * lies inside the segment, its scope is alive and this thread may access it. (A shared arena closed by another
     * thread during the call is not caught; callers own their buffers' arenas for as long as they use them.)
     *
     * @return the address of {@code s[off]}
     */
    private static long address(final MemorySegment s, final long off, final long len) {
        Objects.checkFromIndexSize(off, len, s.byteSize());
        if (!s.scope().isAlive()) {
            throw new IllegalStateException("segment's scope is already closed");
        }
        if (!s.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("segment is confined to another thread");
        }
        return s.address() + off;
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

    /** Frees the EVP contexts and wipes the key copies; further use throws. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            freeContexts();
            keys.fill((byte) 0);
            arena.close();
        }
    }
}
