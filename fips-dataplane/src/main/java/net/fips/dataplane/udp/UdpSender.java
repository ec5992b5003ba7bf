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
 * two or more packets, all of one size except a shorter-or-equal last one, leaves as GSO trains (a {@code
 * UDP_SEGMENT} cmsg per train); every other packet is a message of its own. The rules follow the reference
 * (transports.md §2.4); GSO is disabled for good on EINVAL/EOPNOTSUPP/ENOPROTOOPT.
 *
 * <p>A whole batch, trains and single datagrams to every destination, goes out in one {@code sendmmsg} (a new
 * call only past {@value #MESSAGES_PER_CALL} messages): a transit's batch holds datagrams for both of its
 * neighbours (a stream one way, its acknowledgements the other), which would otherwise cost a call per
 * destination. A message the kernel refuses in that call is sent again alone, as it would have been without the
 * combined call (a train by sendmsg, falling back to single datagrams; a datagram through the sendmmsg loop that
 * waits for room), and the combined call resumes after it. Owned by one thread; all native memory is allocated at
 * construction.
 */
final class UdpSender {
    /** Segments per GSO call: the reference's cap, below every kernel's limit (64 old, 128 new). */
    static final int MAX_GSO_SEGMENTS = 64;
    /** A GSO train must fit one IPv4 UDP datagram. */
    static final int MAX_GSO_BYTES = 65507;
    /** Messages (trains or single datagrams) per combined sendmmsg at most. */
    static final int MESSAGES_PER_CALL = 64;

    private static final int SENT = 1;
    private static final int FALL_BACK = 0;
    private static final int FAILED = -1;
    private static final int GSO_CONTROL = (int) Cmsg.space(Short.BYTES);

    private final int fd;
    private final int mtu;
    private final UdpCounters counters;
    private final CallState cs;
    private final MmsgVector mm;
    private final MmsgVector gsoVec;
    private final MmsgSend mmsg;
    /** The combined call's messages; per message its first index in the batch's group list and its size. */
    private final MmsgVector all;
    private final int[] msgFrom;
    private final int[] msgCount;
    /** Segment size of a train, 0 for a single datagram. */
    private final int[] msgSegSize;
    private final UdpDestination[] msgDst;
    private int messages;
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
        this.gsoVec = new MmsgVector(arena, 1, MAX_GSO_SEGMENTS, GSO_CONTROL);
        this.mmsg = new MmsgSend(cs, mm, new SocketWait(arena, cs, -1), sendTimeoutMs);
        final int perCall = Math.min(batch, MESSAGES_PER_CALL);
        this.all = new MmsgVector(arena, perCall, MAX_GSO_SEGMENTS, GSO_CONTROL);
        this.msgFrom = new int[perCall];
        this.msgCount = new int[perCall];
        this.msgSegSize = new int[perCall];
        this.msgDst = new UdpDestination[perCall];
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
        // The groups are listed one after the other in b.group: [gs, gs + gn) is the current one.
        int gs = 0;
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
                        group[gs + gn++] = j;
                    }
                }
            }
            if (gn > 0) {
                sent += addGroup(b, gs, gn, dst);
                gs += gn;
            }
        }
        return sent + flush(b);
    }

    /**
     * Adds the messages of one destination's group {@code b.group[gs, gs + gn)}: GSO trains where it is shaped
     * for them, else one message per datagram; sends what is queued whenever the call is full.
     *
     * @return datagrams sent by those flushes
     */
    private int addGroup(final SendBatch b, final int gs, final int gn, final UdpDestination dst) {
        int sent = 0;
        if (!gsoActive || gn < 2 || !gsoShaped(b, gs, gn)) {
            for (int k = 0; k < gn; k++) {
                sent += addMessage(b, gs + k, 1, 0, dst);
            }
            return sent;
        }
        final int segSize = b.length[b.group[gs]];
        final int perTrain = Math.min(MAX_GSO_SEGMENTS, MAX_GSO_BYTES / segSize);
        int k = 0;
        while (k < gn) {
            final int c = Math.min(perTrain, gn - k);
            sent += addMessage(b, gs + k, c, c >= 2 ? segSize : 0, dst);
            k += c;
        }
        return sent;
    }

    /**
     * Queues one message of group entries {@code [from, from + c)}: a train of {@code segSize} segments, or one
     * datagram when {@code segSize} is 0 ({@code c} is then 1).
     *
     * @return datagrams sent by a flush the full call needed first
     */
    private int addMessage(final SendBatch b, final int from, final int c, final int segSize,
                           final UdpDestination dst) {
        final int sent = messages == msgFrom.length ? flush(b) : 0;
        final int i = messages++;
        final MmsgVector v = all;
        for (int t = 0; t < c; t++) {
            final int idx = b.group[from + t];
            v.iov(i, t, b.segment[idx], b.offset[idx], b.length[idx]);
        }
        v.iovCount(i, c);
        v.name(i, dst.sockaddr, dst.length);
        if (segSize > 0) {
            final MemorySegment control = v.controlBuffer(i);
            final long data = Cmsg.put(control, 0, Linux.SOL_UDP, Linux.UDP_SEGMENT, Short.BYTES);
            control.set(JAVA_SHORT_UNALIGNED, data, (short) segSize);
            v.controlLength(i, GSO_CONTROL);
        } else {
            v.controlLength(i, 0);
        }
        msgFrom[i] = from;
        msgCount[i] = c;
        msgSegSize[i] = segSize;
        msgDst[i] = dst;
        return sent;
    }

    /**
     * Sends the queued messages in one sendmmsg, resuming after what the kernel took; the first message it refuses
     * goes again alone ({@link #sendAlone}).
     *
     * @return datagrams sent
     */
    private int flush(final SendBatch b) {
        final int m = messages;
        int sent = 0;
        int done = 0;
        while (done < m) {
            final int rc = Syscalls.sendmmsg(cs, fd, all.from(done), m - done, 0);
            counters.sendCalls++;
            if (rc > 0) {
                for (int t = done; t < done + rc; t++) {
                    sent += onSent(t);
                }
                done += rc;
            } else if (rc != Errno.EINTR_NEGATIVE) {
                sent += sendAlone(b, done);
                done++;
            }
        }
        for (int t = 0; t < m; t++) {
            msgDst[t] = null;
        }
        messages = 0;
        return sent;
    }

    /** Counts message {@code t} of the combined call as sent; @return its datagrams */
    private int onSent(final int t) {
        final int c = msgCount[t];
        if (msgSegSize[t] > 0) {
            counters.gsoSends++;
            counters.gsoPackets += c;
        }
        counters.packetsOut += c;
        counters.bytesOut += all.messageLength(t);
        return c;
    }

    /**
     * Message {@code t} met an error in the combined call: sent on its own, where the answer decides (a train
     * falls back to single datagrams or disables GSO; a datagram waits for room, retries or is counted).
     *
     * @return datagrams sent
     */
    private int sendAlone(final SendBatch b, final int t) {
        final int from = msgFrom[t];
        final int c = msgCount[t];
        final UdpDestination dst = msgDst[t];
        if (msgSegSize[t] > 0 && gsoActive) {
            final int outcome = sendGso(b, from, c, dst, msgSegSize[t]);
            if (outcome == SENT) {
                return c;
            } else if (outcome == FAILED) {
                return 0;
            }
        }
        return sendMmsg(b, from, c, dst);
    }

    /** All packets of group entries {@code [gs, gs + gn)} the size of the first, except the last (not longer). */
    private static boolean gsoShaped(final SendBatch b, final int gs, final int gn) {
        final int[] group = b.group;
        final int size = b.length[group[gs]];
        if (size == 0) {
            return false;
        }
        for (int t = 1; t < gn - 1; t++) {
            if (b.length[group[gs + t]] != size) {
                return false;
            }
        }
        final int last = b.length[group[gs + gn - 1]];
        return last <= size && last > 0;
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
        counters.sendCalls++;
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
            counters.sendCalls += ms.calls();
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
