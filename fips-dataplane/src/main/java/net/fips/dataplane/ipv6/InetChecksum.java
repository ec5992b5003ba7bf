package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The Internet checksum (RFC 1071) with the IPv6 pseudo-header (RFC 8200 §8.1), over segment regions. Sums are
 * kept unfolded in a {@code long} (no overflow for any IPv6 size) and folded once at the end.
 */
public final class InetChecksum {
    private static final ValueLayout.OfLong NATIVE_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private InetChecksum() {
    }

    /**
     * Adds the 16-bit big-endian words of {@code [off, off+len)} to {@code sum}; an odd last byte is padded with a
     * zero byte.
     */
    public static long add(final MemorySegment seg, final long off, final long len, final long sum) {
        long s = sum;
        long i = 0;
        if (len >= 8) {
            // Bulk: native-order 64-bit loads summed as two 32-bit words (RFC 1071 §2: the sum is independent of
            // word size and, up to one final byte swap, of byte order); at most 2^33 per step, so no overflow for
            // any IPv6 length. Folded to 16 bits, swapped to big-endian and added to the caller's sum.
            long acc = 0;
            for (; i + 8 <= len; i += 8) {
                final long w = seg.get(NATIVE_LONG, off + i);
                acc += (w >>> 32) + (w & 0xFFFF_FFFFL);
            }
            final int f = fold(acc);
            s += LITTLE_ENDIAN ? ((f & 0xFF) << 8) | (f >>> 8) : f;
        }
        for (; i + 2 <= len; i += 2) {
            s += Short.toUnsignedInt(seg.get(Ipv6Packet.BE_SHORT, off + i));
        }
        if (i < len) {
            s += Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + i)) << 8;
        }
        return s;
    }

    /** Adds the words of two addresses and the pseudo-header's upper-layer length and next header to {@code sum}. */
    public static long addPseudoHeader(final long srcHi, final long srcLo, final long dstHi, final long dstLo,
            final long upperLength, final int nextHeader, final long sum) {
        return sum + words(srcHi) + words(srcLo) + words(dstHi) + words(dstLo) + (upperLength >>> 16)
                + (upperLength & 0xFFFF) + nextHeader;
    }

    private static long words(final long v) {
        return (v >>> 48) + ((v >>> 32) & 0xFFFF) + ((v >>> 16) & 0xFFFF) + (v & 0xFFFF);
    }

    /** Folds {@code sum} to 16 bits with end-around carry (result in 0..0xFFFF, 0 only for an all-zero sum). */
    public static int fold(final long sum) {
        long s = sum;
        while (s >>> 16 != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    /** The checksum field value for {@code sum}: the one's complement of the folded sum. */
    public static int finish(final long sum) {
        return ~fold(sum) & 0xFFFF;
    }
}
