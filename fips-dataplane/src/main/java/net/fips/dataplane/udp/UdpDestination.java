package net.fips.dataplane.udp;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.ffm.linux.SockAddrs;

/**
 * A destination encoded once, for the family of one transport's socket, and then reused for every packet to that
 * peer. Obtain with {@link UdpTransport#destination}.
 */
public final class UdpDestination implements TransportDestination {
    final MemorySegment sockaddr;
    final int length;
    private final InetSocketAddress address;
    private final TransportAddr transportAddr;

    UdpDestination(final MemorySegment sockaddr, final int length, final InetSocketAddress address) {
        this.sockaddr = sockaddr;
        this.length = length;
        this.address = address;
        this.transportAddr = TransportAddr.ofInet(address);
    }

    @Override
    public TransportAddr transportAddr() {
        return transportAddr;
    }

    @Override
    public boolean sameEndpoint(final MemorySegment source, final long offset, final int length) {
        return SockAddrs.sameEndpoint(sockaddr, this.length, offset == 0 ? source : source.asSlice(offset), length);
    }

    /** @return the address this destination was made from */
    public InetSocketAddress address() {
        return address;
    }

    /**
     * Compares with a raw {@code sockaddr} such as a received datagram's source, without allocating.
     *
     * @param other  an encoded socket address
     * @param length its length
     * @return whether both name the same endpoint (family, address, port, scope)
     */
    public boolean sameEndpoint(final MemorySegment other, final int length) {
        return SockAddrs.sameEndpoint(sockaddr, this.length, other, length);
    }

    /** @return whether both name the same endpoint (family, address, port, scope) */
    boolean sameEndpoint(final UdpDestination other) {
        return this == other || SockAddrs.sameEndpoint(sockaddr, length, other.sockaddr, other.length);
    }

    @Override
    public String toString() {
        return UdpAddresses.format(address);
    }
}
