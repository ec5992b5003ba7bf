package net.fips.dataplane.tcp;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;

/** The per-link handle of a {@link TcpTransport}: the pool key and its id; {@code cached} is the loop's last lookup. */
final class TcpDestination implements TransportDestination {
    final TransportAddr address;
    final int addressId;
    /** Loop thread only. */
    TcpConnection cached;

    TcpDestination(final TransportAddr address, final int addressId) {
        this.address = address;
        this.addressId = addressId;
    }

    @Override
    public TransportAddr transportAddr() {
        return address;
    }

    @Override
    public boolean sameEndpoint(final MemorySegment source, final long offset, final int length) {
        return TcpAddressIds.matches(source, offset, length, addressId);
    }

    @Override
    public String toString() {
        return address.toString();
    }
}
