package net.fips.dataplane.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;

/**
 * The caller's receive slots and, after {@link UdpTransport#receive}, what landed in them.
 *
 * <p>The caller offers slots as (segment, offset, capacity) triples in native memory it owns (for example a
 * packet pool's slots): {@link #slot} for each index below {@link #offer}'s count. The transport receives
 * datagrams straight into those slots (or, with GRO, copies split segments into them). Result {@code k} (for
 * {@code k < count()}) lives in slot {@link #slotIndex(int) slotIndex(k)}; slots not named by a result are unused.
 * The source address of each result is kept in a preallocated native {@code sockaddr} area; decode it with
 * {@link #sourceAddress(int)} only off the hot path.
 */
public final class ReceiveBatch {
    private final int capacity;
    final MemorySegment[] segment;
    final long[] offset;
    final int[] slotCapacity;
    int offered;

    final int[] resultSlot;
    final int[] resultLength;
    final int[] sourceLength;
    final MemorySegment sources;
    private final MemorySegment[] sourceViews;
    int count;

    /**
     * @param arena    where the source-address area lives
     * @param capacity the most slots one batch offers
     */
    public ReceiveBatch(final Arena arena, final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.segment = new MemorySegment[capacity];
        this.offset = new long[capacity];
        this.slotCapacity = new int[capacity];
        this.resultSlot = new int[capacity];
        this.resultLength = new int[capacity];
        this.sourceLength = new int[capacity];
        this.sources = arena.allocate((long) SockAddrs.STORAGE_SIZE * capacity, 8);
        this.sourceViews = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            sourceViews[i] = sources.asSlice((long) i * SockAddrs.STORAGE_SIZE, SockAddrs.STORAGE_SIZE);
        }
    }

    /** @return the most slots this batch can offer */
    public int capacity() {
        return capacity;
    }

    /**
     * Sets slot {@code i}: {@code slotCapacity} bytes of {@code seg} from {@code off} (native memory only).
     */
    public void slot(final int i, final MemorySegment seg, final long off, final int slotCapacity) {
        this.segment[i] = seg;
        this.offset[i] = off;
        this.slotCapacity[i] = slotCapacity;
    }

    /** Declares slots {@code 0..slots-1} as offered for the next receive. */
    public void offer(final int slots) {
        if (slots < 0 || slots > capacity) {
            throw new IllegalArgumentException("offer " + slots + " of " + capacity);
        }
        this.offered = slots;
    }

    /** @return slots currently offered */
    public int offered() {
        return offered;
    }

    /** @return datagrams delivered by the last receive */
    public int count() {
        return count;
    }

    /** @return the slot index holding result {@code k} */
    public int slotIndex(final int k) {
        return resultSlot[k];
    }

    /** @return the segment of the slot holding result {@code k} */
    public MemorySegment segment(final int k) {
        return segment[resultSlot[k]];
    }

    /** @return the offset in {@link #segment} where result {@code k} starts */
    public long offset(final int k) {
        return offset[resultSlot[k]];
    }

    /** @return the length of result {@code k} */
    public int length(final int k) {
        return resultLength[k];
    }

    /** @return result {@code k}'s source as a native {@code sockaddr} (a view; valid until the next receive) */
    public MemorySegment source(final int k) {
        return sourceViews[k];
    }

    /** @return the length of result {@code k}'s source {@code sockaddr} */
    public int sourceLength(final int k) {
        return sourceLength[k];
    }

    /**
     * Decodes result {@code k}'s source (allocates; IPv4-mapped sources come back as IPv4).
     *
     * @throws SockAddrException if the kernel handed back an address of an unexpected family
     */
    public InetSocketAddress sourceAddress(final int k) throws SockAddrException {
        return SockAddrs.decode(sourceViews[k], sourceLength[k]);
    }

    void record(final int slot, final int length, final MemorySegment name, final int nameLen) {
        final int k = count++;
        resultSlot[k] = slot;
        resultLength[k] = length;
        final int n = Math.min(nameLen, SockAddrs.STORAGE_SIZE);
        MemorySegment.copy(name, 0, sourceViews[k], 0, n);
        sourceLength[k] = n;
    }
}
