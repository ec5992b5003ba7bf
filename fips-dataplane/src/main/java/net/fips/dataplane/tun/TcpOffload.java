package net.fips.dataplane.tun;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.ipv6.InetChecksum;
import net.fips.ffm.linux.TunIoctl;

/**
 * The per-packet arithmetic of the TUN offloads, static and allocation-free over native memory: splitting an IPv6
 * TCP super-segment that the kernel handed over with {@code VIRTIO_NET_HDR_GSO_TCPV6} into MTU-sized segments
 * (what a NIC's TSO would do), completing a partial checksum ({@code VIRTIO_NET_HDR_F_NEEDS_CSUM}), and the tests
 * the receive-side coalescing ({@link TunCoalescer}) applies. Only IPv6 packets whose next header is TCP directly
 * (no extension headers) are split or coalesced; anything else is left as it is.
 *
 * <p>Segmentation rules (as a NIC's TSO and the kernel's software GSO apply them): every segment carries a copy of
 * the IPv6 and TCP headers with the payload length fixed, sequence number advanced by the payload bytes before it,
 * FIN and PSH only on the last segment, CWR only on the first, and a full TCP checksum computed again.
 */
public final class TcpOffload {
    /** IPv6 fixed header. */
    public static final int IPV6_HEADER = 40;
    /** TCP header without options. */
    public static final int TCP_MIN_HEADER = 20;
    /** Next header value of TCP. */
    public static final int NH_TCP = 6;
    /** TCP flag FIN. */
    public static final int FIN = 0x01;
    /** TCP flag SYN. */
    public static final int SYN = 0x02;
    /** TCP flag RST. */
    public static final int RST = 0x04;
    /** TCP flag PSH. */
    public static final int PSH = 0x08;
    /** TCP flag ACK. */
    public static final int ACK = 0x10;
    /** TCP flag URG. */
    public static final int URG = 0x20;
    /** TCP flag ECE. */
    public static final int ECE = 0x40;
    /** TCP flag CWR. */
    public static final int CWR = 0x80;

    /** Offset of the TCP sequence number from the TCP header. */
    static final int TCP_SEQ = 4;
    /** Offset of the TCP acknowledgement number. */
    static final int TCP_ACK = 8;
    /** Offset of the data-offset byte. */
    static final int TCP_DOFF = 12;
    /** Offset of the flags byte. */
    static final int TCP_FLAGS = 13;
    /** Offset of the window. */
    static final int TCP_WINDOW = 14;
    /** Offset of the checksum. */
    static final int TCP_CHECKSUM = 16;

    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The virtio-net header's fields are in the host's byte order (a little-endian virtio 1.0 device on x86). */
    private static final ValueLayout.OfShort HOST_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    private TcpOffload() {
    }

