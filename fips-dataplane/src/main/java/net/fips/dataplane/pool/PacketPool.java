package net.fips.dataplane.pool;

import static net.fips.dataplane.pool.SlotDescriptor.CACHE_LINE_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.DATA_LENGTH_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.DATA_OFFSET_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.DEFAULT_DATA_OFFSET;
import static net.fips.dataplane.pool.SlotDescriptor.FREE_NEXT_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.STATE_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.STATE_FREE;
import static net.fips.dataplane.pool.SlotDescriptor.STATE_IN_USE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Syscalls;

/**
 * A fixed set of packet slots cut from one off-heap segment, handed out by int index.
 *
 * <pre>
 *  segment (page aligned)
 *  +0     padding
 *  +128   free-list head i64: version (high 32) | slot index (low 32, -1 = empty)
 *  +256   exhausted count i64 | invalid-release count i64        (failure paths only)
 *  +384   frontier i32: slots handed out at least once (0 to N)
 *  +512   slot 0 | slot 1 | ... | slot N-1                        each {@link #slotStrideBytes()} long,
 *                                                                 laid out as in {@link SlotDescriptor}
 * </pre>
 *
 * <h2>Pages become resident when first used</h2>
 * The segment is anonymous memory mapped by the kernel ({@link Syscalls#mapAnonymous}): zero-filled, and each
 * 4 KiB page resident only once written. The constructor writes no slot: the slots at and above the
 * <em>frontier</em> have never been handed out and are all zero bytes, i.e. {@link SlotDescriptor#STATE_FREE}
 * and never touched. {@link #acquire()} pops the free list first and takes the frontier's slot (bumping it by
 * CAS) only when the free list is empty, so a node that only ever has a few packets in flight touches only the
 * pages of the few slots it cycles through (the list is LIFO), however large the pool. Without native access
 * (no {@code mmap}) the segment comes from the arena, zeroed and so resident from the start; the logic is the
 * same.
 *
 * <h2>Ownership rule</h2>
 * A slot index is owned by <b>exactly one</b> agent at any moment: the one that {@link #acquire() acquired} it or
 * last {@code poll}ed it from a ring. Ownership changes hands <b>only through a ring</b>
 * ({@link SpscSlotRing}, {@link MpscSlotRing}), whose release/acquire pair makes the slot's bytes and its header
 * (data offset and length) visible to the next owner; plain reads and writes of the slot are therefore correct.
 * After offering an index to a ring, or releasing it, the former owner must not touch the slot again.
 *
 * <h2>Concurrency</h2>
 * {@link #acquire()} and {@link #release(int)} may be called from any number of threads. The free list is a
 * Treiber stack of slot indices whose head carries a 32-bit version, bumped by every successful push and pop, so
 * a stalled popper cannot succeed against a head that was popped and pushed back in between (ABA) unless 2^32
 * operations happen during its stall. The stack is LIFO on purpose: the most recently released slot is the one
 * most likely still in cache (and its page already resident). A slot taken from the frontier is claimed by a CAS
 * of the frontier from its index to the next, so each never-used slot goes to exactly one acquirer; from then on
 * it only circulates through the free list. An acquire that finds both empty reports exhaustion only if the
 * free-list head did not change meanwhile (the version makes that exact), so it never misses a slot released
 * while it looked at the frontier.
 *
 * <h2>Failures are counted</h2>
 * An empty free list makes {@code acquire} return {@link #NO_SLOT} and bumps {@link #exhaustedCount()}; the
 * caller drops the packet. It never blocks and never allocates. A release of an index that is out of range or
 * already free (a double release) is refused, counted in {@link #invalidReleaseCount()} and, with strict
 * ownership (default: when assertions are enabled for this class), thrown as {@link IllegalStateException}.
 * A double release that races with the slot's next acquisition cannot be told apart from a legitimate release.
 */
public final class PacketPool implements AutoCloseable {
    /** Returned by {@link #acquire()} when every slot is in use. */
    public static final int NO_SLOT = -1;
    /** Largest number of slots a pool may hold. */
    public static final int MAX_SLOT_COUNT = 1 << 22;
    /** Largest total segment a pool may allocate (16 GiB). */
    public static final long MAX_POOL_BYTES = 1L << 34;

