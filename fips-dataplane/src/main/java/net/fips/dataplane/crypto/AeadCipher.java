package net.fips.dataplane.crypto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * ChaCha20-Poly1305 (RFC 8439) sealing and opening in place on off-heap memory.
 *
 * <p>An instance is one thread's engine: it holds native or JDK cipher state and is <b>not</b> thread-safe.
 * Each worker thread owns its own instance. The key and nonce are given per call, so one engine serves every
 * peer the worker is pinned to. All offsets and lengths are in bytes; nothing is allocated per call by the
 * native (boringssl, libcrypto) backends.
 *
 * <pre>
 *   buf: ... | plaintext (len) | tag (16) | ...        seal: plaintext -> ciphertext, tag written after it
 *            ^ off                                     open: ciphertext+tag -> plaintext, tag checked first
 * </pre>
 */
public interface AeadCipher extends AutoCloseable {
    /** Key length. */
    int KEY_BYTES = 32;
    /** Nonce length (IETF variant). */
    int NONCE_BYTES = 12;
    /** Poly1305 tag length. */
    int TAG_BYTES = 16;
    /** Returned by {@code open} when the tag does not verify. */
    int AUTH_FAILED = -1;

    /**
     * Encrypts {@code len} bytes at {@code buf[off]} in place and writes the tag right after them.
     *
     * <p>Every region (32 key bytes and 12 nonce bytes at offset 0, the AAD, the data plus tag) is checked before
     * any work starts: a rejected call changes no memory and no cipher state, and does not use up the key and nonce.
     *
     * @return {@code len + TAG_BYTES}
     * @throws IndexOutOfBoundsException if a region lies outside its segment
     * @throws IllegalArgumentException  if {@code len} or {@code aadLen} is negative
     */
    int seal(MemorySegment key, MemorySegment nonce, MemorySegment aad, long aadOff, int aadLen,
             MemorySegment buf, long off, int len);

    /**
     * Checks the tag of {@code lenWithTag} bytes at {@code buf[off]} and decrypts them in place.
     *
     * @return the plaintext length, or {@link #AUTH_FAILED} (the buffer's contents are then unspecified)
     * @throws IndexOutOfBoundsException if a region lies outside its segment (checked before any work starts)
     * @throws IllegalArgumentException  if {@code aadLen} is negative
     */
    int open(MemorySegment key, MemorySegment nonce, MemorySegment aad, long aadOff, int aadLen,
             MemorySegment buf, long off, int lenWithTag);

    /** @return the backend's name as logged, e.g. {@code "boringssl"}, {@code "libcrypto"} or {@code "jdk"} */
    String backend();

    /** Releases native state. */
    @Override
    void close();

    /**
     * Writes the FIPS transport nonce: 4 zero bytes then {@code counter} as u64 little-endian.
     *
     * @param nonce a 12-byte segment
     */
    static void fipsNonce(final MemorySegment nonce, final long counter) {
        nonce.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 0);
        // Byte-swap by hand rather than via layout.withOrder(LITTLE_ENDIAN): withOrder builds a new layout (and
        // then a new VarHandle) on every call, about 128 B of garbage per packet; the constant layout does not.
        nonce.set(ValueLayout.JAVA_LONG_UNALIGNED, 4,
                ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? counter
                        : Long.reverseBytes(counter));
    }
}
