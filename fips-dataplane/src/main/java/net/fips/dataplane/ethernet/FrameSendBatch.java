package net.fips.dataplane.ethernet;

import java.lang.foreign.MemorySegment;

/**
 * FMP packets to send in one {@link EthernetTransport#send} call: (segment, offset, length, destination MAC) per
 * packet, in order. The transport writes the 3-byte data-frame header into the 3 bytes before {@code offset}
 * (a pool slot's headroom) and sends header and packet as one frame, so the caller's bytes are never copied.
 * Reusable: {@link #clear()} and refill.
 */
public final class FrameSendBatch {
    final MemorySegment[] segment;
    final long[] offset;
    final int[] length;
    final long[] destination;
    int count;

    /** @param capacity the most packets one batch holds */
    public FrameSendBatch(final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        segment = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        destination = new long[capacity];
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

    /** Forgets all packets. */
    public void clear() {
        for (int i = 0; i < count; i++) {
            segment[i] = null;
        }
        count = 0;
    }

    /**
     * Appends one packet of {@code len} bytes at {@code off}; the 3 bytes before {@code off} are overwritten.
     *
     * @throws IllegalStateException when full
     * @throws IllegalArgumentException when there is no room for the header before {@code off}
     */
    public void add(final MemorySegment seg, final long off, final int len, final long destinationMac) {
        if (count == segment.length) {
            throw new IllegalStateException("send batch full (" + count + ")");
        }
        if (off < EthernetFrame.DATA_HEADER_SIZE || len < 0 || off + len > seg.byteSize()) {
            throw new IllegalArgumentException("packet [" + off + ", +" + len + ") needs "
                    + EthernetFrame.DATA_HEADER_SIZE + " bytes of headroom inside a " + seg.byteSize()
                    + "-byte segment");
        }
        final int i = count++;
        segment[i] = seg;
        offset[i] = off;
        length[i] = len;
        destination[i] = destinationMac;
    }
}
