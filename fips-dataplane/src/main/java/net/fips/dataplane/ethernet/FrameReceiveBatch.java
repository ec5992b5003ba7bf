package net.fips.dataplane.ethernet;

import java.lang.foreign.MemorySegment;

/**
 * The caller's receive slots and, after {@link EthernetTransport#receive}, the FMP packets that landed in them.
 *
 * <p>Slot {@code i} is (segment, offset, capacity): the FMP packet of a data frame is delivered starting exactly
 * at {@code offset}; the transport receives the whole frame at {@code offset − 3}, so the 3 bytes before
 * {@code offset} must belong to the slot too (a pool slot's headroom). Result {@code k} (for {@code k < count()})
 * lives in slot {@link #slotIndex(int) slotIndex(k)} with its padding trimmed and its source MAC as a {@code long};
 * slots not named by a result are unused. Beacons never appear here. Nothing allocates.
 */
public final class FrameReceiveBatch {
    final MemorySegment[] segment;
    final long[] offset;
    final int[] slotCapacity;
    int offered;
    final int[] resultSlot;
    final int[] resultLength;
    final long[] resultSource;
    int count;

    /** @param capacity the most slots one batch offers */
    public FrameReceiveBatch(final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        segment = new MemorySegment[capacity];
        offset = new long[capacity];
        slotCapacity = new int[capacity];
        resultSlot = new int[capacity];
        resultLength = new int[capacity];
        resultSource = new long[capacity];
    }

    /** @return the most slots this batch can offer */
    public int capacity() {
        return segment.length;
    }

    /**
     * Sets slot {@code i}: the packet goes to {@code seg} at {@code off} (with 3 writable bytes before it), at most
     * {@code slotCapacity} bytes.
     *
     * @throws IllegalArgumentException when there are no 3 bytes of room before {@code off}
     */
    public void slot(final int i, final MemorySegment seg, final long off, final int slotCapacity) {
        if (off < EthernetFrame.DATA_HEADER_SIZE || off + slotCapacity > seg.byteSize()) {
            throw new IllegalArgumentException("slot [" + off + ", +" + slotCapacity + ") needs "
                    + EthernetFrame.DATA_HEADER_SIZE + " bytes of headroom inside a " + seg.byteSize()
                    + "-byte segment");
        }
        segment[i] = seg;
        offset[i] = off;
        this.slotCapacity[i] = slotCapacity;
    }

    /** Declares slots {@code 0..slots-1} as offered for the next receive. */
    public void offer(final int slots) {
        if (slots < 0 || slots > segment.length) {
            throw new IllegalArgumentException("offer " + slots + " of " + segment.length);
        }
        offered = slots;
    }

    /** @return slots currently offered */
    public int offered() {
        return offered;
    }

    /** @return packets delivered by the last receive */
    public int count() {
        return count;
    }

    /** @return the slot index holding result {@code k} */
    public int slotIndex(final int k) {
        return resultSlot[k];
    }

    /** @return the FMP packet length of result {@code k} */
    public int length(final int k) {
        return resultLength[k];
    }

    /** @return the source MAC of result {@code k} (low 48 bits) */
    public long source(final int k) {
        return resultSource[k];
    }

    /** @return the segment of the slot holding result {@code k} */
    public MemorySegment segment(final int k) {
        return segment[resultSlot[k]];
    }

    /** @return the offset where result {@code k}'s packet starts */
    public long offset(final int k) {
        return offset[resultSlot[k]];
    }

    void record(final int slot, final int length, final long source) {
        final int k = count++;
        resultSlot[k] = slot;
        resultLength[k] = length;
        resultSource[k] = source;
    }
}
