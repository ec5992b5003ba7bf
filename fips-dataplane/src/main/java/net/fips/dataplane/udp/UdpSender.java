package net.fips.dataplane.udp;

import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.MmsgSend;
import net.fips.dataplane.transport.SocketWait;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Cmsg;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.Syscalls;

/**
 * The send half of a {@link UdpTransport}. Groups a batch by destination (order kept within a group); a group of
 * two or more packets, all of one size except a shorter-or-equal last one, leaves as GSO trains (one sendmsg with
 * a {@code UDP_SEGMENT} cmsg per train); everything else, and every GSO refusal, goes through sendmmsg. The rules
 * follow the reference (transports.md §2.4); GSO is disabled for good on EINVAL/EOPNOTSUPP/ENOPROTOOPT.
 * Owned by one thread; all native memory is allocated at construction.
 */
final class UdpSender {
    /** Segments per GSO call: the reference's cap, below every kernel's limit (64 old, 128 new). */
    static final int MAX_GSO_SEGMENTS = 64;
    /** A GSO train must fit one IPv4 UDP datagram. */
    static final int MAX_GSO_BYTES = 65507;

    private static final int SENT = 1;
    private static final int FALL_BACK = 0;
    private static final int FAILED = -1;

    private final int fd;
    private final int mtu;
    private final UdpCounters counters;
    private final CallState cs;
    private final MmsgVector mm;
    private final MmsgVector gsoVec;
    private final MmsgSend mmsg;
    private boolean gsoActive;
    private int gsoDisabledErrno;

    UdpSender(final Arena arena, final int fd, final int batch, final int mtu, final int sendTimeoutMs,
              final boolean gso, final UdpCounters counters) {
        this.fd = fd;
        this.mtu = mtu;
        this.counters = counters;
        this.gsoActive = gso;
        this.cs = CallState.allocate(arena);
        this.mm = new MmsgVector(arena, batch, 1, 0);
        this.gsoVec = new MmsgVector(arena, 1, MAX_GSO_SEGMENTS, (int) Cmsg.space(Short.BYTES));
        this.mmsg = new MmsgSend(cs, mm, new SocketWait(arena, cs, -1), sendTimeoutMs);
    }

    boolean gsoActive() {
        return gsoActive;
    }

    int gsoDisabledErrno() {
        return gsoDisabledErrno;
    }

    int send(final SendBatch b) {
        final int n = b.count;
        final boolean[] grouped = b.grouped;
        final int[] group = b.group;
        for (int i = 0; i < n; i++) {
            grouped[i] = false;
        }
        int sent = 0;
        for (int i = 0; i < n; i++) {
            if (grouped[i]) {
                continue;
            }
            final UdpDestination dst = b.destination[i];
            int gn = 0;
            for (int j = i; j < n; j++) {
                if (!grouped[j] && dst.sameEndpoint(b.destination[j])) {
                    grouped[j] = true;
                    if (b.length[j] > mtu) {
                        counters.mtuExceeded++;
                    } else {
                        group[gn++] = j;
                    }
                }
            }
            if (gn > 0) {
                sent += sendGroup(b, gn, dst);
            }
        }
        return sent;
    }

    private int sendGroup(final SendBatch b, final int gn, final UdpDestination dst) {
        if (!gsoActive || gn < 2 || !gsoShaped(b, gn)) {
            return sendMmsg(b, 0, gn, dst);
        }
        final int segSize = b.length[b.group[0]];
        final int perTrain = Math.min(MAX_GSO_SEGMENTS, MAX_GSO_BYTES / segSize);
        int sent = 0;
        int k = 0;
        while (k < gn) {
            final int c = Math.min(perTrain, gn - k);
            final int outcome = c >= 2 && gsoActive ? sendGso(b, k, c, dst, segSize) : FALL_BACK;
            if (outcome == SENT) {
                sent += c;
            } else if (outcome == FALL_BACK) {
                sent += sendMmsg(b, k, c, dst);
            }
            k += c;
        }
        return sent;
    }

    /** All packets the size of the first, except the last, which may be shorter. */
    private static boolean gsoShaped(final SendBatch b, final int gn) {
        final int[] group = b.group;
        final int size = b.length[group[0]];
        if (size == 0) {
            return false;
        }
        for (int t = 1; t < gn - 1; t++) {
            if (b.length[group[t]] != size) {
                return false;
            }
        }
        return b.length[group[gn - 1]] <= size && b.length[group[gn - 1]] > 0;
    }

    private int sendGso(final SendBatch b, final int from, final int c, final UdpDestination dst, final int segSize) {
        final MmsgVector v = gsoVec;
        for (int t = 0; t < c; t++) {
            final int idx = b.group[from + t];
            v.iov(0, t, b.segment[idx], b.offset[idx], b.length[idx]);
        }
        v.iovCount(0, c);
        v.name(0, dst.sockaddr, dst.length);
        final MemorySegment control = v.controlBuffer(0);
        final long data = Cmsg.put(control, 0, Linux.SOL_UDP, Linux.UDP_SEGMENT, Short.BYTES);
        control.set(JAVA_SHORT_UNALIGNED, data, (short) segSize);
        v.controlLength(0, (int) Cmsg.space(Short.BYTES));
        final int rc = Syscalls.sendmsg(cs, fd, v.msghdr(0), 0);
        if (rc >= 0) {
            counters.gsoSends++;
            counters.gsoPackets += c;
            counters.packetsOut += c;
            counters.bytesOut += rc;
            return SENT;
        }
        final int errno = -rc;
        if (errno == Errno.EINVAL || errno == Errno.EOPNOTSUPP || errno == Errno.ENOPROTOOPT) {
            // The kernel (or this socket) cannot do GSO: stop trying for the life of the transport.
            gsoActive = false;
            gsoDisabledErrno = errno;
            counters.gsoFallbacks++;
            return FALL_BACK;
        }
        if (errno == Errno.EMSGSIZE || errno == Errno.EIO) {
            counters.gsoFallbacks++;
            return FALL_BACK;
        }
        if (errno == Errno.EAGAIN || errno == Errno.EWOULDBLOCK) {
            counters.sendEagain++;
            return FALL_BACK;
        }
        if (errno == Errno.ENOBUFS || errno == Errno.ENOMEM) {
            counters.sendEnobufs++;
            return FALL_BACK;
        }
        counters.sendErrors += c;
        return FAILED;
    }

    /** sendmmsg of group entries {@code from..from+c-1} through the shared {@link MmsgSend} loop. */
    private int sendMmsg(final SendBatch b, final int from, final int c, final UdpDestination dst) {
        final MmsgVector mm = this.mm;
        int sent = 0;
        int k = from;
        final int end = from + c;
        while (k < end) {
            final int m = Math.min(mm.capacity(), end - k);
            for (int t = 0; t < m; t++) {
                final int idx = b.group[k + t];
                mm.iov(t, 0, b.segment[idx], b.offset[idx], b.length[idx]);
                mm.name(t, dst.sockaddr, dst.length);
            }
            final MmsgSend ms = mmsg;
            final int done = ms.send(fd, m);
            sent += done;
            counters.packetsOut += done;
            counters.bytesOut += ms.bytes();
            counters.sendEagain += ms.eagain();
            counters.sendEnobufs += ms.enobufs();
            counters.sendDrops += ms.drops();
            counters.sendErrors += ms.errors();
            k += m;
        }
        return sent;
    }
}
