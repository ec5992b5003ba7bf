package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.wire.Ipv6Shim;

/**
 * Static accessors over an IPv6 packet at {@code [off, off+len)} of a segment (fixed header, RFC 8200):
 * <pre>
 *  0       4            6             7           8              24             40
 *  | ver(4) tc(8) flow(20) | payload_len u16BE | next_header | hop_limit | src (16) | dst (16) | payload ...
 * </pre>
 * The accessors do not check bounds beyond what {@link MemorySegment} enforces; call {@link #validate} (or
 * {@link #checkHeader}) first. Addresses are returned as big-endian long halves.
 */
public final class Ipv6Packet {
    /** Fixed header size. */
    public static final int HEADER_SIZE = 40;
    /** Offset of the payload length (u16 BE). */
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    /** Offset of the next header byte. */
    public static final int NEXT_HEADER_OFFSET = 6;
    /** Offset of the hop limit byte. */
    public static final int HOP_LIMIT_OFFSET = 7;
    /** Offset of the source address. */
    public static final int SRC_OFFSET = 8;
    /** Offset of the destination address. */
    public static final int DST_OFFSET = 24;
    /** Next header value of TCP. */
    public static final int PROTO_TCP = 6;
    /** Next header value of UDP. */
    public static final int PROTO_UDP = 17;
    /** Next header value of ICMPv6. */
    public static final int PROTO_ICMPV6 = 58;
    /** First address byte of every FIPS address ({@code fd00::/8}). */
    public static final int FIPS_PREFIX_BYTE = 0xFD;
    /** Number of node_addr bytes a FIPS address carries (bytes 1-15 of the address). */
    public static final int FIPS_NODE_PREFIX_LENGTH = 15;

    /** Status: valid. */
    public static final int OK = 0;
    /** Status: region out of the segment's bounds. */
    public static final int ERR_BOUNDS = -1;
    /** Status: shorter than the 40-byte header. */
    public static final int ERR_TRUNCATED = -2;
    /** Status: version nibble is not 6. */
    public static final int ERR_VERSION = -3;
    /** Status: 40 + payload length differs from the region length. */
    public static final int ERR_LENGTH = -4;

    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Ipv6Packet() {
    }

    /** True when {@code [off, off+len)} lies inside {@code seg}. */
    static boolean inBounds(final MemorySegment seg, final long off, final long len) {
        return off >= 0 && len >= 0 && off <= seg.byteSize() - len;
    }

    /**
     * The reference's admission check on the TUN path: at least 40 bytes and version 6 (the payload length field
     * is not consulted).
     *
     * @return {@link #OK}, {@link #ERR_BOUNDS}, {@link #ERR_TRUNCATED} or {@link #ERR_VERSION}
     */
    public static int checkHeader(final MemorySegment seg, final long off, final long len) {
        if (!inBounds(seg, off, len)) {
            return ERR_BOUNDS;
        }
        if (len < HEADER_SIZE) {
            return ERR_TRUNCATED;
        }
        return version(seg, off) == 6 ? OK : ERR_VERSION;
    }

    /**
     * Strict validation: {@link #checkHeader} and {@code 40 + payload_len == len} (no jumbograms).
     *
     * @return {@link #OK} or a negative {@code ERR_*} status
     */
    public static int validate(final MemorySegment seg, final long off, final long len) {
        final int head = checkHeader(seg, off, len);
        if (head != OK) {
            return head;
        }
        return HEADER_SIZE + payloadLength(seg, off) == len ? OK : ERR_LENGTH;
    }

    /** The version nibble. */
    public static int version(final MemorySegment seg, final long off) {
        return (seg.get(ValueLayout.JAVA_BYTE, off) & 0xF0) >>> 4;
    }

    /** The 8-bit traffic class. */
    public static int trafficClass(final MemorySegment seg, final long off) {
        return (seg.get(BE_INT, off) >>> 20) & 0xFF;
    }

    /** The 20-bit flow label. */
    public static int flowLabel(final MemorySegment seg, final long off) {
        return seg.get(BE_INT, off) & 0xF_FFFF;
    }

