package net.fips.dataplane.ble;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.TransportPort;

/** One socket of a {@link BleTransport}'s loop: connecting, in its key exchange, or pooled. Loop thread only. */
final class BleSocket {
    /** Where a socket is in its life. */
    enum Phase { CONNECTING, EXCHANGE, POOLED }

    final String address;
    final int fd;
    final boolean outbound;
    Phase phase;
    long deadline;
    int mtu;
    long order;
    byte[] peerKey;
    final MemorySegment source;
    int sourceLength;

    BleSocket(final String address, final int fd, final boolean outbound, final Arena arena) {
        this.address = address;
        this.fd = fd;
        this.outbound = outbound;
        this.source = arena.allocate(TransportPort.SOURCE_MAX_BYTES);
    }
}
