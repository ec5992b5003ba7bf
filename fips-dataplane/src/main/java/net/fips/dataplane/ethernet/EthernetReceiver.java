package net.fips.dataplane.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import net.fips.dataplane.transport.SocketWait;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.Syscalls;

/**
 * The receive half of an {@link EthernetTransport}: one {@code recvmmsg} per batch straight into the caller's slots
 * (each frame at {@code offset − 3}, so the FMP packet lands at {@code offset}), then per frame: another host's or
 * our own outgoing frame (a promiscuous interface) dropped, a data frame trimmed to its length field, a beacon
 * counted and, with discovery on, its (MAC, key) kept for {@link #drainBeacons()} (one entry per MAC, newest wins,
 * at most {@value EthernetTransport#MAX_DISCOVERED} MACs between drains); everything malformed is a counted drop.
 * Owned by the receiving thread (the discovery buffer excepted, which any thread drains); nothing allocates per data
 * frame.
 */
final class EthernetReceiver {
    private final EthernetCounters counters;
    private final boolean discovery;
    private final CallState cs;
    private final MmsgVector vec;
    private final SocketWait wait;
    private final Map<Long, DiscoveredBeacon> discovered = new LinkedHashMap<>();
    private final EthernetFrame beaconView = new EthernetFrame();
    private boolean interfaceTrouble;

    EthernetReceiver(final Arena arena, final int batch, final int wakeFd, final boolean discovery,
                     final EthernetCounters counters) {
        this.counters = counters;
        this.discovery = discovery;
        this.cs = CallState.allocate(arena);
        this.vec = new MmsgVector(arena, batch, 1, 0);
        this.wait = new SocketWait(arena, cs, wakeFd);
    }

    /**
     * Receives up to {@code b.offered()} frames from {@code sock} into {@code b}.
     *
     * @return packets delivered (also {@link FrameReceiveBatch#count()})
     */
    int receive(final FrameReceiveBatch b, final int sock, final int timeoutMs) {
        final MmsgVector vec = this.vec;
        final int n = Math.min(b.offered, vec.capacity());
        for (int i = 0; i < n; i++) {
            vec.prepareReceive(i);
            vec.iov(i, 0, b.segment[i], b.offset[i] - EthernetFrame.DATA_HEADER_SIZE,
                    b.slotCapacity[i] + EthernetFrame.DATA_HEADER_SIZE);
        }
        final int rc = recv(sock, n, timeoutMs);
        for (int i = 0; i < rc; i++) {
            onFrame(b, i);
        }
        return b.count;
    }

    /** Sleeps on the wake-up descriptor alone (no socket open) for up to {@code timeoutMs}. */
    void idle(final int timeoutMs) {
        wait.readable(-1, timeoutMs);
    }

    /**
     * @return whether a receive since the last call failed with ENETDOWN/ENODEV/ENXIO (the interface went down or
     *         away); cleared by the call
     */
    boolean takeInterfaceTrouble() {
        final boolean t = interfaceTrouble;
        interfaceTrouble = false;
        return t;
    }

    private void onFrame(final FrameReceiveBatch b, final int i) {
        final MmsgVector vec = this.vec;
        final MemorySegment name = vec.nameBuffer(i);
        final int type = PacketSockets.packetType(name);
        if (type == PacketSockets.PACKET_OTHERHOST || type == PacketSockets.PACKET_OUTGOING) {
            counters.framesOtherHost++;
            return;
        }
        if ((vec.flags(i) & Linux.MSG_TRUNC) != 0) {
            counters.framesTooLong++;
            return;
        }
        final int len = vec.messageLength(i);
        final MemorySegment seg = b.segment[i];
        final long frame = b.offset[i] - EthernetFrame.DATA_HEADER_SIZE;
        if (len < 1) {
            counters.framesTooShort++;
            return;
        }
        final int kind = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, frame));
        if (kind == EthernetFrame.TYPE_DATA) {
            if (len < EthernetFrame.DATA_HEADER_SIZE) {
                counters.framesTooShort++;
                return;
            }
            final int payload = Short.toUnsignedInt(seg.get(EthernetFrame.U16, frame + EthernetFrame.LENGTH_OFFSET));
            if (payload > len - EthernetFrame.DATA_HEADER_SIZE) {
                counters.framesTooShort++;
                return;
            }
            b.record(i, payload, PacketSockets.sourceMac(name));
            counters.framesRecv++;
            counters.bytesRecv += payload;
        } else if (kind == EthernetFrame.TYPE_BEACON) {
            counters.beaconsRecv++;
            onBeacon(seg, frame, len, PacketSockets.sourceMac(name));
        } else {
            counters.framesUnknownType++;
        }
    }

    /** Rare (one per peer per beacon interval): allocates the key copy and the buffer entry. */
    private void onBeacon(final MemorySegment seg, final long frame, final int len, final long mac) {
        if (!beaconView.wrap(seg, frame, len).isOk()) {
            counters.beaconsMalformed++;
            return;
        }
        if (!discovery || MacAddress.isGroup(mac)) {
            return;
        }
        final DiscoveredBeacon d = new DiscoveredBeacon(mac, beaconView.beaconKey(), System.nanoTime());
        synchronized (discovered) {
            if (discovered.size() >= EthernetTransport.MAX_DISCOVERED && !discovered.containsKey(mac)) {
                counters.discoveryOverflow++;
                return;
            }
            discovered.remove(mac);
            discovered.put(mac, d);
        }
    }

    /** recvmmsg; on an empty socket waits up to {@code timeoutMs} in poll and tries once more. */
    private int recv(final int sock, final int n, final int timeoutMs) {
        int rc = Syscalls.recvmmsg(cs, sock, vec.segment(), n, 0);
        if (rc == Errno.EAGAIN_NEGATIVE) {
            if (timeoutMs == 0 || !wait.readable(sock, timeoutMs)) {
                return 0;
            }
            rc = Syscalls.recvmmsg(cs, sock, vec.segment(), n, 0);
            if (rc == Errno.EAGAIN_NEGATIVE) {
                return 0;
            }
        }
        if (rc < 0) {
            if (rc != Errno.EINTR_NEGATIVE) {
                counters.recvErrors++;
                if (rc == -PacketSockets.ENETDOWN || rc == -PacketSockets.ENODEV || rc == -PacketSockets.ENXIO) {
                    interfaceTrouble = true;
                }
            }
            return 0;
        }
        return rc;
    }

    /** @return the beacons heard since the last call: one per MAC, the newest; oldest MAC first (any thread) */
    List<DiscoveredBeacon> drainBeacons() {
        synchronized (discovered) {
            if (discovered.isEmpty()) {
                return List.of();
            }
            final List<DiscoveredBeacon> out = new ArrayList<>(discovered.values());
            discovered.clear();
            return out;
        }
    }
}