    /** The payload length field. */
    public static int payloadLength(final MemorySegment seg, final long off) {
        return Short.toUnsignedInt(seg.get(BE_SHORT, off + PAYLOAD_LENGTH_OFFSET));
    }

    /** The next header byte. */
    public static int nextHeader(final MemorySegment seg, final long off) {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + NEXT_HEADER_OFFSET));
    }

    /** The hop limit byte. */
    public static int hopLimit(final MemorySegment seg, final long off) {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + HOP_LIMIT_OFFSET));
    }

    /** Source address bytes 0-7. */
    public static long srcHi(final MemorySegment seg, final long off) {
        return seg.get(BE_LONG, off + SRC_OFFSET);
    }

    /** Source address bytes 8-15. */
    public static long srcLo(final MemorySegment seg, final long off) {
        return seg.get(BE_LONG, off + SRC_OFFSET + 8);
    }

    /** Destination address bytes 0-7. */
    public static long dstHi(final MemorySegment seg, final long off) {
        return seg.get(BE_LONG, off + DST_OFFSET);
    }

    /** Destination address bytes 8-15. */
    public static long dstLo(final MemorySegment seg, final long off) {
        return seg.get(BE_LONG, off + DST_OFFSET + 8);
    }

    /**
     * Marks congestion experienced, as the receive path does when the FMP frame carrying the packet had CE set: an
     * ECN-capable packet (ECN field, the low 2 bits of the traffic class = bits 5-4 of byte 1, is ECT(0) 0b10,
     * ECT(1) 0b01 or already CE) gets ECN = CE 0b11; a Not-ECT packet (0b00) is left alone. No checksum covers the
     * traffic class. The caller has checked that at least 2 bytes exist.
     *
     * @return true when the packet is ECN-capable (and now carries CE)
     */
    public static boolean markEcnCe(final MemorySegment seg, final long off) {
        final byte b1 = seg.get(ValueLayout.JAVA_BYTE, off + 1);
        if ((b1 & 0x30) == 0) {
            return false;
        }
        seg.set(ValueLayout.JAVA_BYTE, off + 1, (byte) (b1 | 0x30));
        return true;
    }

    /** True when the destination is a FIPS address: first byte {@code 0xfd} ({@code fd00::/8}). */
    public static boolean isFipsDestination(final MemorySegment seg, final long off) {
        return isFipsAddress(dstHi(seg, off));
    }

    /** True when an address whose bytes 0-7 are {@code hi} lies in {@code fd00::/8}. */
    public static boolean isFipsAddress(final long hi) {
        return hi >>> 56 == FIPS_PREFIX_BYTE;
    }

    /** True for {@code ::}. */
    public static boolean isUnspecified(final long hi, final long lo) {
        return hi == 0 && lo == 0;
    }

    /** True for multicast ({@code ff00::/8}). */
    public static boolean isMulticast(final long hi) {
        return hi >>> 56 == 0xFF;
    }

    /**
     * Bytes 0-7 of the identity-cache key of a FIPS address: its 15 node_addr bytes (address bytes 1-15) followed by
     * a zero byte, i.e. the node_addr with its 16th byte cleared, as two big-endian longs.
     */
    public static long nodePrefixHi(final long addrHi, final long addrLo) {
        return addrHi << 8 | addrLo >>> 56;
    }

    /** Bytes 8-15 of the identity-cache key (see {@link #nodePrefixHi}); the last byte is always 0. */
    public static long nodePrefixLo(final long addrLo) {
        return addrLo << 8;
    }

    /** Bytes 0-7 of a node's FIPS address {@code fd ‖ node_addr[0..15]}. */
    public static long fipsAddressHi(final long nodeHi) {
        return Ipv6Shim.fipsAddressHi(nodeHi);
    }

    /** Bytes 8-15 of a node's FIPS address. */
    public static long fipsAddressLo(final long nodeHi, final long nodeLo) {
        return Ipv6Shim.fipsAddressLo(nodeHi, nodeLo);
    }
}
