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

    /**
     * Writes whatever the sink holds back (a coalescing sink keeps consecutive TCP segments of one flow to write
     * them as one); the worker calls it at the end of every duty cycle, before it can go idle.
     *
     * @return packets accepted by earlier {@link #write} calls that were lost in this write (the caller counts
     *         them as drops); 0 for a sink that holds nothing back
     */
    default int flush() {
        return 0;
    }
}
