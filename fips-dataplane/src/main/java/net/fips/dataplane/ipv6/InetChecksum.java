package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Internet checksum (RFC 1071) with the IPv6 pseudo-header (RFC 8200 §8.1), over segment regions. Sums are
 * kept unfolded in a {@code long} (no overflow for any IPv6 size) and folded once at the end.
 */
public final class InetChecksum {
    private InetChecksum() {
    }

    /**
     * Adds the 16-bit big-endian words of {@code [off, off+len)} to {@code sum}; an odd last byte is padded with a
     * zero byte.
     */
    public static long add(final MemorySegment seg, final long off, final long len, final long sum) {
        long s = sum;
        long i = 0;
        for (; i + 8 <= len; i += 8) {
            final long w = seg.get(Ipv6Packet.BE_LONG, off + i);
            s += (w >>> 48) + ((w >>> 32) & 0xFFFF) + ((w >>> 16) & 0xFFFF) + (w & 0xFFFF);
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
