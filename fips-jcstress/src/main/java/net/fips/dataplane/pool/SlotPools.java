package net.fips.dataplane.pool;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Small {@link PacketPool}s for jcstress states, recycled across states.
 *
 * <p>jcstress builds thousands of states per epoch and never closes them; a pool per state would leak its off-heap
 * segment (a shared arena lives until closed), and closing one per state costs a thread handshake. So a state
 * {@link #take}s a pool and its arbiter {@link #giveBack}s it once it has checked that every slot came back free;
 * a pool that failed that check is closed instead and never reused.
 */
final class SlotPools {
    /** The smallest MTU a pool accepts: slots stay small. */
    static final int MTU = SlotDescriptor.MIN_MTU_BYTES;

    private static final ConcurrentLinkedQueue<PacketPool> ONE = new ConcurrentLinkedQueue<>();
    private static final ConcurrentLinkedQueue<PacketPool> TWO = new ConcurrentLinkedQueue<>();

    private SlotPools() {
    }

    /** @return a pool of {@code slots} (1 or 2) slots, every one free, with non-strict ownership (counted) */
    static PacketPool take(final int slots) {
        final PacketPool p = queue(slots).poll();
        return p != null ? p : new PacketPool(slots, MTU, false);
    }

    /**
     * A new pool, none of whose slots was ever handed out (every acquire meets the frontier until the free list
     * fills). It cannot be recycled for the same purpose, so give it back with {@link #checkAllFreeAndClose}.
     */
    static PacketPool fresh(final int slots) {
        return new PacketPool(slots, MTU, false);
    }

    /**
     * Arbiter only: {@link #checkAllFreeAndGiveBack}'s check for a {@link #fresh} pool, which is then closed (a
     * used pool in the shared queues would grow them without bound).
     *
     * @return true if exactly {@code capacity()} distinct slots came out and then the pool was empty
     */
    static boolean checkAllFreeAndClose(final PacketPool pool) {
        final int n = pool.capacity();
        boolean ok = pool.inUse() == 0;
        ok &= takeAllDistinct(pool, new int[n]);
        ok &= pool.acquire() == PacketPool.NO_SLOT && pool.slotsEverUsed() == n;
        pool.close();
        return ok;
    }

    /**
     * Arbiter only (all actors done): takes every slot back out of the free list and releases it again.
     *
     * @return true if exactly {@code capacity()} distinct slots came out and then the pool was empty; the pool is
     *         then recycled, else closed
     */
    static boolean checkAllFreeAndGiveBack(final PacketPool pool) {
        final int n = pool.capacity();
        boolean ok = pool.inUse() == 0;
        final int[] got = new int[n];
        ok &= takeAllDistinct(pool, got) && pool.acquire() == PacketPool.NO_SLOT;
        if (!ok) {
            pool.close();
            return false;
        }
        for (final int slot : got) {
            pool.release(slot);
        }
        queue(n).offer(pool);
        return true;
    }

    /**
     * Acquires {@code got.length} slots into {@code got}, stopping at the first {@link PacketPool#NO_SLOT}.
     *
     * @return true if that many came out and all were distinct
     */
    private static boolean takeAllDistinct(final PacketPool pool, final int[] got) {
        boolean distinct = true;
        for (int i = 0; i < got.length; i++) {
            final int s = pool.acquire();
            if (s == PacketPool.NO_SLOT) {
                return false;
            }
            for (int j = 0; j < i; j++) {
                distinct &= got[j] != s;
            }
            got[i] = s;
        }
        return distinct;
    }

    /** Plain store into a slot's data area, as packet code writes slot bytes. */
    static void putPayload(final PacketPool pool, final int slot, final long value) {
        pool.slotSegment(slot).set(ValueLayout.JAVA_LONG_UNALIGNED, SlotDescriptor.DEFAULT_DATA_OFFSET, value);
    }

    /** Plain load from a slot's data area. */
    static long payload(final PacketPool pool, final int slot) {
        return pool.slotSegment(slot).get(ValueLayout.JAVA_LONG_UNALIGNED, SlotDescriptor.DEFAULT_DATA_OFFSET);
    }

    /** Plain store of a slot header's data length, as {@link PacketView#setLength} does. */
    static void putLength(final PacketPool pool, final int slot, final int length) {
        final MemorySegment s = pool.slotSegment(slot);
        s.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, length);
    }

    /** Plain load of a slot header's data length. */
    static int length(final PacketPool pool, final int slot) {
        return pool.slotSegment(slot).get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
    }

    private static ConcurrentLinkedQueue<PacketPool> queue(final int slots) {
        return switch (slots) {
            case 1 -> ONE;
            case 2 -> TWO;
            default -> throw new IllegalArgumentException("slots " + slots);
        };
    }
}
