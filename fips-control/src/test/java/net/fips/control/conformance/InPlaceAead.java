package net.fips.control.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.crypto.AeadCipher;

/**
 * Seals and opens the way the data plane does: in place, in one off-heap buffer, with the AAD read from the same
 * buffer as the ciphertext and the FIPS transport nonce ({@link AeadCipher#fipsNonce}), with whichever production
 * {@link AeadCipher} backend it is given. Only the FSP layer of {@code fsp_message.json} uses it, because FSP has
 * no data-plane path yet; FMP frames go through the real worker ({@link DataPlanePath}).
 */
final class InPlaceAead {
    private InPlaceAead() {
    }

    /**
     * Builds {@code prefix ‖ seal(plaintext) ‖ tag}: the first {@code aadLen} bytes of {@code prefix} are the
     * associated data, any further prefix bytes (FSP cleartext coordinates) are carried but not authenticated.
     */
    static byte[] seal(final AeadCipher cipher, final byte[] key, final long counter, final byte[] prefix,
                       final int aadLen, final byte[] plaintext) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment buf = arena.allocate((long) prefix.length + plaintext.length + AeadCipher.TAG_BYTES);
            MemorySegment.copy(prefix, 0, buf, ValueLayout.JAVA_BYTE, 0, prefix.length);
            MemorySegment.copy(plaintext, 0, buf, ValueLayout.JAVA_BYTE, prefix.length, plaintext.length);
            final int n = cipher.seal(key(arena, key), nonce(arena, counter), buf, 0, aadLen, buf, prefix.length,
                    plaintext.length);
            if (n != plaintext.length + AeadCipher.TAG_BYTES) {
                throw new AssertionError("seal returned " + n + " for " + plaintext.length + " plaintext bytes");
            }
            return buf.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * Opens {@code ctLen} bytes (ciphertext and tag) at {@code buf[ctOff]} in place, the AAD being
     * {@code buf[aadOff, aadOff + aadLen)}.
     *
     * @return the plaintext length, or {@link AeadCipher#AUTH_FAILED}
     */
    static int open(final AeadCipher cipher, final Arena arena, final byte[] key, final long counter,
                    final MemorySegment buf, final long aadOff, final int aadLen, final long ctOff, final int ctLen) {
        return cipher.open(key(arena, key), nonce(arena, counter), buf, aadOff, aadLen, buf, ctOff, ctLen);
    }

    /** {@code bytes} copied into a fresh off-heap segment of {@code arena}. */
    static MemorySegment offHeap(final Arena arena, final byte[] bytes) {
        final MemorySegment s = arena.allocate(bytes.length);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s;
    }

    /** {@code [off, off + len)} of {@code seg} as an array. */
    static byte[] bytes(final MemorySegment seg, final long off, final long len) {
        return seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    private static MemorySegment key(final Arena arena, final byte[] key) {
        if (key.length != AeadCipher.KEY_BYTES) {
            throw new IllegalArgumentException("key is " + key.length + " bytes");
        }
        return offHeap(arena, key);
    }

    private static MemorySegment nonce(final Arena arena, final long counter) {
        final MemorySegment n = arena.allocate(AeadCipher.NONCE_BYTES);
        AeadCipher.fipsNonce(n, counter);
        return n;
    }
}
