package net.fips.dataplane.ethernet;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.ffm.linux.PacketSockets;

/**
 * The send handle of one Ethernet peer: its MAC as a {@code long}; the source bytes a receive writes for a frame
 * are the sender's 6 MAC bytes, so {@link #sameEndpoint} is one 6-byte comparison.
 *
 * @param transportAddr the 6-byte address
 * @param mac           the same, low 48 bits
 */
public record EthernetDestination(TransportAddr transportAddr, long mac) implements TransportDestination {
    @Override
    public boolean sameEndpoint(final MemorySegment source, final long offset, final int length) {
        return length == MacAddress.SIZE && offset >= 0 && offset + MacAddress.SIZE <= source.byteSize()
                && PacketSockets.readMac(source, offset) == mac;
    }
}
