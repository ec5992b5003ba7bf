package net.fips.dataplane.udp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

/**
 * Self-checking test packets: {@code [seq u64][length u32][pseudo-random bytes from seq][FNV-1a 64 of the rest]}.
 * A receiver can verify length, content and checksum from the packet alone.
 */
final class TestPackets {
    static final int MIN_SIZE = 8 + 4 + 8;

    private TestPackets() {
    }

    static void write(final MemorySegment seg, final long off, final long seq, final int size) {
        seg.set(JAVA_LONG_UNALIGNED, off, seq);
        seg.set(JAVA_INT_UNALIGNED, off + 8, size);
        long x = seq * 0x9E3779B97F4A7C15L + 1;
        for (int i = 12; i < size - 8; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            seg.set(JAVA_BYTE, off + i, (byte) x);
        }
        seg.set(JAVA_LONG_UNALIGNED, off + size - 8, fnv(seg, off, size - 8));
    }

    /** @return the sequence number, or -1 if the packet is corrupt */
    static long verify(final MemorySegment seg, final long off, final int length) {
        if (length < MIN_SIZE) {
            return -1;
        }
        final long seq = seg.get(JAVA_LONG_UNALIGNED, off);
        if (seg.get(JAVA_INT_UNALIGNED, off + 8) != length) {
            return -1;
        }
        if (seg.get(JAVA_LONG_UNALIGNED, off + length - 8) != fnv(seg, off, length - 8)) {
            return -1;
        }
        long x = seq * 0x9E3779B97F4A7C15L + 1;
        for (int i = 12; i < length - 8; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            if (seg.get(JAVA_BYTE, off + i) != (byte) x) {
                return -1;
            }
        }
        return seq;
    }

    private static long fnv(final MemorySegment seg, final long off, final int len) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < len; i++) {
            h ^= seg.get(JAVA_BYTE, off + i) & 0xFF;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
