package net.fips.dataplane.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A bounded multi-producer, single-consumer ring of slot indices; meant for inboxes that several agents feed,
 * such as the control inbox.
 *
 * <pre>
 *  elements: int[capacity]                           slot indices, -1 = empty cell
 *  positions: long[48], padded by index (as in {@link SpscSlotRing})
 *    [16] tail (producers CAS)   [17] producer limit (producers; racy cache of head + capacity)
 *    [32] head (consumer writes)
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
 * noted), {@code so} store-release, {@code cas} compare-and-set. Heap arrays, not a segment, for the reason given
 * in {@link SpscSlotRing}.
 */
public final class MpscSlotRing {
    /** Returned by {@link #poll()} when no element is ready. */
    public static final int EMPTY = -1;

    private static final int TAIL = 16;
    private static final int PRODUCER_LIMIT = 17;
    private static final int HEAD = 32;
    private static final VarHandle POSITION = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(int[].class);

    private final int[] elements;
    private final long[] positions = new long[SpscSlotRing.POSITIONS_LENGTH];
    private final int capacity;
    private final int mask;

    /**
     * Creates an empty ring.
     *
     * @param capacity a power of two from 2 to {@link SpscSlotRing#MAX_CAPACITY}
     * @throws IllegalArgumentException if the capacity is not a power of two in range
     */
    public MpscSlotRing(final int capacity) {
        this.capacity = SpscSlotRing.checkCapacity(capacity);
        this.mask = capacity - 1;
        this.elements = new int[capacity];
        Arrays.fill(elements, EMPTY);
        positions[PRODUCER_LIMIT] = capacity;
        // volatile: publishes the empty cells and the initial limit to every thread
        POSITION.setVolatile(positions, TAIL, 0L);
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
        final long[] positions = this.positions;
        long producerLimit = lvProducerLimit(positions);
        long tail;
        do {
            tail = lvTail(positions);
            if (tail >= producerLimit) {
                // acquire: the consumer emptied every cell below head before publishing it
                producerLimit = lvHead(positions) + capacity;
                if (tail >= producerLimit) {
                    return false;
                }
                // racy but safe: every value written derives from a real head, so it never overstates the room
                soProducerLimit(positions, producerLimit);
            }
        } while (!casTail(positions, tail, tail + 1));
        // release: the consumer that sees this index also sees everything written to the slot before it
        soElement((int) tail & mask, slotIndex);
        return true;
    }

    /**
     * Consumer only: removes the oldest ready slot index.
     *
     * @return the slot index, now owned by the caller, or {@link #EMPTY} if none is ready yet
     */
    public int poll() {
        final long head = positions[HEAD];
        final int cell = (int) head & mask;
        final int slotIndex = lvElement(cell);
        if (slotIndex == EMPTY) {
            return EMPTY;
        }
        elements[cell] = EMPTY;
        // release: a producer that sees the new head also sees the cell emptied above
        soHead(positions, head + 1);
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
        final long head = positions[HEAD];
        final int max = Math.min(capacity, Math.min(limit, batch.length));
        int n = 0;
        while (n < max) {
            final int cell = (int) (head + n) & mask;
            final int slotIndex = lvElement(cell);
            if (slotIndex == EMPTY) {
                break;
            }
            elements[cell] = EMPTY;
            batch[n++] = slotIndex;
        }
        if (n > 0) {
            // release: as in poll, once for the whole batch
            soHead(positions, head + n);
        }
        return n;
    }

    /** @return an estimate of the number of claimed positions not yet consumed */
    public int size() {
        final long head = lvHead(positions);
        return (int) Math.max(0, Math.min(capacity, lvTail(positions) - head));
    }

    /** @return the fixed capacity */
    public int capacity() {
        return capacity;
    }

    private int lvElement(final int cell) {
        return (int) ELEMENT.getAcquire(elements, cell);
    }

    private void soElement(final int cell, final int value) {
        ELEMENT.setRelease(elements, cell, value);
    }

    /** Volatile load: producers need the freshest tail to keep CAS retries few. */
    private static long lvTail(final long[] positions) {
        return (long) POSITION.getVolatile(positions, TAIL);
    }

    private static boolean casTail(final long[] positions, final long expected, final long update) {
        return POSITION.compareAndSet(positions, TAIL, expected, update);
    }

    private static long lvProducerLimit(final long[] positions) {
        return (long) POSITION.getAcquire(positions, PRODUCER_LIMIT);
    }

    private static void soProducerLimit(final long[] positions, final long value) {
        POSITION.setRelease(positions, PRODUCER_LIMIT, value);
    }

    private static long lvHead(final long[] positions) {
        return (long) POSITION.getAcquire(positions, HEAD);
    }

    private static void soHead(final long[] positions, final long value) {
        POSITION.setRelease(positions, HEAD, value);
    }
}
