package net.fips.dataplane.udp;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.transport.SocketWait;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Cmsg;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.Syscalls;

/**
 * The receive half of a {@link UdpTransport}: recvmmsg straight into the caller's slots, or, with UDP_GRO, into
 * 64 KiB staging buffers whose trains are split into slots by the segment size the kernel reports. Owned by one
 * thread; all native memory is allocated at construction.
 */
final class UdpReceiver {
    /** The largest datagram (or GRO train) the kernel can hand over. */
    static final int STAGING_BYTES = 65536;
    private static final int MAX_GRO_STAGING = 16;
    /** The first four bytes of a NAT-traversal probe ("NPTC") and ack ("NPTA"), big-endian (§2.5). */
    static final int PUNCH_PROBE_MAGIC = 0x4E505443;
    static final int PUNCH_ACK_MAGIC = 0x4E505441;
    private static final ValueLayout.OfInt BE_INT =
            JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long CONTROL_BYTES = Cmsg.space(Integer.BYTES) + Cmsg.space(Integer.BYTES);

    private final int fd;
    private final UdpCounters counters;
    private final CallState cs;
    private final MmsgVector vec;
    private final SocketWait wait;
    private final boolean gro;
    private final MemorySegment staging;
    private final int[] stagedLength;
    private final int[] stagedSegment;
    private int pendingEntry;
    private int pendingCount;
    private int pendingOffset;

    UdpReceiver(final Arena arena, final int fd, final int wakeFd, final int batch, final boolean gro,
                final UdpCounters counters) {
        this.fd = fd;
        this.counters = counters;
        this.gro = gro;
        this.cs = CallState.allocate(arena);
        final int entries = gro ? Math.min(batch, MAX_GRO_STAGING) : batch;
        this.vec = new MmsgVector(arena, entries, 1, (int) CONTROL_BYTES);
        this.wait = new SocketWait(arena, cs, wakeFd);
        if (gro) {
            this.staging = arena.allocate((long) STAGING_BYTES * entries, 64);
            this.stagedLength = new int[entries];
            this.stagedSegment = new int[entries];
            for (int i = 0; i < entries; i++) {
                vec.iov(i, 0, staging, (long) i * STAGING_BYTES, STAGING_BYTES);
            }
        } else {
            this.staging = null;
            this.stagedLength = null;
            this.stagedSegment = null;
        }
    }

    int receive(final ReceiveBatch b, final int timeoutMs) {
        b.count = 0;
        if (b.offered == 0) {
            return 0;
        }
        return gro ? receiveGro(b, timeoutMs) : receiveDirect(b, timeoutMs);
    }

    private int receiveDirect(final ReceiveBatch b, final int timeoutMs) {
        final MmsgVector vec = this.vec;
        final int n = Math.min(b.offered, vec.capacity());
        for (int i = 0; i < n; i++) {
            vec.prepareReceive(i);
            vec.iov(i, 0, b.segment[i], b.offset[i], b.slotCapacity[i]);
        }
        final int rc = recv(n, timeoutMs);
        for (int i = 0; i < rc; i++) {
            trackDrops(i);
            if ((vec.flags(i) & Linux.MSG_TRUNC) != 0) {
                counters.recvTruncated++;
                continue;
            }
            final int len = vec.messageLength(i);
            counters.packetsIn++;
            counters.bytesIn += len;
            if (isPunch(b.segment[i], b.offset[i], len)) {
                continue;
            }
            b.record(i, len, vec.nameBuffer(i), vec.nameLength(i));
        }
        return b.count;
    }

