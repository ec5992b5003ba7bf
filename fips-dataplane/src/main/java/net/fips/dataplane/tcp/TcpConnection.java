package net.fips.dataplane.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.transport.TransportAddr;

/**
 * One connection of a {@link TcpTransport}: its socket, pool key, phase, the 64 KiB receive buffer the stream is
 * read into ({@code inStart..inEnd} not yet deframed), the 128 KiB stream buffer frames are copied into before a
 * {@code writev} ({@code outStart..outEnd} not yet written), and the queue of slots waiting, in order, for room in
 * it. Loop thread only.
 */
final class TcpConnection {
    static final int IN_BUFFER_BYTES = 64 * 1024;
    static final int OUT_BUFFER_BYTES = 128 * 1024;
    /** Frames held per connection while its socket and stream buffer are full (back-pressure, not loss). */
    static final int PENDING_SLOTS = 256;

    /** Where a connection is in its life. */
    enum Phase { CONNECTING, PRELINK, ESTABLISHED, CLOSED }

    final int id;
    final int fd;
    final TransportAddr address;
    final int addressId;
    final boolean inbound;
    final Arena arena = Arena.ofConfined();
    final MemorySegment in = arena.allocate(IN_BUFFER_BYTES, 64);
    final MemorySegment out = arena.allocate(OUT_BUFFER_BYTES, 64);
    Phase phase;
    StreamConnector.PreLink preLink;
    /** Connect deadline (outbound), first-frame deadline (inbound, 0 once a frame came). */
    long deadlineNanos;
    int rxMtu;
    int inStart;
    int inEnd;
    int outStart;
    int outEnd;
    boolean dirty;
    boolean stalled;
    int registered;
    /** Slots waiting, in order, for room in {@link #out}; owned by this connection until copied. */
    final int[] pending = new int[PENDING_SLOTS];
    int pendingHead;
    int pendingCount;

    TcpConnection(final int id, final int fd, final TransportAddr address, final int addressId,
                  final boolean inbound) {
        this.id = id;
        this.fd = fd;
        this.address = address;
        this.addressId = addressId;
        this.inbound = inbound;
    }

    /** @return whether {@code len} more bytes fit after {@link #outEnd} */
    boolean outFits(final int len) {
        return OUT_BUFFER_BYTES - outEnd >= len;
    }

    /** Moves the unwritten bytes to the front of the stream buffer. */
    void compactOut() {
        if (outStart > 0) {
            final int pending = outEnd - outStart;
            MemorySegment.copy(out, outStart, out, 0, pending);
            outStart = 0;
            outEnd = pending;
        }
    }

    /** Moves the bytes not yet deframed to the front of the receive buffer. */
    void compactIn() {
        if (inStart > 0) {
            final int pending = inEnd - inStart;
            MemorySegment.copy(in, inStart, in, 0, pending);
            inStart = 0;
            inEnd = pending;
        }
    }

    /** Queues {@code slot} behind the others. @return false when the queue is full */
    boolean hold(final int slot) {
        if (pendingCount == PENDING_SLOTS) {
            return false;
        }
        pending[(pendingHead + pendingCount++) % PENDING_SLOTS] = slot;
        return true;
    }

    /** @return the oldest held slot (there is one) */
    int oldestHeld() {
        return pending[pendingHead];
    }

    /** Forgets the oldest held slot. */
    void dropOldestHeld() {
        pendingHead = (pendingHead + 1) % PENDING_SLOTS;
        pendingCount--;
    }
}
