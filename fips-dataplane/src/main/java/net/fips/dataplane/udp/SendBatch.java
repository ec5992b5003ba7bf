package net.fips.dataplane.udp;

import java.lang.foreign.MemorySegment;

/**
 * Packets to send in one {@link UdpTransport#send} call: (segment, offset, length, destination) per packet, in
 * queue order. Packets to the same destination keep their order; runs of equal-size packets to one destination
 * may leave as one GSO train. Reusable: {@link #clear()} and refill.
 */
public final class SendBatch {
    final MemorySegment[] segment;
    final long[] offset;
    final int[] length;
    final UdpDestination[] destination;
    int count;
    final boolean[] grouped;
    final int[] group;

    /** @param capacity the most packets one batch holds */
    public SendBatch(final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        segment = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        destination = new UdpDestination[capacity];
        grouped = new boolean[capacity];
        group = new int[capacity];
    }

    /** @return the most packets this batch holds */
    public int capacity() {
        return segment.length;
    }

    /** @return packets added since the last clear */
    public int count() {
        return count;
    }

    /** @return whether no more packets fit */
    public boolean isFull() {
        return count == segment.length;
    }

    /** Forgets all packets (keeps the arrays). */
    public void clear() {
        for (int i = 0; i < count; i++) {
            segment[i] = null;
            destination[i] = null;
        }
        count = 0;
    }

    /**
     * Appends one packet.
     *
     * @throws IllegalStateException when full
     */
    public void add(final MemorySegment seg, final long off, final int len, final UdpDestination dst) {
        if (count == segment.length) {
            throw new IllegalStateException("send batch full (" + count + ")");
        }
        final int i = count++;
        segment[i] = seg;
        offset[i] = off;
        length[i] = len;
        destination[i] = dst;
    }
}
