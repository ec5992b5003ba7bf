package net.fips.dataplane.ble;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * The one SDU each side sends right after an L2CAP connection and before any FMP packet (transports.md §5.4):
 * {@code [0x00][x-only public key, 32 bytes]}, 33 bytes. Byte 0 is a format marker; anything else, or another
 * length, is refused.
 */
public final class PubkeyHello {
    /** Bytes of the SDU. */
    public static final int SIZE = 33;
    /** Byte 0. */
    public static final byte PREFIX = 0x00;
    /** Bytes of an x-only key. */
    public static final int KEY_SIZE = 32;

    /** Why a received SDU is not a valid hello. */
    public enum Error {
        /** Fewer than 33 bytes. */
        SHORT,
        /** More than 33 bytes. */
        OVERSIZE,
        /** Byte 0 is not 0x00. */
        BAD_PREFIX,
        /** The 32 bytes are not an x-only secp256k1 key. */
        INVALID_KEY
    }

    private PubkeyHello() {
    }

    /**
     * Writes the hello at the start of {@code dst}.
     *
     * @return {@link #SIZE}
     */
    public static int encode(final byte[] xOnly, final MemorySegment dst) {
        if (xOnly.length != KEY_SIZE) {
            throw new IllegalArgumentException("an x-only key has 32 bytes, got " + xOnly.length);
        }
        dst.set(JAVA_BYTE, 0, PREFIX);
        MemorySegment.copy(xOnly, 0, dst, JAVA_BYTE, 1, KEY_SIZE);
        return SIZE;
    }

    /**
     * Checks a received SDU of {@code len} bytes at {@code src[off..]} (only those bytes are read).
     *
     * @return null when valid, else the reason
     */
    public static Error check(final MemorySegment src, final long off, final long len, final PeerKeys keys) {
        if (len < SIZE) {
            return Error.SHORT;
        }
        if (len > SIZE) {
            return Error.OVERSIZE;
        }
        if (src.get(JAVA_BYTE, off) != PREFIX) {
            return Error.BAD_PREFIX;
        }
        return keys.isValidXOnly(key(src, off)) ? null : Error.INVALID_KEY;
    }

    /** @return the 32 key bytes of a hello at {@code src[off..]} (call after {@link #check} returned null) */
    public static byte[] key(final MemorySegment src, final long off) {
        final byte[] k = new byte[KEY_SIZE];
        MemorySegment.copy(src, JAVA_BYTE, off + 1, k, 0, KEY_SIZE);
        return k;
    }
}
