package net.fips.dataplane.tun;

import static net.fips.dataplane.tun.TcpOffload.ACK;
import static net.fips.dataplane.tun.TcpOffload.BE_INT;
import static net.fips.dataplane.tun.TcpOffload.BE_SHORT;
import static net.fips.dataplane.tun.TcpOffload.IPV6_HEADER;
import static net.fips.dataplane.tun.TcpOffload.PSH;
import static net.fips.dataplane.tun.TcpOffload.TCP_ACK;
import static net.fips.dataplane.tun.TcpOffload.TCP_CHECKSUM;
import static net.fips.dataplane.tun.TcpOffload.TCP_DOFF;
import static net.fips.dataplane.tun.TcpOffload.TCP_FLAGS;
import static net.fips.dataplane.tun.TcpOffload.TCP_MIN_HEADER;
import static net.fips.dataplane.tun.TcpOffload.TCP_SEQ;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.ipv6.InetChecksum;
import net.fips.ffm.linux.TunIoctl;

/**
 * Receive-side coalescing for a TUN device in virtio-net header mode (GRO in software): consecutive in-order TCP
 * segments of one flow are gathered in one buffer and written as one super-segment behind a virtio-net header
 * ({@code GSO_TCPV6}, {@code gso_size} = the first segment's payload, checksum left partial with
 * {@code NEEDS_CSUM}), so the kernel's TCP stack takes them in one pass. Everything else is written at once, as it
 * came, behind a zero header, after the held train (so the order of packets is kept).
 *
 * <p>A segment joins the held train only when it continues it exactly: same addresses, traffic class, flow label
 * and hop limit, same ports, sequence number = the end of the train, same acknowledgement number, window, header
 * length and options, only ACK (and PSH) set, and a payload no larger than the first one's. A smaller segment or
 * one with PSH ends the train (as the kernel's own GRO ends it); so does anything that does not continue it, a
 * lost or reordered segment included, and the end of each worker duty cycle ({@link #flush()}). One worker owns
 * one instance; nothing is allocated per packet.
 */
public final class TunCoalescer implements Ipv6Sink {
    /** The largest super-segment written (the kernel's GRO limit is 64 KiB). */
    public static final int MAX_TOTAL = 65535;

    private static final ValueLayout.OfShort HOST_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final int CLEAN_FLAGS_MASK = 0xFF & ~PSH;

    private final VnetOutput out;
    private final MemorySegment buf;
    private final MemorySegment header;
    private int length;
    private int count;
    private int hdrLen;
    private int gsoSize;
    private int nextSeq;
    private int lost;
    private long superSegments;
    private long coalesced;

    /**
     * @param out   the device's writer (header mode) or a recorder
     * @param arena where the 64 KiB train buffer lives
     */
    public TunCoalescer(final VnetOutput out, final Arena arena) {
        this.out = out;
        this.buf = arena.allocate(MAX_TOTAL, 8);
        this.header = arena.allocate(TunIoctl.VIRTIO_NET_HDR_SIZE, 8);
    }