    private static final long FREE_HEAD_OFFSET = 128;
    private static final long EXHAUSTED_COUNT_OFFSET = 256;
    private static final long INVALID_RELEASE_COUNT_OFFSET = 264;
    private static final long FRONTIER_OFFSET = 384;
    private static final long SLOTS_OFFSET = 512;
    private static final long PAGE_BYTES = 4096;
    private static final long INDEX_MASK = 0xFFFF_FFFFL;
    private static final long VERSION_ONE = 1L << 32;
    /** The free-list head of an empty list: version 0, index {@link #NO_SLOT}. */
    private static final long EMPTY_HEAD = NO_SLOT & INDEX_MASK;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena;
    private final MemorySegment segment;
    private final MemorySegment[] slots;
    private final int slotCount;
    private final int maxMtuBytes;
    private final int slotStrideBytes;
    private final boolean strictOwnership;

    /**
     * Creates a pool whose ownership checks are strict exactly when assertions are enabled for this class.
     *
     * @param slotCount   number of slots, 1 to {@link #MAX_SLOT_COUNT}
     * @param maxMtuBytes the largest MTU of any transport that will fill these slots,
     *                    {@link SlotDescriptor#MIN_MTU_BYTES} to {@link SlotDescriptor#MAX_MTU_BYTES}
     */
    public PacketPool(final int slotCount, final int maxMtuBytes) {
        this(slotCount, maxMtuBytes, PacketPool.class.desiredAssertionStatus());
    }

