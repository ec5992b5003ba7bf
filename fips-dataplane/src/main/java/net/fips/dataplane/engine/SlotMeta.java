package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.linux.SockAddrs;

/**
 * Per-packet facts that travel with a slot from one agent to the next, kept in the front of the slot's headroom
 * so nothing is allocated and nothing but the slot index crosses a ring.
 *
 * <pre>
 *  slot base
 *  +0    slot header (SlotDescriptor, 16 bytes)
 *  +16   link id i64                     rx -> worker: the link the index resolved to;
 *                                        caller -> worker: the link to send on
 *  +24   source length i32              rx -> worker: where the datagram came from (0 = unknown)
 *  +28   transport id i32               rx -> worker
 *  +32   source bytes (28 at most): the transport's encoding (UDP: sockaddr_in/sockaddr_in6)
 *  +60   forward flags i32             worker -> worker: FMP flags (CE) of a handed-off forward, route class << 8
 *  +64   ... rest of the headroom, free for prepending
 * </pre>
 *
 * Inbound packets never prepend, and outbound ones prepend at most 21 bytes in front of
 * {@link SlotDescriptor#DEFAULT_DATA_OFFSET} (512), so these 48 bytes are never overwritten by packet data.
 */
final class SlotMeta {
    static final long LINK_ID_OFFSET = SlotDescriptor.SLOT_HEADER_BYTES;
    static final long SOURCE_LENGTH_OFFSET = LINK_ID_OFFSET + Long.BYTES;
    static final long TRANSPORT_ID_OFFSET = SOURCE_LENGTH_OFFSET + Integer.BYTES;
    static final long SOURCE_OFFSET = TRANSPORT_ID_OFFSET + Integer.BYTES;
    static final int SOURCE_MAX_BYTES = TransportPort.SOURCE_MAX_BYTES;
    static final long FORWARD_FLAGS_OFFSET = SOURCE_OFFSET + SOURCE_MAX_BYTES;
    static final long END_OFFSET = FORWARD_FLAGS_OFFSET + Integer.BYTES;
    /** Link id marking a caller's slot as an IPv6 packet for the session path (no link has it). */
    static final long IPV6_PACKET = Long.MIN_VALUE;

    static {
        if (SockAddrs.IN6_SIZE > SOURCE_MAX_BYTES) {
            throw new ExceptionInInitializerError("a sockaddr_in6 does not fit the source area");
        }
        if (END_OFFSET > SlotDescriptor.DEFAULT_DATA_OFFSET - 64) {
            throw new ExceptionInInitializerError("slot metadata overlaps the headroom in use");
        }
    }

    private SlotMeta() {
    }

    static void linkId(final MemorySegment slot, final long linkId) {
        slot.set(ValueLayout.JAVA_LONG, LINK_ID_OFFSET, linkId);
    }

    static long linkId(final MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_LONG, LINK_ID_OFFSET);
    }

    static void transportId(final MemorySegment slot, final int transportId) {
        slot.set(ValueLayout.JAVA_INT, TRANSPORT_ID_OFFSET, transportId);
    }

    static int transportId(final MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_INT, TRANSPORT_ID_OFFSET);
    }

    /** Copies a received source address; one longer than a sockaddr_in6 is recorded as unknown. */
    static void source(final MemorySegment slot, final MemorySegment source, final long offset, final int length) {
        if (source == null || length <= 0 || length > SOURCE_MAX_BYTES) {
            slot.set(ValueLayout.JAVA_INT, SOURCE_LENGTH_OFFSET, 0);
            return;
        }
        MemorySegment.copy(source, offset, slot, SOURCE_OFFSET, length);
        slot.set(ValueLayout.JAVA_INT, SOURCE_LENGTH_OFFSET, length);
    }

    static void forwardFlags(final MemorySegment slot, final int flags) {
        slot.set(ValueLayout.JAVA_INT, FORWARD_FLAGS_OFFSET, flags);
    }

    static int forwardFlags(final MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_INT, FORWARD_FLAGS_OFFSET);
    }

    static int sourceLength(final MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_INT, SOURCE_LENGTH_OFFSET);
    }
}