    @Override
    public int write(final MemorySegment seg, final long off, final int len) {
        final int h = TcpOffload.tcpv6HeaderLength(seg, off, len);
        final int payload = len - h;
        final int flags = h < 0 ? 0 : Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER + TCP_FLAGS));
        if (h < 0 || payload <= 0 || (flags & ~PSH) != ACK) {
            flushTrain();
            return out.write(seg, off, len);
        }
        if (count > 0 && continues(seg, off, h, payload, flags)) {
            MemorySegment.copy(seg, off + h, buf, length, payload);
            length += payload;
            count++;
            nextSeq += payload;
            if ((flags & PSH) != 0) {
                buf.set(ValueLayout.JAVA_BYTE, IPV6_HEADER + TCP_FLAGS, (byte) (ACK | PSH));
            }
            if (payload < gsoSize || (flags & PSH) != 0 || length + gsoSize > MAX_TOTAL) {
                flushTrain();
            }
            return len;
        }
        flushTrain();
        if ((flags & PSH) != 0 || len > MAX_TOTAL) {
            return out.write(seg, off, len);   // nothing could follow it
        }
        MemorySegment.copy(seg, off, buf, 0, len);
        length = len;
        count = 1;
        hdrLen = h;
        gsoSize = payload;
        nextSeq = seg.get(BE_INT, off + IPV6_HEADER + TCP_SEQ) + payload;
        return len;
    }

    private boolean continues(final MemorySegment seg, final long off, final int h, final int payload,
                              final int flags) {
        if (h != hdrLen || payload > gsoSize || length + payload > MAX_TOTAL
                || seg.get(BE_INT, off + IPV6_HEADER + TCP_SEQ) != nextSeq
                || (flags & CLEAN_FLAGS_MASK) != ACK) {
            return false;
        }
        // version/traffic class/flow label; hop limit; addresses
        if (seg.get(BE_INT, off) != buf.get(BE_INT, 0)
                || seg.get(ValueLayout.JAVA_BYTE, off + 7) != buf.get(ValueLayout.JAVA_BYTE, 7)
                || MemorySegment.mismatch(seg, off + 8, off + IPV6_HEADER, buf, 8, IPV6_HEADER) != -1) {
            return false;
        }
        final long t = off + IPV6_HEADER;
        // ports; ack; data offset; window; options (the flags were checked above; checksum and urgent pointer are
        // not compared: the checksum is recomputed, URG is never set here)
        return seg.get(BE_INT, t) == buf.get(BE_INT, IPV6_HEADER)
                && seg.get(BE_INT, t + TCP_ACK) == buf.get(BE_INT, IPV6_HEADER + TCP_ACK)
                && seg.get(ValueLayout.JAVA_BYTE, t + TCP_DOFF)
                        == buf.get(ValueLayout.JAVA_BYTE, IPV6_HEADER + TCP_DOFF)
                && seg.get(BE_SHORT, t + TcpOffload.TCP_WINDOW)
                        == buf.get(BE_SHORT, IPV6_HEADER + TcpOffload.TCP_WINDOW)
                && (h == IPV6_HEADER + TCP_MIN_HEADER || MemorySegment.mismatch(seg, t + TCP_MIN_HEADER, off + h,
                        buf, IPV6_HEADER + TCP_MIN_HEADER, h) == -1);
    }

    private void flushTrain() {
        final int n = count;
        if (n == 0) {
            return;
        }
        count = 0;
        if (n == 1) {
            if (out.write(buf, 0, length) != length) {
                lost++;
            }
            return;
        }
        buf.set(BE_SHORT, 4, (short) (length - IPV6_HEADER));
        // NEEDS_CSUM: the field holds the pseudo-header sum, the kernel (or the receiving stack) adds the rest
        buf.set(BE_SHORT, IPV6_HEADER + TCP_CHECKSUM,
                (short) InetChecksum.fold(TcpOffload.pseudoHeaderSum(buf, 0, length - IPV6_HEADER)));
        header.set(ValueLayout.JAVA_BYTE, TunIoctl.VNET_FLAGS_OFFSET, (byte) TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM);
        header.set(ValueLayout.JAVA_BYTE, TunIoctl.VNET_GSO_TYPE_OFFSET, (byte) TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6);
        header.set(HOST_SHORT, TunIoctl.VNET_HDR_LEN_OFFSET, (short) hdrLen);
        header.set(HOST_SHORT, TunIoctl.VNET_GSO_SIZE_OFFSET, (short) gsoSize);
        header.set(HOST_SHORT, TunIoctl.VNET_CSUM_START_OFFSET, (short) IPV6_HEADER);
        header.set(HOST_SHORT, TunIoctl.VNET_CSUM_OFFSET_OFFSET, (short) TCP_CHECKSUM);
        if (out.writeVnet(header, buf, 0, length) != length) {
            lost += n;
            return;
        }
        superSegments++;
        coalesced += n;
    }

    @Override
    public int flush() {
        flushTrain();
        final int l = lost;
        lost = 0;
        return l;
    }

    /** @return super-segments written (two or more segments each) */
    public long superSegments() {
        return superSegments;
    }

    /** @return segments that went out inside a super-segment */
    public long coalescedSegments() {
        return coalesced;
    }
}
