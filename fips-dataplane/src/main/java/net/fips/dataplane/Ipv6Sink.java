package net.fips.dataplane;

import java.lang.foreign.MemorySegment;

/**
 * Where the data plane writes the IPv6 packets it decrypted for this node (the TUN device, or a test's collector).
 * Each worker gets its own instance from the supplier in the data-plane context, so an implementation need not be
 * thread-safe; it must not block and must not keep the memory after the call.
 */
@FunctionalInterface
public interface Ipv6Sink {
    /**
     * @param segment memory holding the packet
     * @param offset  where the IPv6 header starts
     * @param length  the packet's length
     * @return {@code length}, or a negative errno-style status (counted as a drop)
     */
    int write(MemorySegment segment, long offset, int length);
}
