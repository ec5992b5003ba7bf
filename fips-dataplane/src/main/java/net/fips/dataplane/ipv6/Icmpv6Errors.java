package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * ICMPv6 error packets the IPv6 adapter writes back into the TUN device (RFC 4443), built into a caller-supplied
 * region without allocating:
 * <pre>
 *  IPv6 header (40): 0x60 00 00 00 | payload_len u16BE = 8 + quoted | 58 | 64 | src (16) | dst = original src (16)
 *  ICMPv6 (8):       type u8 | code u8 | checksum u16BE | word u32BE (PTB: the MTU; Dest Unreachable: 0)
 *  quoted:           original[0 .. min(len, 1232)]  (so the whole error is at most 1280 bytes)
 * </pre>
 * The checksum covers the IPv6 pseudo-header (src, dst, upper-layer length, next header 58) and the ICMPv6 message.
 * <p>
 * Source address, as the reference chooses: Packet Too Big goes out <em>from the original packet's destination</em>
 * ({@link #packetTooBigForTun}), because Linux ignores a PTB whose source is one of its own addresses;
 * Destination Unreachable goes out from our own FIPS address. Suppression rules are the reference's:
 * {@link #shouldSendError} before a Destination Unreachable; the PTB builder applies its own (no multicast-destination
 * test there).
 * <p>
 * Builders read everything they need from the original before writing, so the destination region may overlap the
 * original (for example the same slot, 48 bytes in front of it).
 */
public final class Icmpv6Errors {
    /** ICMPv6 Destination Unreachable. */
    public static final int TYPE_DEST_UNREACHABLE = 1;
    /** ICMPv6 Packet Too Big. */
    public static final int TYPE_PACKET_TOO_BIG = 2;
    /** Destination Unreachable code 0: no route to destination (the only one FIPS sends). */
    public static final int CODE_NO_ROUTE = 0;
    /** ICMPv6 header size. */
    public static final int ICMPV6_HEADER_SIZE = 8;
    /** Largest quoted part of the original: {@code 1280 - 40 - 8}. */
    public static final int MAX_QUOTED = EncapsulationBudget.IPV6_MIN_MTU - Ipv6Packet.HEADER_SIZE
            - ICMPV6_HEADER_SIZE;
    /** Hop limit of generated errors. */
    public static final int HOP_LIMIT = 64;
    /** Status: the original must not (or cannot) be answered. */
    public static final int SUPPRESSED = -1;
    /** Status: the destination region is too small for the error. */
    public static final int ERR_NO_ROOM = -2;

    private Icmpv6Errors() {
    }

    /**
     * The reference's gate before sending an ICMPv6 error: false when the original is shorter than 40 bytes, not
     * version 6, from {@code ::} or a multicast source, to a multicast destination, or is itself an ICMPv6 error
     * (next header 58 with a type byte below 128).
     */
    public static boolean shouldSendError(final MemorySegment seg, final long off, final long len) {
        if (Ipv6Packet.checkHeader(seg, off, len) != Ipv6Packet.OK) {
            return false;
        }
        final long srcHi = Ipv6Packet.srcHi(seg, off);
        if (Ipv6Packet.isUnspecified(srcHi, Ipv6Packet.srcLo(seg, off)) || Ipv6Packet.isMulticast(srcHi)) {
            return false;
        }
        if (Ipv6Packet.isMulticast(Ipv6Packet.dstHi(seg, off))) {
            return false;
        }
        return !isIcmpError(seg, off, len);
    }

    private static boolean isIcmpError(final MemorySegment seg, final long off, final long len) {
        return Ipv6Packet.nextHeader(seg, off) == Ipv6Packet.PROTO_ICMPV6 && len > Ipv6Packet.HEADER_SIZE
                && Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + Ipv6Packet.HEADER_SIZE)) < 128;
    }

    /** Size of the error packet answering an original of {@code originalLength} bytes. */
    public static int errorLength(final long originalLength) {
        return Ipv6Packet.HEADER_SIZE + ICMPV6_HEADER_SIZE + (int) Math.min(originalLength, MAX_QUOTED);
    }

    /**
     * Builds a Packet Too Big from {@code (srcHi, srcLo)} to the original's source, as the reference's builder:
     * refused ({@link #SUPPRESSED}) for an original shorter than 40 bytes, not version 6, from {@code ::} or a
     * multicast source, or that is itself an ICMPv6 error.
     *
     * @param mtu the MTU to report (u32)
     * @return the error's length (at most 1280), {@link #SUPPRESSED} or {@link #ERR_NO_ROOM}
     */
    public static int packetTooBig(final MemorySegment orig, final long off, final long len, final long mtu,
            final long srcHi, final long srcLo, final MemorySegment dst, final long dstOff) {
        if (Ipv6Packet.checkHeader(orig, off, len) != Ipv6Packet.OK) {
            return SUPPRESSED;
        }
        final long toHi = Ipv6Packet.srcHi(orig, off);
        final long toLo = Ipv6Packet.srcLo(orig, off);
        if (Ipv6Packet.isUnspecified(toHi, toLo) || Ipv6Packet.isMulticast(toHi) || isIcmpError(orig, off, len)) {
            return SUPPRESSED;
        }
        return build(orig, off, len, TYPE_PACKET_TOO_BIG, 0, (int) mtu, srcHi, srcLo, toHi, toLo, dst, dstOff);
    }

    /**
     * The Packet Too Big the TUN path sends: {@link #packetTooBig} with the original packet's destination as the
     * source address (rate limiting by original source is the caller's, see {@link PtbRateLimiter}).
     */
    public static int packetTooBigForTun(final MemorySegment orig, final long off, final long len, final long mtu,
            final MemorySegment dst, final long dstOff) {
        if (Ipv6Packet.checkHeader(orig, off, len) != Ipv6Packet.OK) {
            return SUPPRESSED;
        }
        return packetTooBig(orig, off, len, mtu, Ipv6Packet.dstHi(orig, off), Ipv6Packet.dstLo(orig, off), dst,
                dstOff);
    }

    /**
     * Builds a Destination Unreachable with {@code code} from our own address {@code (ourHi, ourLo)} to the
     * original's source. As the reference's builder it only refuses an original shorter than 40 bytes; call
     * {@link #shouldSendError} first.
     *
     * @return the error's length (at most 1280), {@link #SUPPRESSED} or {@link #ERR_NO_ROOM}
     */
    public static int destinationUnreachable(final MemorySegment orig, final long off, final long len,
            final int code, final long ourHi, final long ourLo, final MemorySegment dst, final long dstOff) {
        if (!Ipv6Packet.inBounds(orig, off, len) || len < Ipv6Packet.HEADER_SIZE) {
            return SUPPRESSED;
        }
        return build(orig, off, len, TYPE_DEST_UNREACHABLE, code, 0, ourHi, ourLo, Ipv6Packet.srcHi(orig, off),
                Ipv6Packet.srcLo(orig, off), dst, dstOff);
    }

    private static int build(final MemorySegment orig, final long off, final long len, final int type,
            final int code, final int word, final long srcHi, final long srcLo, final long toHi, final long toLo,
            final MemorySegment dst, final long dstOff) {
        final int quoted = (int) Math.min(len, MAX_QUOTED);
        final int icmpLen = ICMPV6_HEADER_SIZE + quoted;
        final int total = Ipv6Packet.HEADER_SIZE + icmpLen;
        if (!Ipv6Packet.inBounds(dst, dstOff, total)) {
            return ERR_NO_ROOM;
        }
        final long icmp = dstOff + Ipv6Packet.HEADER_SIZE;
        // The quote first: MemorySegment.copy is overlap-safe, and every header field was read into locals above.
        MemorySegment.copy(orig, off, dst, icmp + ICMPV6_HEADER_SIZE, quoted);
        dst.set(Ipv6Packet.BE_INT, dstOff, 0x6000_0000);
        dst.set(Ipv6Packet.BE_SHORT, dstOff + Ipv6Packet.PAYLOAD_LENGTH_OFFSET, (short) icmpLen);
        dst.set(ValueLayout.JAVA_BYTE, dstOff + Ipv6Packet.NEXT_HEADER_OFFSET, (byte) Ipv6Packet.PROTO_ICMPV6);
        dst.set(ValueLayout.JAVA_BYTE, dstOff + Ipv6Packet.HOP_LIMIT_OFFSET, (byte) HOP_LIMIT);
        dst.set(Ipv6Packet.BE_LONG, dstOff + Ipv6Packet.SRC_OFFSET, srcHi);
        dst.set(Ipv6Packet.BE_LONG, dstOff + Ipv6Packet.SRC_OFFSET + 8, srcLo);
        dst.set(Ipv6Packet.BE_LONG, dstOff + Ipv6Packet.DST_OFFSET, toHi);
        dst.set(Ipv6Packet.BE_LONG, dstOff + Ipv6Packet.DST_OFFSET + 8, toLo);
        dst.set(ValueLayout.JAVA_BYTE, icmp, (byte) type);
        dst.set(ValueLayout.JAVA_BYTE, icmp + 1, (byte) code);
        dst.set(Ipv6Packet.BE_SHORT, icmp + 2, (short) 0);
        dst.set(Ipv6Packet.BE_INT, icmp + 4, word);
        long sum = InetChecksum.addPseudoHeader(srcHi, srcLo, toHi, toLo, icmpLen, Ipv6Packet.PROTO_ICMPV6, 0);
        sum = InetChecksum.add(dst, icmp, icmpLen, sum);
        dst.set(Ipv6Packet.BE_SHORT, icmp + 2, (short) InetChecksum.finish(sum));
        return total;
    }
}
