package net.fips.dataplane.pool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A bounded single-producer, single-consumer ring of slot indices, off-heap.
 *
 * <pre>
 *  +0                  elements: capacity x i32 slot index
 *  +E (= capacity*4, rounded up to 64)
 *  +E                  padding (128)
 *  +E+128              tail i64 (producer writes) | head cache i64 (producer only)
 *  +E+256              head i64 (consumer writes) | tail cache i64 (consumer only)
 *  +E+384              padding (128)
 * </pre>
 * Producer and consumer positions sit two cache lines apart (the adjacent-line prefetcher pulls lines in pairs),
 * so each side writes only its own line. Each side keeps a cached copy of the other side's position and reads the
 * shared one only when the cache says full/empty, so in steady state a side touches the other's line once per
 * lap rather than once per element.
 *
 * <h2>Threads and ordering</h2>
 * Exactly one thread may call {@link #offer(int)}, and exactly one (possibly other) thread may call
 * {@link #poll()} / {@link #drainTo(int[])}. The producer's release store of the tail after writing an element
 * pairs with the consumer's acquire load of the tail, so the element <i>and every byte the producer wrote into
 * the slot</i> happen-before the consumer's reads; this is how slot ownership moves ({@link PacketPool}).
 * Accessors follow the JCTools naming: {@code lp}/{@code sp} plain load/store, {@code lv} load-acquire,
 * {@code so} store-release (ordered).
 * <p>
 * A full ring makes {@code offer} return false and an empty one makes {@code poll} return {@link #EMPTY}; the
 * caller counts the drop. Nothing blocks and nothing is allocated after construction.
 */
public final class SpscSlotRing implements AutoCloseable {
    /** Returned by {@link #poll()} when the ring is empty. */
    public static final int EMPTY = -1;
    /** Largest capacity accepted. */
    public static final int MAX_CAPACITY = 1 << 24;

    private static final long PAD_BYTES = 128;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena;
    private final MemorySegment segment;
    private final int capacity;
    private final long mask;
    private final long tailOffset;
    private final long headCacheOffset;
    private final long headOffset;
    private final long tailCacheOffset;

    /**
     * Creates a ring in a new shared arena.
     *
     * @param capacity a power of two from 2 to {@link #MAX_CAPACITY}
     * @throws IllegalArgumentException if the capacity is not a power of two in range
     */
    public SpscSlotRing(final int capacity) {
        this.capacity = checkCapacity(capacity);
        this.mask = capacity - 1;
        final long elementsBytes = SlotDescriptor.align(capacity * Integer.BYTES, SlotDescriptor.CACHE_LINE_BYTES);
        this.tailOffset = elementsBytes + PAD_BYTES;
        this.headCacheOffset = tailOffset + Long.BYTES;
        this.headOffset = tailOffset + 2 * PAD_BYTES;
        this.tailCacheOffset = headOffset + Long.BYTES;
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(headOffset + 2 * PAD_BYTES, PAD_BYTES);
        // volatile: publishes the zeroed positions to both threads whichever starts first
        LONG.setVolatile(segment, tailOffset, 0L);
        LONG.setVolatile(segment, headOffset, 0L);
    }

    static int checkCapacity(final int capacity) {
        if (capacity < 2 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two in [2, "
                    + MAX_CAPACITY + "]");
        }
        return capacity;
    }

    /**
     * Producer only: appends a slot index.
     *
     * @param slotIndex a non-negative index whose ownership passes to the consumer on success
     * @return false if the ring is full (the caller still owns the slot and counts the drop)
     */
    public boolean offer(final int slotIndex) {
        if (slotIndex < 0) {
            throw new IllegalArgumentException("slot index " + slotIndex + " is negative");
        }
        final MemorySegment segment = this.segment;
        final long tail = lpTail(segment);
        if (tail - lpHeadCache(segment) >= capacity && !refreshHeadCache(segment, tail)) {
            return false;
        }
        spElement(segment, tail, slotIndex);
        // release: the consumer must see the element (and the slot's bytes) before it sees the new tail
        soTail(segment, tail + 1);
        return true;
    }

    private boolean refreshHeadCache(final MemorySegment segment, final long tail) {
        // acquire: the consumer has finished reading every element below head, so those cells may be overwritten
        final long head = lvHead(segment);
        spHeadCache(segment, head);
        return tail - head < capacity;
    }

    /**
     * Consumer only: removes the oldest slot index.
     *
     * @return the slot index, now owned by the caller, or {@link #EMPTY}
     */
    public int poll() {
        final MemorySegment segment = this.segment;
        final long head = lpHead(segment);
        if (head >= lpTailCache(segment) && head >= refreshTailCache(segment)) {
            return EMPTY;
        }
        final int slotIndex = lpElement(segment, head);
        // release: the producer may reuse this cell only after our read of it is complete
        soHead(segment, head + 1);
        return slotIndex;
    }

    /**
     * Consumer only: removes up to {@code batch.length} indices in order with a single head update.
     *
     * @param batch receives the indices from position 0
     * @return how many were removed (0 when empty)
     */
    public int drainTo(final int[] batch) {
        return drainTo(batch, batch.length);
    }

    /**
     * Consumer only: removes up to {@code limit} indices in order with a single head update.
     *
     * @param batch receives the indices from position 0
     * @param limit at most this many, and at most {@code batch.length}
     * @return how many were removed (0 when empty)
     */
    public int drainTo(final int[] batch, final int limit) {
        final MemorySegment segment = this.segment;
        final long head = lpHead(segment);
        long available = lpTailCache(segment) - head;
        if (available <= 0) {
            available = refreshTailCache(segment) - head;
            if (available <= 0) {
                return 0;
            }
        }
        final int n = (int) Math.min(available, Math.min(limit, batch.length));
        for (int i = 0; i < n; i++) {
            batch[i] = lpElement(segment, head + i);
        }
        // release: as in poll, once for the whole batch
        soHead(segment, head + n);
        return n;
    }

    private long refreshTailCache(final MemorySegment segment) {
        // acquire: pairs with the producer's soTail, making the elements below it and their slots visible
        final long tail = lvTail(segment);
        spTailCache(segment, tail);
        return tail;
    }

    /** @return an estimate of the number of queued indices (exact when both sides are idle) */
    public int size() {
        final long head = lvHead(segment);
        return (int) Math.max(0, Math.min(capacity, lvTail(segment) - head));
    }

    /** @return true if no index is queued, as seen at the moment of the call */
    public boolean isEmpty() {
        return lvHead(segment) >= lvTail(segment);
    }

    /** @return the fixed capacity */
    public int capacity() {
        return capacity;
    }

    /** Frees the ring's memory. Both sides must have stopped; indices still queued are not released. */
    @Override
    public void close() {
        arena.close();
    }

    private long elementOffset(final long position) {
        return (position & mask) * Integer.BYTES;
    }

    private void spElement(final MemorySegment segment, final long position, final int value) {
        segment.set(ValueLayout.JAVA_INT, elementOffset(position), value);
    }

    private int lpElement(final MemorySegment segment, final long position) {
        return segment.get(ValueLayout.JAVA_INT, elementOffset(position));
    }

    private long lpTail(final MemorySegment segment) {
        return segment.get(ValueLayout.JAVA_LONG, tailOffset);
    }

    private long lvTail(final MemorySegment segment) {
        return (long) LONG.getAcquire(segment, tailOffset);
    }

    private void soTail(final MemorySegment segment, final long value) {
        LONG.setRelease(segment, tailOffset, value);
    }

    private long lpHead(final MemorySegment segment) {
        return segment.get(ValueLayout.JAVA_LONG, headOffset);
    }

    private long lvHead(final MemorySegment segment) {
        return (long) LONG.getAcquire(segment, headOffset);
    }

    private void soHead(final MemorySegment segment, final long value) {
        LONG.setRelease(segment, headOffset, value);
    }

    private long lpHeadCache(final MemorySegment segment) {
        return segment.get(ValueLayout.JAVA_LONG, headCacheOffset);
    }

    private void spHeadCache(final MemorySegment segment, final long value) {
        segment.set(ValueLayout.JAVA_LONG, headCacheOffset, value);
    }

    private long lpTailCache(final MemorySegment segment) {
        return segment.get(ValueLayout.JAVA_LONG, tailCacheOffset);
    }

    private void spTailCache(final MemorySegment segment, final long value) {
        segment.set(ValueLayout.JAVA_LONG, tailCacheOffset, value);
    }
}
