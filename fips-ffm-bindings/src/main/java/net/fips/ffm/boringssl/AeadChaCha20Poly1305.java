package net.fips.ffm.boringssl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.util.Objects;

import net.fips.ffm.boringssl.gen.boringssl_h;
import net.fips.ffm.boringssl.gen.evp_aead_ctx_st;

/**
 * ChaCha20-Poly1305 (RFC 8439) over BoringSSL's one-call {@code EVP_AEAD} interface, in place on caller-owned
 * memory: one {@code EVP_AEAD_CTX_seal} or {@code EVP_AEAD_CTX_open} per packet, with no per-call parameter
 * machinery (OpenSSL 3's EVP path spends about 0.8 µs of a 1 µs seal there, docs/benchmarks.md).
 *
 * <p>One instance is one thread's engine and is <b>not</b> thread-safe. It holds {@value #KEYED_CONTEXTS}
 * {@code EVP_AEAD_CTX}s in its own native memory, each keyed with one key (a copy of which it keeps and compares
 * byte for byte on every call, so a new key at a reused address is never mistaken for the old one). A packet under a
 * key one of them holds goes straight to seal or open; any other key takes an unused context or the least recently
 * used one, which is cleaned up and initialised with the new key (for ChaCha20-Poly1305 a 32-byte copy, no
 * allocation). A worker alternates between at least two keys per packet (the session's, then the link's).
 *
 * <p>When the key, nonce, AAD and buffer are all native segments (the data plane's case), every region is checked
 * here (bounds, scope alive, thread allowed) and raw addresses are passed through {@code JAVA_LONG}-typed critical
 * handles: nothing is allocated per packet. Heap segments go through the segment-typed handles (critical with heap
 * access) on bounds-checked slices, which are garbage unless the JIT scalar-replaces them.
 *
 * <pre>
 *   buf: ... | data (len) | tag (16) | ...     seal: plaintext -> ciphertext, tag appended
 *            ^ off                             open: ciphertext -> plaintext after the tag verifies
 * </pre>
 */
public final class AeadChaCha20Poly1305 implements AutoCloseable {
    /** Key length. */
    public static final int KEY_BYTES = 32;
    /** Nonce length (RFC 8439, 96 bits). */
    public static final int NONCE_BYTES = 12;
    /** Tag length. */
    public static final int TAG_BYTES = 16;
    /** Returned by {@link #open} when the tag does not verify. */
    public static final int AUTH_FAILED = -1;
    /** Contexts per engine, each keyed with one key (see the class comment). */
    public static final int KEYED_CONTEXTS = 8;

    private static final long CTX_BYTES = evp_aead_ctx_st.layout().byteSize();

    private final Arena arena = Arena.ofShared();
    /** The {@link #KEYED_CONTEXTS} contexts back to back, and each one's segment and address. */
    private final MemorySegment contextMemory;
    private final MemorySegment[] contexts = new MemorySegment[KEYED_CONTEXTS];
    private final long[] contextAt = new long[KEYED_CONTEXTS];
    /** The key each context holds, {@link #KEY_BYTES} each; valid where {@link #keyed}. */
    private final MemorySegment keys;
    private final long keysAt;
    private final boolean[] keyed = new boolean[KEYED_CONTEXTS];
    private final long[] lastUse = new long[KEYED_CONTEXTS];
    private long uses;
    /** The {@code size_t *out_len} out-parameter, reused by every call, and its address. */
    private final MemorySegment outLen;
    private final long outLenAt;
    /** {@code EVP_aead_chacha20_poly1305()}: a pointer to a static table in the library. */
    private final long aead;
    private boolean closed;

