package net.fips.dataplane.transport;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;

/**
 * What the data plane gives a transport's event loop at {@link Transport#start(TransportPort)}: the inbound
 * hand-off and the outbound queue. Every method is for the transport's one loop thread (the single consumer of
 * the outbound rings and the single producer of its inbound rings), except where noted. Nothing allocates except
 * {@link #deliver} for handshake packets (rare: copied into an event).
 *
 * <h2>Inbound, per received FMP packet</h2>
 * <ol>
 *   <li>{@code int slot = port.acquire()}; {@link PacketPool#NO_SLOT} means the pool is exhausted (counted):
 *       stop reading until slots come back (leave the bytes in the kernel).</li>
 *   <li>write the packet into {@code pool().slotSegment(slot)} at {@link #DATA_OFFSET}, at most
 *       {@code pool().maxMtuBytes()} bytes;</li>
 *   <li>{@code port.deliver(slot, length, src, srcOffset, srcLength)}: the source bytes (at most
 *       {@link #SOURCE_MAX_BYTES}, in the transport's own encoding, e.g. a sockaddr or a connection handle) are
 *       copied into the slot's source area, the FMP prefix is checked, an established frame is handed to the worker
 *       its receiver index is pinned to exactly as the UDP receive agent does, and a msg1/msg2 becomes a
 *       {@code HandshakeReceived} event with {@link Transport#sourceAddress} of the source bytes. Ownership of the
 *       slot always passes: a bad prefix, an unknown index or a full worker ring is a counted drop;</li>
 *   <li>after a burst, {@link #flush()} wakes the workers that were fed (one fence each, not one per packet).</li>
 * </ol>
 *
 * <h2>Outbound</h2>
 * Workers (and the control thread, for handshakes) queue sealed slots for this transport and call
 * {@link Transport#wakeup()}. The loop takes them with {@link #drainOutbound}, gets each slot's destination with
 * {@link #takeDestination} (the handle the transport made in {@link Transport#destination}), sends the bytes at
 * the slot's data offset/length ({@link SlotDescriptor}), and {@link #release}s the slot, whether sent or dropped.
 * A send to a destination without a connection fails at once: count {@code send_errors}, call
 * {@link Transport#connect}, release the slot (transports.md §1.3); later sends find the connection.
 */
public interface TransportPort {
    /** Where a received packet's first byte goes in its slot. */
    long DATA_OFFSET = SlotDescriptor.DEFAULT_DATA_OFFSET;

    /** The most source bytes a slot carries; longer addresses need a short handle. */
    int SOURCE_MAX_BYTES = 28;

    /** @return the transport id the data plane gave this transport */
    int transportId();

    /** @return the shared pool the slots come from */
    PacketPool pool();

    /** @return a free slot, or {@link PacketPool#NO_SLOT} (counted as pool exhaustion) */
    int acquire();

    /**
     * Hands one received FMP packet to the data plane; the slot always passes to the data plane.
     *
     * @param slot         a slot from {@link #acquire()} holding the packet at {@link #DATA_OFFSET}
     * @param length       the packet's length
     * @param source       the source bytes (transport encoding), or null for none
     * @param sourceOffset where they start in {@code source}
     * @param sourceLength how many (0 for none; more than {@link #SOURCE_MAX_BYTES} is recorded as unknown)
     * @return true when it went to a worker or became a handshake event; false when it was dropped (counted)
     */
    boolean deliver(int slot, int length, MemorySegment source, long sourceOffset, int sourceLength);

    /** Wakes the workers {@link #deliver} fed since the last call. */
    void flush();

    /** @return whether sealed slots are waiting for this transport */
    boolean hasOutbound();

    /**
     * Moves up to {@code max} queued slots into {@code slots}, workers' first (rotating), then control handshakes.
     *
     * @return how many
     */
    int drainOutbound(int[] slots, int max);

    /** @return the destination queued with {@code slot} (and forgets it), or null */
    TransportDestination takeDestination(int slot);

    /** Returns a slot to the pool (after sending it, or after a counted drop). */
    void release(int slot);
}
