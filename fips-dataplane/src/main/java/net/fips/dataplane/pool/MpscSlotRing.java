package net.fips.dataplane.pool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A bounded multi-producer, single-consumer ring of slot indices, off-heap; meant for inboxes that several
 * agents feed, such as the control inbox.
 *
 * <pre>
 *  +0                  elements: capacity x i32 slot index, -1 = empty cell
 *  +E (= capacity*4, rounded up to 64)
 *  +E                  padding (128)
 *  +E+128              tail i64 (producers CAS) | producer limit i64 (producers, racy cache of head + capacity)
 *  +E+256              head i64 (consumer writes)
 *  +E+384              padding (128)
 * </pre>
 *
 * <h2>Threads and ordering</h2>
 * Any number of threads may {@link #offer(int)}; exactly one thread may {@link #poll()} / {@link #drainTo}.
 * A producer claims a position by CAS on the tail and then stores its index into the cell with release semantics;
 * the consumer watches the <i>cell</i>, not the tail, loading it with acquire semantics, so it sees the element
 * and every byte the producer wrote into the slot. Between a producer's CAS and its store the cell still reads
 * empty: {@code poll} then returns {@link #EMPTY} although the ring is not empty, and the element shows up on a
 * later poll. That keeps the consumer from ever waiting on a preempted producer, which suits a duty-cycle agent.
 * Accessors follow the JCTools naming: {@code lp}/{@code sp} plain, {@code lv} load-acquire (or volatile where
 * noted), {@code so} store-release, {@code cas} compare-and-set.
 */
public final class MpscSlotRing implements AutoCloseable {
    /** Returned by {@link #poll()} when no element is ready. */
    public static final int EMPTY = -1;

    private static final long PAD_BYTES = 128;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena;
    private final MemorySegment segment;
    private final int capacity;
    private final long mask;
    private final long tailOffset;
    private final long producerLimitOffset;
    private final long headOffset;

    /**
     * Creates a ring in a new shared arena.
     *
     * @param capacity a power of two from 2 to {@link SpscSlotRing#MAX_CAPACITY}
     * @throws IllegalArgumentException if the capacity is not a power of two in range
     */
    public MpscSlotRing(final int capacity) {
        this.capacity = SpscSlotRing.checkCapacity(capacity);
        this.mask = capacity - 1;
        final long elementsBytes = SlotDescriptor.align(capacity * Integer.BYTES, SlotDescriptor.CACHE_LINE_BYTES);
        this.tailOffset = elementsBytes + PAD_BYTES;
        this.producerLimitOffset = tailOffset + Long.BYTES;
        this.headOffset = tailOffset + 2 * PAD_BYTES;
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(headOffset + 2 * PAD_BYTES, PAD_BYTES);
        segment.asSlice(0, elementsBytes).fill((byte) 0xFF);
        LONG.set(segment, producerLimitOffset, (long) capacity);
        // volatile: publishes the empty cells and the initial limit to every thread
        LONG.setVolatile(segment, tailOffset, 0L);
    }

    /**
     * Any thread: appends a slot index.
     *
     * @param slotIndex a non-negative index whose ownership passes to the consumer on success
     * @return false if the ring is full (the caller still owns the slot and counts the drop)
     */
    public boolean offer(final int slotIndex) {
        if (slotIndex < 0) {
            throw new IllegalArgumentException("slot index " + slotIndex + " is negative");
        }
        final MemorySegment segment = this.segment;
        long producerLimit = lvProducerLimit(segment);
        long tail;
        do {
            tail = lvTail(segment);
            if (tail >= producerLimit) {
                // acquire: the consumer emptied every cell below head before publishing it
                producerLimit = lvHead(segment) + capacity;
                if (tail >= producerLimit) {
                    return false;
                }
                // racy but safe: every value written derives from a real head, so it never overstates the room
                soProducerLimit(segment, producerLimit);
            }
        } while (!casTail(segment, tail, tail + 1));
        // release: the consumer that sees this index also sees everything written to the slot before it
        soElement(segment, tail, slotIndex);
        return true;
    }

    /**
     * Consumer only: removes the oldest ready slot index.
     *
     * @return the slot index, now owned by the caller, or {@link #EMPTY} if none is ready yet
     */
    public int poll() {
        final MemorySegment segment = this.segment;
        final long head = lpHead(segment);
        final int slotIndex = lvElement(segment, head);
        if (slotIndex == EMPTY) {
            return EMPTY;
        }
        spElement(segment, head, EMPTY);
        // release: a producer that sees the new head also sees the cell emptied above
        soHead(segment, head + 1);
        return slotIndex;
    }

    /**
     * Consumer only: removes up to {@code batch.length} ready indices in order with a single head update.
     *
     * @param batch receives the indices from position 0
     * @return how many were removed
     */
    public int drainTo(final int[] batch) {
        return drainTo(batch, batch.length);
    }

    /**
     * Consumer only: removes up to {@code limit} ready indices in order with a single head update.
     *
     * @param batch receives the indices from position 0
     * @param limit at most this many, and at most {@code batch.length}
     * @return how many were removed
     */
    public int drainTo(final int[] batch, final int limit) {
        final MemorySegment segment = this.segment;
        final long head = lpHead(segment);
        final int max = Math.min(capacity, Math.min(limit, batch.length));
        int n = 0;
        while (n < max) {
            final int slotIndex = lvElement(segment, head + n);
            if (slotIndex == EMPTY) {
                break;
            }
            spElement(segment, head + n, EMPTY);
            batch[n++] = slotIndex;
        }
        if (n > 0) {
            // release: as in poll, once for the whole batch
            soHead(segment, head + n);
        }
        return n;
    }

    /** @return an estimate of the number of claimed positions not yet consumed */
    public int size() {
        final long head = lvHead(segment);
        return (int) Math.max(0, Math.min(capacity, lvTail(segment) - head));
    }

    /** @return the fixed capacity */
    public int capacity() {
        return capacity;
    }

    /** Frees the ring's memory. Every producer and the consumer must have stopped. */
    @Override
    public void close() {
        arena.close();
    }

    private long elementOffset(final long position) {
        return (position & mask) * Integer.BYTES;
    }

    private int lvElement(final MemorySegment segment, final long position) {
        return (int) INT.getAcquire(segment, elementOffset(position));
    }

    private void spElement(final MemorySegment segment, final long position, final int value) {
        segment.set(ValueLayout.JAVA_INT, elementOffset(position), value);
    }

    private void soElement(final MemorySegment segment, final long position, final int value) {
        INT.setRelease(segment, elementOffset(position), value);
    }

    /** Volatile load: producers need the freshest tail to keep CAS retries few. */
    private long lvTail(final MemorySegment segment) {
        return (long) LONG.getVolatile(segment, tailOffset);
    }

    private boolean casTail(final MemorySegment segment, final long expected, final long update) {
        return LONG.compareAndSet(segment, tailOffset, expected, update);
    }

    private long lvProducerLimit(final MemorySegment segment) {
        return (long) LONG.getAcquire(segment, producerLimitOffset);
    }

    private void soProducerLimit(final MemorySegment segment, final long value) {
        LONG.setRelease(segment, producerLimitOffset, value);
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
}