    private int receiveGro(final ReceiveBatch b, final int timeoutMs) {
        int slot = drainStaged(b, 0);
        if (slot < b.offered && pendingEntry >= pendingCount) {
            final MmsgVector vec = this.vec;
            final int n = vec.capacity();
            for (int i = 0; i < n; i++) {
                vec.prepareReceive(i);
            }
            // Block only when there is nothing to hand back yet.
            final int rc = recv(n, slot == 0 ? timeoutMs : 0);
            for (int i = 0; i < rc; i++) {
                trackDrops(i);
                final int len = vec.messageLength(i);
                if ((vec.flags(i) & Linux.MSG_TRUNC) != 0) {
                    counters.recvTruncated++;
                    stagedLength[i] = 0;
                    continue;
                }
                final MemorySegment control = vec.controlBuffer(i);
                final long h = Cmsg.find(control, vec.controlLengthReceived(i), Linux.SOL_UDP, Linux.UDP_GRO);
                final int seg = h == Cmsg.NONE ? len : control.get(JAVA_INT_UNALIGNED, Cmsg.data(h));
                stagedLength[i] = len;
                stagedSegment[i] = seg > 0 ? seg : len;
                if (seg > 0 && seg < len) {
                    counters.groTrains++;
                }
            }
            pendingEntry = 0;
            pendingOffset = 0;
            pendingCount = Math.max(rc, 0);
            slot = drainStaged(b, slot);
        }
        return b.count;
    }

    /** Copies staged segments into offered slots from {@code slot} on; keeps the rest for the next call. */
    private int drainStaged(final ReceiveBatch b, final int firstSlot) {
        int slot = firstSlot;
        while (pendingEntry < pendingCount && slot < b.offered) {
            final int e = pendingEntry;
            final int remaining = stagedLength[e] - pendingOffset;
            if (remaining <= 0) {
                pendingEntry++;
                pendingOffset = 0;
                continue;
            }
            final int piece = Math.min(stagedSegment[e], remaining);
            if (piece <= b.slotCapacity[slot]) {
                counters.packetsIn++;
                counters.bytesIn += piece;
                if (!isPunch(staging, (long) e * STAGING_BYTES + pendingOffset, piece)) {
                    MemorySegment.copy(staging, (long) e * STAGING_BYTES + pendingOffset, b.segment[slot],
                            b.offset[slot], piece);
                    b.record(slot, piece, vec.nameBuffer(e), vec.nameLength(e));
                    slot++;
                }
            } else {
                counters.recvTruncated++;
            }
            pendingOffset += piece;
        }
        return slot;
    }

    /**
     * A late punch probe or ack on a socket adopted from NAT traversal would otherwise reach the FMP parser as
     * version 4 garbage (first byte 0x4E): every UDP socket drops datagrams of 4 bytes or more that start with either
     * magic, counted (discovery-gateway.md §2.6, the reference's behaviour). One 4-byte load per datagram.
     */
    private boolean isPunch(final MemorySegment seg, final long off, final int len) {
        if (len < 4) {
            return false;
        }
        final int magic = seg.get(BE_INT, off);
        if (magic == PUNCH_PROBE_MAGIC || magic == PUNCH_ACK_MAGIC) {
            counters.punchDropped++;
            return true;
        }
        return false;
    }

    /** recvmmsg; on an empty socket waits up to {@code timeoutMs} in poll and tries once more. */
    private int recv(final int n, final int timeoutMs) {
        int rc = Syscalls.recvmmsg(cs, fd, vec.segment(), n, 0);
        if (rc == Errno.EAGAIN_NEGATIVE) {
            counters.recvEagain++;
            if (timeoutMs == 0 || !wait.readable(fd, timeoutMs)) {
                return 0;
            }
            rc = Syscalls.recvmmsg(cs, fd, vec.segment(), n, 0);
            if (rc == Errno.EAGAIN_NEGATIVE) {
                counters.recvEagain++;
                return 0;
            }
        }
        if (rc < 0) {
            if (rc != Errno.EINTR_NEGATIVE) {
                counters.recvErrors++;
            }
            return 0;
        }
        return rc;
    }

    private void trackDrops(final int i) {
        final long controlLen = vec.controlLengthReceived(i);
        if (controlLen < Cmsg.HDR_SIZE) {
            return;
        }
        final MemorySegment control = vec.controlBuffer(i);
        final long h = Cmsg.find(control, controlLen, Linux.SOL_SOCKET, Linux.SO_RXQ_OVFL);
        if (h != Cmsg.NONE) {
            // The value is the drop total when this datagram was queued; it can lag, so keep the maximum.
            final long drops = control.get(JAVA_INT_UNALIGNED, Cmsg.data(h)) & 0xFFFF_FFFFL;
            if (drops > counters.kernelDrops) {
                counters.kernelDrops = drops;
            }
        }
    }
}
