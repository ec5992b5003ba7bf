package net.fips.dataplane.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.MmsgSend;
import net.fips.dataplane.transport.SocketWait;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PacketSockets;

/**
 * The send half of an {@link EthernetTransport}: one {@code sendmmsg} per batch (the shared {@link MmsgSend} loop),
 * each frame the 3-byte data header written into the slot's headroom followed by the packet, so nothing is copied;
 * packets above the MTU are refused and counted. Owned by the sending thread; nothing allocates.
 */
final class EthernetSender {
    private final EthernetCounters counters;
    private final int etherType;
    private final MmsgVector vec;
    private final MmsgSend mmsg;

    EthernetSender(final Arena arena, final int batch, final int etherType, final int sendTimeoutMs,
                   final EthernetCounters counters) {
        this.counters = counters;
        this.etherType = etherType;
        final CallState cs = CallState.allocate(arena);
        this.vec = new MmsgVector(arena, batch, 1, 0);
        this.mmsg = new MmsgSend(cs, vec, new SocketWait(arena, cs, -1), sendTimeoutMs);
    }

    /** Points every message at interface {@code ifindex} (at open and after a reopen, under the write lock). */
    void encodeDestinations(final int ifindex) {
        for (int i = 0; i < vec.capacity(); i++) {
            PacketSockets.encode(vec.nameBuffer(i), etherType, ifindex, 0);
            vec.name(i, vec.nameBuffer(i), PacketSockets.SOCKADDR_LL_SIZE);
        }
    }

    /**
     * Sends {@code b} on {@code sock}, refusing (and counting) packets above {@code mtu}.
     *
     * @return frames the kernel accepted
     */
    int send(final FrameSendBatch b, final int sock, final int mtu) {
        final MmsgVector vec = this.vec;
        int sent = 0;
        int next = 0;
        while (next < b.count) {
            int m = 0;
            while (next < b.count && m < vec.capacity()) {
                final int len = b.length[next];
                if (len > mtu) {
                    counters.mtuExceeded++;
                    next++;
                    continue;
                }
                final MemorySegment seg = b.segment[next];
                final long frame = b.offset[next] - EthernetFrame.DATA_HEADER_SIZE;
                EthernetFrame.writeDataHeader(seg, frame, len);
                vec.iov(m, 0, seg, frame, len + EthernetFrame.DATA_HEADER_SIZE);
                PacketSockets.destination(vec.nameBuffer(m), b.destination[next]);
                m++;
                next++;
            }
            final int done = mmsg.send(sock, m);
            sent += done;
            counters.framesSent += done;
            counters.bytesSent += mmsg.bytes() - (long) done * EthernetFrame.DATA_HEADER_SIZE;
            counters.sendDrops += mmsg.drops();
            counters.sendErrors += mmsg.errors();
        }
        return sent;
    }
}
