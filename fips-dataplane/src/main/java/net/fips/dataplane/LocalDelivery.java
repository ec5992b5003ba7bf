package net.fips.dataplane;

import java.lang.foreign.MemorySegment;

/**
 * Receives SessionDatagrams addressed to this node, on the data-plane thread that opened them (until the session
 * layer exists this is the whole of local delivery). The bytes are valid only during the call; an implementation
 * copies what it keeps and must not block.
 */
@FunctionalInterface
public interface LocalDelivery {
    /**
     * @param linkId  the link the datagram arrived on
     * @param segment memory holding the datagram
     * @param offset  where the SessionDatagram's msg_type byte (0x00) is
     * @param length  the datagram's length including that byte
     */
    void deliver(long linkId, MemorySegment segment, long offset, int length);
}