    /**
     * Creates the engine's contexts, all unkeyed.
     *
     * @throws IllegalStateException if BoringSSL is unavailable (see {@link Boringssl#unavailableReason()})
     */
    public AeadChaCha20Poly1305() {
        Boringssl.requireAvailable();
        aead = boringssl_h.EVP_aead_chacha20_poly1305().address();
        contextMemory = arena.allocate(CTX_BYTES * KEYED_CONTEXTS, evp_aead_ctx_st.layout().byteAlignment());
        for (int i = 0; i < KEYED_CONTEXTS; i++) {
            contexts[i] = contextMemory.asSlice(i * CTX_BYTES, CTX_BYTES);
            contextAt[i] = contexts[i].address();
            boringssl_h.EVP_AEAD_CTX_zero(contexts[i]);
        }
        keys = arena.allocate((long) KEYED_CONTEXTS * KEY_BYTES, 8);
        keysAt = keys.address();
        outLen = arena.allocate(ValueLayout.JAVA_LONG);
        outLenAt = outLen.address();
    }

    /**
     * Encrypts {@code len} bytes at {@code buf[off]} in place and writes the tag right after them.
     *
     * <p>Every region is checked before anything reaches BoringSSL, so a rejected call leaves {@code buf} and the
     * engine untouched.
     *
     * @param key   32 bytes at offset 0
     * @param nonce 12 bytes at offset 0
     * @param aad   holds the additional data at {@code aadOff}; may be {@link MemorySegment#NULL} if {@code aadLen}
     *              is 0
     * @param buf   holds the plaintext and room for the tag; must be writable
     * @return {@code len + TAG_BYTES}
     * @throws IndexOutOfBoundsException     if a region lies outside its segment
     * @throws IllegalArgumentException      if {@code len} or {@code aadLen} is negative
     * @throws UnsupportedOperationException if {@code buf} is read-only
     * @throws IllegalStateException         if this engine or the scope of a segment is closed, or BoringSSL reports
     *                                       an error (not expected for valid arguments)
     * @throws WrongThreadException          if a segment is confined to another thread
     */
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        checkArgs(aadLen, buf);
        if (len < 0) {
            throw new IllegalArgumentException("negative length " + len);
        }
        final long region = len + (long) TAG_BYTES;
        final int r = isNative(key, nonce, aad, aadLen, buf)
                ? cryptAt(true, key, nonce, aad, aadOff, aadLen, buf, off, region, len, region)
                : crypt(true, key, nonce, aad, aadOff, aadLen, buf.asSlice(off, region), len, region);
        if (r != 1 || outLen.get(ValueLayout.JAVA_LONG, 0) != region) {
            throw new IllegalStateException("EVP_AEAD_CTX_seal failed");
        }
        return len + TAG_BYTES;
    }

    /**
     * Verifies the tag of {@code lenWithTag} bytes at {@code buf[off]} and decrypts the ciphertext in place.
     *
     * <p>Regions are checked as for {@link #seal}; a {@code lenWithTag} below {@link #TAG_BYTES} is an
     * authentication failure, not an error.
     *
     * @return the plaintext length, or {@link #AUTH_FAILED}; on failure BoringSSL has zeroed the would-be
     *         plaintext, so unauthenticated bytes never linger in the buffer
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
        final int len = lenWithTag - TAG_BYTES;
        // max_out_len = len: on a failed tag BoringSSL zeroes exactly the would-be plaintext.
        final int r = isNative(key, nonce, aad, aadLen, buf)
                ? cryptAt(false, key, nonce, aad, aadOff, aadLen, buf, off, lenWithTag, lenWithTag, len)
                : crypt(false, key, nonce, aad, aadOff, aadLen, buf.asSlice(off, lenWithTag), lenWithTag, len);
        if (r != 1) {
            return AUTH_FAILED;
        }
        if (outLen.get(ValueLayout.JAVA_LONG, 0) != len) {
            throw new IllegalStateException("EVP_AEAD_CTX_open wrote " + outLen.get(ValueLayout.JAVA_LONG, 0)
                    + " bytes, expected " + len);
        }
        return len;
    }

    /** One seal or open on native memory through the address handles: no slices, so nothing to allocate. */
    private int cryptAt(final boolean seal, final MemorySegment key, final MemorySegment nonce,
                        final MemorySegment aad, final long aadOff, final int aadLen, final MemorySegment buf,
                        final long off, final long region, final long inLen, final long maxOut) {
        final long data = address(buf, off, region);
        address(key, 0, KEY_BYTES);
        final long n = address(nonce, 0, NONCE_BYTES);
        final long a = aadLen > 0 ? address(aad, aadOff, aadLen) : 0L;
        try {
            final long c = contextAt[keyedContext(key)];
            return Aead.cryptAt(seal, c, data, outLenAt, maxOut, n, NONCE_BYTES, inLen, a, aadLen);
        } finally {
            // A raw address does not keep its segment reachable; an automatic arena must not free the memory
            // while BoringSSL still works on it.
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(nonce);
            Reference.reachabilityFence(aad);
            Reference.reachabilityFence(buf);
        }
    }

    /** One seal or open through the segment handles, for heap memory; {@code data} is the checked region. */
    private int crypt(final boolean seal, final MemorySegment key, final MemorySegment nonce,
                      final MemorySegment aad, final long aadOff, final int aadLen, final MemorySegment data,
                      final long inLen, final long maxOut) {
        Objects.checkFromIndexSize(0, KEY_BYTES, key.byteSize());
        final MemorySegment n = nonce.asSlice(0, NONCE_BYTES);
        final MemorySegment a = aadLen > 0 ? aad.asSlice(aadOff, aadLen) : MemorySegment.NULL;
        final MemorySegment c = contexts[keyedContext(key)];
        return Aead.crypt(seal, c, data, outLen, maxOut, n, NONCE_BYTES, inLen, a, aadLen);
    }

    /**
     * Finds the context keyed with {@code key}'s 32 bytes, or keys an unused or the least recently used one with them
     * (from this engine's own copy, so the library never reads caller memory outside a packet call).
     *
     * @param key a segment already checked to hold 32 bytes at offset 0
     * @return the context's index
     */
    private int keyedContext(final MemorySegment key) {
        final long k0 = key.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        final long k1 = key.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        final long k2 = key.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
        final long k3 = key.get(ValueLayout.JAVA_LONG_UNALIGNED, 24);
        for (int i = 0; i < KEYED_CONTEXTS; i++) {
            if (keyed[i] && holds(i, k0, k1, k2, k3)) {
                lastUse[i] = ++uses;
                return i;
            }
        }
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
        keyed[victim] = false;
        Aead.cleanupAt(contextAt[victim]);
        final long at = (long) victim * KEY_BYTES;
        keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at, k0);
        keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, k1);
        keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, k2);
        keys.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24, k3);
        if (Aead.initAt(contextAt[victim], aead, keysAt + at, KEY_BYTES) != 1) {
            throw new IllegalStateException("EVP_AEAD_CTX_init failed");
        }
        keyed[victim] = true;
        lastUse[victim] = ++uses;
        return victim;
    }

    /** @return whether context {@code i} holds the key {@code k0..k3} */
    private boolean holds(final int i, final long k0, final long k1, final long k2, final long k3) {
        final long at = (long) i * KEY_BYTES;
        return keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at) == k0
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8) == k1
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16) == k2
                && keys.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 24) == k3;
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

    /** @return whether every segment whose memory BoringSSL will touch is native, so has a real address */
    private static boolean isNative(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad,
                                    final int aadLen, final MemorySegment buf) {
        return key.isNative() && nonce.isNative() && buf.isNative() && (aadLen == 0 || aad.isNative());
    }

    /**
     * The checks the linker makes on a segment argument, made by hand because a raw address skips them: the region
     * lies inside the segment, its scope is alive and this thread may access it.
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

    /** Cleans up the contexts and wipes them and the key copies; further use throws. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (int i = 0; i < KEYED_CONTEXTS; i++) {
                Aead.cleanupAt(contextAt[i]);
                keyed[i] = false;
            }
            contextMemory.fill((byte) 0);
            keys.fill((byte) 0);
            arena.close();
        }
    }
}
