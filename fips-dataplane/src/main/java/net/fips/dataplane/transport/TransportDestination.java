package net.fips.dataplane.transport;

import java.lang.foreign.MemorySegment;

/**
 * A transport's per-link send handle, made once by {@link Transport#destination(TransportAddr)} (control path, may
 * allocate) and then used for every packet to that peer without allocating: the UDP transport's is the encoded
 * {@code sockaddr}; a connection transport's names the pooled connection (or the address to dial).
 *
 * <p>A worker compares each authenticated frame's source bytes (what the transport's receive loop wrote into the
 * slot's source area, see {@link TransportPort#deliver}) with the link's destination to notice roaming, so
 * {@link #sameEndpoint} must be cheap and allocation-free.
 */
public interface TransportDestination {
    /** @return the address this destination was made from */
    TransportAddr transportAddr();

    /**
     * @param source source bytes in the transport's own encoding (a slot's source area)
     * @param offset where they start
     * @param length how many there are
     * @return whether they name this destination's peer endpoint
     */
    boolean sameEndpoint(MemorySegment source, long offset, int length);
}