    /**
     * @return the length of the IPv6 + TCP headers (60 and more) of a well-formed IPv6 packet whose next header
     *         is TCP and whose payload length matches {@code len}; -1 for anything else (not IPv6, an extension
     *         header, truncated, a bad data offset)
     */
    public static int tcpv6HeaderLength(final MemorySegment seg, final long off, final int len) {
        if (len < IPV6_HEADER + TCP_MIN_HEADER) {
            return -1;
        }
        if ((Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off)) >>> 4) != 6
                || Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + 6)) != NH_TCP
                || Short.toUnsignedInt(seg.get(BE_SHORT, off + 4)) != len - IPV6_HEADER) {
            return -1;
        }
        final int thl = (Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER + TCP_DOFF)) >>> 4) * 4;
        if (thl < TCP_MIN_HEADER || IPV6_HEADER + thl > len) {
            return -1;
        }
        return IPV6_HEADER + thl;
    }

    /** @return the segments a super-segment of {@code len} bytes with {@code hdrLen} bytes of headers splits into */
    public static int segmentCount(final int len, final int hdrLen, final int mss) {
        final int payload = len - hdrLen;
        return payload <= 0 ? 1 : (payload + mss - 1) / mss;
    }

    /**
     * Writes segment {@code index} of the super-segment at {@code src[off, off+len)} to {@code dst} at
     * {@code dstOff}: the headers, {@code mss} payload bytes (fewer for the last), fixed length, sequence number,
     * flags and a full checksum.
     *
     * @param hdrLen {@link #tcpv6HeaderLength} of the super-segment
     * @param mss    payload bytes per segment ({@code gso_size}), at least 1
     * @return the segment's length
     */
    public static int writeSegment(final MemorySegment src, final long off, final int len, final int hdrLen,
                                   final int mss, final int index, final MemorySegment dst, final long dstOff) {
        final int payload = len - hdrLen;
        final int start = index * mss;
        final int chunk = Math.max(0, Math.min(mss, payload - start));
        MemorySegment.copy(src, off, dst, dstOff, hdrLen);
        MemorySegment.copy(src, off + hdrLen + start, dst, dstOff + hdrLen, chunk);
        final int total = hdrLen + chunk;
        dst.set(BE_SHORT, dstOff + 4, (short) (total - IPV6_HEADER));
        final long tcp = dstOff + IPV6_HEADER;
        final int seq0 = src.get(BE_INT, off + IPV6_HEADER + TCP_SEQ);
        dst.set(BE_INT, tcp + TCP_SEQ, seq0 + start);
        int flags = Byte.toUnsignedInt(dst.get(ValueLayout.JAVA_BYTE, tcp + TCP_FLAGS));
        if (start + chunk < payload) {
            flags &= ~(FIN | PSH);
        }
        if (index > 0) {
            flags &= ~CWR;
        }
        dst.set(ValueLayout.JAVA_BYTE, tcp + TCP_FLAGS, (byte) flags);
        setTcpChecksum(dst, dstOff, total);
        return total;
    }

    /** Computes and stores the full TCP checksum of the IPv6/TCP packet at {@code seg[off, off+len)}. */
    public static void setTcpChecksum(final MemorySegment seg, final long off, final int len) {
        final long tcp = off + IPV6_HEADER;
        seg.set(BE_SHORT, tcp + TCP_CHECKSUM, (short) 0);
        final long sum = InetChecksum.add(seg, tcp, len - IPV6_HEADER, pseudoHeaderSum(seg, off, len - IPV6_HEADER));
        seg.set(BE_SHORT, tcp + TCP_CHECKSUM, (short) InetChecksum.finish(sum));
    }

    /** @return the unfolded sum of the IPv6 pseudo-header for TCP with {@code upperLength} bytes */
    public static long pseudoHeaderSum(final MemorySegment seg, final long off, final int upperLength) {
        return InetChecksum.add(seg, off + 8, 32, 0) + (upperLength >>> 16) + (upperLength & 0xFFFF) + NH_TCP;
    }

    /** {@link #vnetFrame}: a plain packet, its partial checksum (if the header asked for one) now complete. */
    public static final int VNET_PLAIN = 0;
    /** {@link #vnetFrame}: a frame the offload path does not take (counted as a TUN offload drop). */
    public static final int VNET_DROP = -1;

    /**
     * Classifies one frame read from the device in virtio-net header mode (transports.md §7) and completes its
     * checksum where the header asks for that: a packet without GSO (with {@code NEEDS_CSUM} its checksum is
     * completed in place) that fits a slot, a {@code GSO_TCPV6} super-segment that {@link #writeSegment} can split
     * into segments of {@code gso_size} payload bytes that each fit a slot, or a drop (TCPv4, UDP, extension headers,
     * bad checksum offsets, {@code gso_size} 0, a packet or segment larger than a slot).
     *
     * @param frame    the {@code struct virtio_net_hdr} at offset 0, the packet right behind it
     * @param len      the packet's length (the bytes read less the header), at least 1
     * @param capacity the largest packet a slot takes
     * @return {@link #VNET_PLAIN}, {@link #VNET_DROP}, or for a super-segment its IPv6 + TCP header length (&gt; 0)
     */
    public static int vnetFrame(final MemorySegment frame, final int len, final int capacity) {
        final int vnet = TunIoctl.VIRTIO_NET_HDR_SIZE;
        final int flags = Byte.toUnsignedInt(frame.get(ValueLayout.JAVA_BYTE, TunIoctl.VNET_FLAGS_OFFSET));
        final int gso = Byte.toUnsignedInt(frame.get(ValueLayout.JAVA_BYTE, TunIoctl.VNET_GSO_TYPE_OFFSET))
                & ~TunIoctl.VIRTIO_NET_HDR_GSO_ECN;
        if (gso == TunIoctl.VIRTIO_NET_HDR_GSO_NONE) {
            if ((flags & TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0
                    && !completeChecksum(frame, vnet, len,
                            Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_CSUM_START_OFFSET)),
                            Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_CSUM_OFFSET_OFFSET)))) {
                return VNET_DROP;
            }
            return len > capacity ? VNET_DROP : VNET_PLAIN;
        }
        final int mss = vnetGsoSize(frame);
        final int hdrLen = gso == TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6 ? tcpv6HeaderLength(frame, vnet, len) : -1;
        return hdrLen < 0 || mss == 0 || hdrLen + mss > capacity ? VNET_DROP : hdrLen;
    }

    /** @return the {@code gso_size} of the virtio-net header at offset 0 of {@code frame} */
    public static int vnetGsoSize(final MemorySegment frame) {
        return Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_GSO_SIZE_OFFSET));
    }

    /**
     * Completes a partial checksum: the one's-complement sum of {@code [csumStart, len)} (whose checksum field
     * already holds the pseudo-header sum, as the kernel leaves it), stored at {@code csumStart + csumOffset};
     * a zero result is written as 0xFFFF, as the kernel's own {@code skb_checksum_help} does.
     *
     * @return false (nothing written) when the offsets do not fit the packet
     */
    public static boolean completeChecksum(final MemorySegment seg, final long off, final int len,
                                           final int csumStart, final int csumOffset) {
        if (csumStart < 0 || csumOffset < 0 || csumStart >= len || (long) csumStart + csumOffset + 2 > len) {
            return false;
        }
        final int v = InetChecksum.finish(InetChecksum.add(seg, off + csumStart, len - csumStart, 0));
        seg.set(BE_SHORT, off + csumStart + csumOffset, (short) (v == 0 ? 0xFFFF : v));
        return true;
    }
}