    /**
     * Creates a pool and maps its segment (lazily resident, see above) with the lifetime of a new shared arena;
     * every slot starts free and untouched.
     *
     * @param slotCount       number of slots, 1 to {@link #MAX_SLOT_COUNT}
     * @param maxMtuBytes     the largest MTU of any transport that will fill these slots,
     *                        {@link SlotDescriptor#MIN_MTU_BYTES} to {@link SlotDescriptor#MAX_MTU_BYTES}
     * @param strictOwnership throw on an invalid release instead of only counting it
     * @throws IllegalArgumentException if a size is out of range
     * @throws IllegalStateException    if the kernel refuses the mapping
     */
    public PacketPool(final int slotCount, final int maxMtuBytes, final boolean strictOwnership) {
        if (slotCount < 1 || slotCount > MAX_SLOT_COUNT) {
            throw new IllegalArgumentException("slotCount " + slotCount + " not in [1, " + MAX_SLOT_COUNT + "]");
        }
        if (maxMtuBytes < SlotDescriptor.MIN_MTU_BYTES || maxMtuBytes > SlotDescriptor.MAX_MTU_BYTES) {
            throw new IllegalArgumentException("maxMtuBytes " + maxMtuBytes + " not in ["
                    + SlotDescriptor.MIN_MTU_BYTES + ", " + SlotDescriptor.MAX_MTU_BYTES + "]");
        }
        final int slotStrideBytes = SlotDescriptor.slotStrideBytes(maxMtuBytes);
        final long totalBytes = SLOTS_OFFSET + (long) slotCount * slotStrideBytes;
        if (totalBytes > MAX_POOL_BYTES) {
            throw new IllegalArgumentException("pool of " + totalBytes + " bytes exceeds " + MAX_POOL_BYTES);
        }
        this.slotCount = slotCount;
        this.maxMtuBytes = maxMtuBytes;
        this.slotStrideBytes = slotStrideBytes;
        this.strictOwnership = strictOwnership;
        this.arena = Arena.ofShared();
        this.segment = map(arena, totalBytes);
        this.slots = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) {
            // a slice only: no byte of the slot is touched
            slots[i] = segment.asSlice(slotBase(i), slotStrideBytes, CACHE_LINE_BYTES);
        }
        // Every slot is zero bytes (STATE_FREE) and at or above the frontier (0). volatile: publishes the empty
        // free list to whichever thread acquires first.
        LONG.setVolatile(segment, FREE_HEAD_OFFSET, EMPTY_HEAD);
    }

    private static MemorySegment map(final Arena arena, final long bytes) {
        if (!Syscalls.isAvailable()) {
            return arena.allocate(bytes, PAGE_BYTES); // zeroed, so resident at once; same layout and logic
        }
        try {
            return Syscalls.mapAnonymous(bytes, arena);
        } catch (final ErrnoException e) {
            arena.close();
            throw new IllegalStateException("packet pool of " + bytes + " bytes: " + e.getMessage(), e);
        }
    }

    /**
     * Takes a free slot. Its data offset is reset to {@link SlotDescriptor#DEFAULT_DATA_OFFSET} and its length
     * to 0. Never blocks, never allocates.
     *
     * @return the slot index, now owned by the caller, or {@link #NO_SLOT} if the pool is exhausted (counted)
     */
    public int acquire() {
        final MemorySegment segment = this.segment;
        while (true) {
            // acquire: pairs with the pusher's CAS, so the popped slot's free-next link is visible
            final long head = lvFreeHead(segment);
            final int index = (int) head;
            if (index == NO_SLOT) {
                final int fresh = claimFresh(segment);
                if (fresh != NO_SLOT) {
                    return handOut(segment, slotBase(fresh), fresh);
                }
                if (lvFreeHead(segment) != head) {
                    continue; // a release refilled the list while the frontier was looked at
                }
                return onExhausted();
            }
            final long base = slotBase(index);
            // opaque: may race with a concurrent pop+push of this slot; the versioned CAS rejects any stale value
            final int next = (int) INT.getOpaque(segment, base + FREE_NEXT_FIELD);
            final long newHead = ((head & ~INDEX_MASK) + VERSION_ONE) | (next & INDEX_MASK);
            if (casFreeHead(segment, head, newHead)) {
                return handOut(segment, base, index);
            }
        }
    }

    /** Resets the header of a slot the caller just took, and marks it in use. */
    private static int handOut(final MemorySegment segment, final long base, final int index) {
        segment.set(ValueLayout.JAVA_INT, base + DATA_OFFSET_FIELD, DEFAULT_DATA_OFFSET);
        segment.set(ValueLayout.JAVA_INT, base + DATA_LENGTH_FIELD, 0);
        // release: a releaser on another thread that reads IN_USE also sees the header reset above
        INT.setRelease(segment, base + STATE_FIELD, STATE_IN_USE);
        return index;
    }

    /** @return the frontier's slot, now the caller's (the frontier moved past it), or NO_SLOT if none is left */
    private int claimFresh(final MemorySegment segment) {
        while (true) {
            final int f = lvFrontier(segment);
            if (f >= slotCount) {
                return NO_SLOT;
            }
            if (INT.compareAndSet(segment, FRONTIER_OFFSET, f, f + 1)) {
                return f;
            }
        }
    }

    /**
     * Returns a slot to the pool. The caller gives up ownership; the index must not be used afterwards.
     *
     * @param index a slot index the caller owns
     * @return true if released; false if the index is foreign or already free (counted, or thrown when strict)
     * @throws IllegalStateException if ownership is strict and the release is invalid
     */
    public boolean release(final int index) {
        if (index < 0 || index >= slotCount) {
            return onInvalidRelease(index, "is not a slot of this pool");
        }
        final MemorySegment segment = this.segment;
        if (index >= lvFrontier(segment)) {
            // never handed out: free, and not to be touched (its page may not even be resident)
            return onInvalidRelease(index, "is already free (never handed out)");
        }
        final long base = slotBase(index);
        // CAS: of two racing releases of the same index exactly one wins, so the free list never holds it twice
        if (!INT.compareAndSet(segment, base + STATE_FIELD, STATE_IN_USE, STATE_FREE)) {
            return onInvalidRelease(index, "is already free (double release)");
        }
        while (true) {
            final long head = lvFreeHead(segment);
            // plain: published to the next popper by the CAS below
            segment.set(ValueLayout.JAVA_INT, base + FREE_NEXT_FIELD, (int) head);
            final long newHead = ((head & ~INDEX_MASK) + VERSION_ONE) | (index & INDEX_MASK);
            if (casFreeHead(segment, head, newHead)) {
                return true;
            }
        }
    }

    /**
     * Counts slots currently owned by someone. A scan over every slot header: meant for leak checks, stats and
     * tests, not for the packet path. Exact once all agents are quiescent, approximate while they run.
     *
     * @return number of slots in use
     */
    public int inUse() {
        int count = 0;
        final int used = lvFrontier(segment); // the slots above were never handed out
        for (int i = 0; i < used; i++) {
            if ((int) INT.getAcquire(segment, slotBase(i) + STATE_FIELD) == STATE_IN_USE) {
                count++;
            }
        }
        return count;
    }

    /**
     * Tells whether a slot is currently owned (in use).
     *
     * @param index a slot index in range
     * @return true if the slot is out of the free list
     */
    public boolean isInUse(final int index) {
        return checkIndex(index) < lvFrontier(segment)
                && (int) INT.getAcquire(segment, slotBase(index) + STATE_FIELD) == STATE_IN_USE;
    }

    /**
     * The frontier: how many distinct slots have ever been handed out. Only their pages (and the pool's first,
     * header page) can have become resident; the other slots were never touched.
     *
     * @return 0 to {@link #capacity()}
     */
    public int slotsEverUsed() {
        return lvFrontier(segment);
    }

    /** @return how many {@link #acquire()} calls found the pool empty (each one a dropped packet) */
    public long exhaustedCount() {
        return (long) LONG.getVolatile(segment, EXHAUSTED_COUNT_OFFSET);
    }

    /** @return how many releases were refused (foreign index or double release) */
    public long invalidReleaseCount() {
        return (long) LONG.getVolatile(segment, INVALID_RELEASE_COUNT_OFFSET);
    }

    /**
     * The slot's own view, built once at startup; slicing it further allocates, so packet code should go through
     * a {@link PacketView} or pass this segment with offsets.
     *
     * @param index a slot index in range
     * @return the segment covering exactly this slot ({@link #slotStrideBytes()} bytes)
     */
    public MemorySegment slotSegment(final int index) {
        return slots[index];
    }

    /** @return a new flyweight over this pool; create one per owner agent at startup and reuse it */
    public PacketView newView() {
        return new PacketView(this);
    }

    /** @return the number of slots */
    public int capacity() {
        return slotCount;
    }

    /** @return the largest MTU the slots were sized for */
    public int maxMtuBytes() {
        return maxMtuBytes;
    }

    /** @return the size of one slot including header, headroom, data, tailroom and padding */
    public int slotStrideBytes() {
        return slotStrideBytes;
    }

    /** @return whether invalid releases throw */
    public boolean strictOwnership() {
        return strictOwnership;
    }

    /** Frees the off-heap segment. Every agent using the pool must have stopped. */
    @Override
    public void close() {
        arena.close();
    }

    private long slotBase(final int index) {
        return SLOTS_OFFSET + (long) index * slotStrideBytes;
    }

    private int checkIndex(final int index) {
        if (index < 0 || index >= slotCount) {
            throw new IndexOutOfBoundsException("slot " + index + " not in [0, " + slotCount + ")");
        }
        return index;
    }

    private static int lvFrontier(final MemorySegment segment) {
        return (int) INT.getAcquire(segment, FRONTIER_OFFSET);
    }

    private static long lvFreeHead(final MemorySegment segment) {
        return (long) LONG.getAcquire(segment, FREE_HEAD_OFFSET);
    }

    private static boolean casFreeHead(final MemorySegment segment, final long expected, final long update) {
        return LONG.compareAndSet(segment, FREE_HEAD_OFFSET, expected, update);
    }

    private int onExhausted() {
        LONG.getAndAdd(segment, EXHAUSTED_COUNT_OFFSET, 1L);
        return NO_SLOT;
    }

    private boolean onInvalidRelease(final int index, final String why) {
        LONG.getAndAdd(segment, INVALID_RELEASE_COUNT_OFFSET, 1L);
        if (strictOwnership) {
            throw new IllegalStateException("release of slot " + index + " refused: it " + why);
        }
        return false;
    }
}
