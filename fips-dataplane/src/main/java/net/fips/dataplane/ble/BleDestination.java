package net.fips.dataplane.ble;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;

/**
 * The per-link handle of a {@link BleTransport}: the address, its text (the pool key) and its source bytes, which
 * {@link #sameEndpoint} compares without allocating.
 *
 * @param addr   the address
 * @param text   its text
 * @param source the source bytes the family encodes it to
 */
record BleDestination(TransportAddr addr, String text, byte[] source) implements TransportDestination {
    @Override
    public TransportAddr transportAddr() {
        return addr;
    }

    @Override
    public boolean sameEndpoint(final MemorySegment src, final long offset, final int length) {
        return length == source.length && MemorySegment.mismatch(src, offset, offset + length,
                MemorySegment.ofArray(source), 0, length) < 0;
    }
}
