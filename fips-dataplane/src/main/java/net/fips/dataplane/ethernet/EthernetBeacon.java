package net.fips.dataplane.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.Syscalls;

/**
 * The beacon side of an {@link EthernetTransport} (transports.md §4.3): the 34-byte beacon frame addressed to
 * {@code ff:ff:ff:ff:ff:ff}, sent from any thread, and the streak of ENXIO/ENODEV failures that asks for a reopen
 * (§4.4). Callers serialise on this object's monitor ({@code synchronized (beacon)}); it guards the frame, the
 * message and the streak.
 */
final class EthernetBeacon {
    private final EthernetCounters counters;
    private final CallState cs;
    private final MmsgVector vec;
    private final MemorySegment frame;
    private int consecutiveEnxio;
    private volatile boolean canAnnounce;
    private boolean closed;

    EthernetBeacon(final Arena arena, final byte[] key, final EthernetCounters counters) {
        this.counters = counters;
        this.cs = CallState.allocate(arena);
        this.vec = new MmsgVector(arena, 1, 1, 0);
        this.frame = arena.allocate(EthernetFrame.BEACON_SIZE, 8);
        if (key != null) {
            EthernetFrame.writeBeacon(frame, 0, key);
            canAnnounce = true;
        }
        vec.iov(0, 0, frame, 0, EthernetFrame.BEACON_SIZE);
    }

    /** Addresses the beacon to broadcast on interface {@code ifindex} (under the transport's fd write lock). */
    void encodeDestination(final int etherType, final int ifindex) {
        PacketSockets.encode(vec.nameBuffer(0), etherType, ifindex, MacAddress.BROADCAST);
        vec.name(0, vec.nameBuffer(0), PacketSockets.SOCKADDR_LL_SIZE);
    }

    /** @return whether a key was set, so beacons can be sent */
    boolean canAnnounce() {
        return canAnnounce;
    }

    /** Sets (or replaces) the announced x-only key; ignored once closed. */
    synchronized void announceAs(final byte[] xOnlyKey) {
        if (closed) {
            return;
        }
        EthernetFrame.writeBeacon(frame, 0, xOnlyKey);
        canAnnounce = true;
    }

    /** Sends the beacon on {@code sock}; hold this object's monitor and the fd read lock. @return sendmsg's rc */
    int sendmsg(final int sock) {
        return Syscalls.sendmsg(cs, sock, vec.msghdr(0), 0);
    }

    /**
     * Counts a send's outcome (hold this object's monitor).
     *
     * @param rc what {@link #sendmsg} returned
     * @return whether this was the {@value EthernetTransport#ENXIO_REOPEN_AFTER}rd (or later) consecutive ENXIO/ENODEV
     *         failure, so the socket should be reopened
     */
    boolean counted(final int rc) {
        if (rc >= 0) {
            counters.beaconsSent++;
            consecutiveEnxio = 0;
            return false;
        }
        counters.beaconSendErrors++;
        if (-rc == PacketSockets.ENXIO || -rc == PacketSockets.ENODEV) {
            return ++consecutiveEnxio >= EthernetTransport.ENXIO_REOPEN_AFTER;
        }
        consecutiveEnxio = 0;
        return false;
    }

    /** Forgets the failure streak after a reopen. */
    synchronized void reopened() {
        consecutiveEnxio = 0;
    }

    /** Frees the native memory under the monitor, so no beacon is being written or sent meanwhile. */
    synchronized void close(final Arena arena) {
        closed = true;
        arena.close();
    }
}
