package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * TCP MSS clamping for IPv6 SYN and SYN-ACK segments, in place (routing-session.md §5.9). The TCP header must
 * follow the fixed IPv6 header directly (next header 6), as every FIPS packet has it:
 * <pre>
 *  40        42        44     48     52               53      54       56         58      60
 *  | sport   | dport   | seq  | ack  | data_off(4) .. | flags | window | checksum | urgent | options ... |
 *  options: kind 0 = end, kind 1 = NOP, else kind u8 | length u8 (>= 2, covering kind+length) | value
 *  MSS:     kind 2 | length 4 | mss u16BE
 * </pre>
 * As the reference, only the first well-formed MSS option is examined; it is lowered to {@code maxMss} when larger
 * (never raised), and the TCP checksum is then recomputed over the pseudo-header and the segment bounded by the
 * IPv6 payload length ({@link #recalculateL4Checksum}, which leaves the checksum alone when the payload length is 0
 * or overruns the packet — so is the reference). Every other byte stays identical. A walk that meets an option
 * running past the header, or a data offset below 20 or beyond the packet, leaves the packet untouched and reports
 * {@link #MALFORMED}.
 * <p>
 * The checksum is recomputed in full rather than patched incrementally (RFC 1624): that is what the reference
 * does, and the results differ when the incoming checksum was wrong or in the 0x0000/0xFFFF corner, so byte
 * equality requires the full sum. SYNs are small, so the cost is a few dozen additions.
 */
public final class TcpMssClamp {
    /** Not an IPv6 TCP segment with SYN set (or too short to hold a TCP header): untouched. */
    public static final int NOT_APPLICABLE = 0;
    /** A SYN without an MSS option, or with one already at or below the ceiling: untouched. */
    public static final int UNCHANGED = 1;
    /** The MSS was lowered and the checksum recomputed. */
    public static final int CLAMPED = 2;
    /** A SYN whose data offset or option list is malformed: untouched (count it). */
    public static final int MALFORMED = -1;

    /** TCP flags byte: SYN bit. */
    public static final int FLAG_SYN = 0x02;
    /** TCP option kind: MSS. */
    public static final int OPT_MSS = 2;

    private static final int TCP = Ipv6Packet.HEADER_SIZE;
    private static final int TCP_MIN = 20;

    private TcpMssClamp() {
    }

    /**
     * Clamps the MSS of the packet at {@code [off, off+len)} to {@code maxMss} (taken as u16).
     *
     * @return {@link #CLAMPED}, {@link #UNCHANGED}, {@link #NOT_APPLICABLE} or {@link #MALFORMED}
     */
    public static int clamp(final MemorySegment seg, final long off, final long len, final int maxMss) {
        if (Ipv6Packet.checkHeader(seg, off, len) != Ipv6Packet.OK
                || Ipv6Packet.nextHeader(seg, off) != Ipv6Packet.PROTO_TCP || len < TCP + TCP_MIN) {
            return NOT_APPLICABLE;
        }
        if ((u8(seg, off + TCP + 13) & FLAG_SYN) == 0) {
            return NOT_APPLICABLE;
        }
        final int headerLen = (u8(seg, off + TCP + 12) >>> 4) * 4;
        if (headerLen < TCP_MIN || headerLen > len - TCP) {
            return MALFORMED;
        }
        final long end = off + TCP + headerLen;
        long i = off + TCP + TCP_MIN;
        final int ceiling = maxMss & 0xFFFF;
        while (i < end) {
            final int kind = u8(seg, i);
            if (kind == 0) {
                return UNCHANGED;
            }
            if (kind == 1) {
                i++;
                continue;
            }
            if (i + 1 >= end) {
                return MALFORMED;
            }
            final int optLen = u8(seg, i + 1);
            if (optLen < 2 || i + optLen > end) {
                return MALFORMED;
            }
            if (kind == OPT_MSS && optLen == 4) {
                final int mss = Short.toUnsignedInt(seg.get(Ipv6Packet.BE_SHORT, i + 2));
                if (mss <= ceiling) {
                    return UNCHANGED;
                }
                seg.set(Ipv6Packet.BE_SHORT, i + 2, (short) ceiling);
                recalculateL4Checksum(seg, off, len);
                return CLAMPED;
            }
            i += optLen;
        }
        return UNCHANGED;
    }

    /**
     * Recomputes the TCP (next header 6, payload at least 20 bytes) or UDP (17, at least 8 bytes) checksum of the
     * packet at {@code [off, off+len)} over the pseudo-header and {@code payload_len} bytes after the fixed header,
     * as the reference's: an all-zero UDP result is sent as 0xFFFF. Does nothing (returns false) for another next
     * header, a header that is not IPv6, a payload length of 0 or one that overruns the region.
     *
     * @return true when a checksum was written
     */
    public static boolean recalculateL4Checksum(final MemorySegment seg, final long off, final long len) {
        if (Ipv6Packet.checkHeader(seg, off, len) != Ipv6Packet.OK) {
            return false;
        }
        final int payloadLen = Ipv6Packet.payloadLength(seg, off);
        if (payloadLen == 0 || Ipv6Packet.HEADER_SIZE + payloadLen > len) {
            return false;
        }
        final int proto = Ipv6Packet.nextHeader(seg, off);
        final long field;
        if (proto == Ipv6Packet.PROTO_TCP && payloadLen >= TCP_MIN) {
            field = off + TCP + 16;
        } else if (proto == Ipv6Packet.PROTO_UDP && payloadLen >= 8) {
            field = off + TCP + 6;
        } else {
            return false;
        }
        seg.set(Ipv6Packet.BE_SHORT, field, (short) 0);
        long sum = InetChecksum.addPseudoHeader(Ipv6Packet.srcHi(seg, off), Ipv6Packet.srcLo(seg, off),
                Ipv6Packet.dstHi(seg, off), Ipv6Packet.dstLo(seg, off), payloadLen, proto, 0);
        sum = InetChecksum.add(seg, off + TCP, payloadLen, sum);
        int checksum = InetChecksum.finish(sum);
        if (checksum == 0 && proto == Ipv6Packet.PROTO_UDP) {
            checksum = 0xFFFF;
        }
        seg.set(Ipv6Packet.BE_SHORT, field, (short) checksum);
        return true;
    }

    private static int u8(final MemorySegment seg, final long at) {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, at));
    }
}
