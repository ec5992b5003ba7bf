package net.fips.dataplane.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.TimeUnit;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PacketPoolTest {
    @Test
    void shouldAccountForEverySlotAndCountExhaustion() {
        try (PacketPool pool = new PacketPool(64, 1500, true)) {
            final BitSet seen = new BitSet();
            for (int i = 0; i < 64; i++) {
                final int slot = pool.acquire();
                assertTrue(slot >= 0 && slot < 64, "slot " + slot);
                assertFalse(seen.get(slot), "slot handed out twice: " + slot);
                seen.set(slot);
                assertEquals(i + 1, pool.inUse());
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(PacketPool.NO_SLOT, pool.acquire());
            }
            assertEquals(3, pool.exhaustedCount());
            assertEquals(64, pool.inUse());
            for (int slot = seen.nextSetBit(0); slot >= 0; slot = seen.nextSetBit(slot + 1)) {
                assertTrue(pool.release(slot));
            }
            assertEquals(0, pool.inUse());
            assertEquals(0, pool.invalidReleaseCount());
            assertEquals(64, drainAll(pool).cardinality());
            assertEquals(4, pool.exhaustedCount());
        }
    }

    @Test
    void shouldRefuseAndCountDoubleReleaseWithoutCorruptingTheFreeList() {
        try (PacketPool pool = new PacketPool(8, 1280, false)) {
            final int a = pool.acquire();
            final int b = pool.acquire();
            assertTrue(pool.release(a));
            assertFalse(pool.release(a));
            assertFalse(pool.release(-1));
            assertFalse(pool.release(8));
            assertEquals(3, pool.invalidReleaseCount());
            assertEquals(1, pool.inUse());
            final BitSet free = drainAll(pool);
            assertEquals(7, free.cardinality(), "a double push would hand a slot out twice");
            assertFalse(free.get(b));
        }
    }

    @Test
    void shouldThrowOnInvalidReleaseWhenStrict() {
        try (PacketPool pool = new PacketPool(4, 1280, true)) {
            final int a = pool.acquire();
            pool.release(a);
            assertThrows(IllegalStateException.class, () -> pool.release(a));
            assertThrows(IllegalStateException.class, () -> pool.release(4));
            assertEquals(2, pool.invalidReleaseCount());
            assertThrows(IllegalStateException.class, () -> pool.newView().wrap(a));
        }
    }

    @Test
    void shouldValidateSizes() {
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(0, 1500));
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(PacketPool.MAX_SLOT_COUNT + 1, 1500));
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(4, SlotDescriptor.MIN_MTU_BYTES - 1));
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(4, SlotDescriptor.MAX_MTU_BYTES + 1));
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(PacketPool.MAX_SLOT_COUNT, 65535));
        try (PacketPool pool = new PacketPool(4, 65535)) {
            assertEquals(SlotDescriptor.slotStrideBytes(65535), pool.slotStrideBytes());
            assertTrue(pool.slotStrideBytes() >= SlotDescriptor.DEFAULT_DATA_OFFSET + 65535 + 32);
        }
    }

    @Test
    void shouldResetMetadataOnAcquireAndReuseTheWarmestSlot() {
        try (PacketPool pool = new PacketPool(4, 1500, true)) {
            final PacketView view = pool.newView();
            final int slot = pool.acquire();
            view.wrap(slot).setLength(100);
            view.prepend(20);
            pool.release(slot);
            assertEquals(slot, pool.acquire(), "LIFO free list");
            view.wrap(slot);
            assertEquals(SlotDescriptor.DEFAULT_DATA_OFFSET, view.dataOffset());
            assertEquals(0, view.length());
        }
    }

    @Test
    void shouldGiveEachSlotItsOwnNonOverlappingMemory() {
        try (PacketPool pool = new PacketPool(16, 1280, true)) {
            for (int i = 0; i < 16; i++) {
                pool.slotSegment(i).fill((byte) i);
            }
            for (int i = 0; i < 16; i++) {
                final MemorySegment slot = pool.slotSegment(i);
                assertEquals(pool.slotStrideBytes(), slot.byteSize());
                assertEquals(0, slot.address() % SlotDescriptor.CACHE_LINE_BYTES);
                assertEquals((byte) i, slot.get(ValueLayout.JAVA_BYTE, 0));
                assertEquals((byte) i, slot.get(ValueLayout.JAVA_BYTE, slot.byteSize() - 1));
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldNeverHandOneSlotToTwoThreads() throws Exception {
        final int threads = 4;
        final int rounds = 200_000;
        try (PacketPool pool = new PacketPool(16, 1280, true)) {
            final Concurrently.Task[] tasks = new Concurrently.Task[threads];
            for (int t = 0; t < threads; t++) {
                final int id = t;
                tasks[t] = deadline -> {
                    final PacketView view = pool.newView();
                    for (int r = 0; r < rounds; r++) {
                        int slot;
                        while ((slot = pool.acquire()) == PacketPool.NO_SLOT) {
                            deadline.spin("a free slot");
                        }
                        view.wrap(slot).setLength(8);
                        view.putI32Le(0, id);
                        view.putI32Le(4, r);
                        Thread.onSpinWait();
                        if (view.getI32Le(0) != id || view.getI32Le(4) != r) {
                            throw new AssertionError("slot " + slot + " shared with thread " + view.getI32Le(0));
                        }
                        pool.release(slot);
                    }
                };
            }
            Concurrently.run(TimeUnit.SECONDS.toNanos(100), tasks);
            assertEquals(0, pool.inUse());
            assertEquals(0, pool.invalidReleaseCount());
            assertEquals(16, drainAll(pool).cardinality());
        }
    }

    @Test
    void shouldTakeNeverUsedSlotsOnlyWhenTheFreeListIsEmpty() {
        try (PacketPool pool = new PacketPool(1024, 1500, false)) {
            assertEquals(0, pool.slotsEverUsed());
            assertEquals(0, pool.inUse());
            final int a = pool.acquire();
            assertEquals(1, pool.slotsEverUsed());
            assertTrue(pool.release(a));
            for (int i = 0; i < 100; i++) {
                final int s = pool.acquire();
                assertEquals(a, s, "a released slot is reused before a never-used one");
                assertTrue(pool.release(s));
            }
            assertEquals(1, pool.slotsEverUsed(), "cycling one slot does not move the frontier");
            final int b = pool.acquire();
            final int c = pool.acquire();
            assertEquals(a, b);
            assertTrue(c != a && c >= 0 && c < 1024);
            assertEquals(2, pool.slotsEverUsed());
            // a never-handed-out slot is free: its release is refused and counted, and changes nothing
            assertFalse(pool.isInUse(500));
            assertFalse(pool.release(500));
            assertEquals(1, pool.invalidReleaseCount());
            assertEquals(2, pool.slotsEverUsed());
            assertEquals(2, pool.inUse());
            assertTrue(pool.release(b));
            assertTrue(pool.release(c));
            assertEquals(1024, drainAll(pool).cardinality());
            assertEquals(1024, pool.slotsEverUsed());
        }
    }

    @Test
    void shouldMakeOnlyTheUsedSlotsPagesResident() throws Exception {
        final int slots = 4096; // 8 MiB of 2 KiB slots, two to a 4 KiB page
        try (PacketPool pool = new PacketPool(slots, 1500, true)) {
            final long start = pool.slotSegment(0).address();
            final long end = pool.slotSegment(slots - 1).address() + pool.slotStrideBytes();
            assertTrue(residentPages(start, end) <= 1, "a new pool touches none of its slots");
            final PacketView view = pool.newView();
            for (int i = 0; i < 1000; i++) { // a quiet node: one packet at a time, written in full
                final int s = pool.acquire();
                view.wrap(s).setLength(1400);
                view.slotSegment().asSlice(view.dataOffset(), 1400).fill((byte) 1);
                pool.release(s);
            }
            assertTrue(residentPages(start, end) <= 2, "resident pages after 1000 one-at-a-time uses: "
                    + residentPages(start, end));
            final int[] held = new int[slots];
            for (int i = 0; i < slots; i++) {
                held[i] = pool.acquire();
            }
            final long pages = (end - start) / 4096;
            assertTrue(residentPages(start, end) >= pages - 1, "every slot's header written: all pages resident");
            for (final int s : held) {
                pool.release(s);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldNeverHandOneSlotToTwoThreadsAcrossTheFrontier() throws Exception {
        final int threads = 4;
        final int slots = 64;
        for (int round = 0; round < 200; round++) {
            try (PacketPool pool = new PacketPool(slots, 1280, true)) {
                final AtomicIntegerArray owner = new AtomicIntegerArray(slots);
                final Concurrently.Task[] tasks = new Concurrently.Task[threads];
                for (int t = 0; t < threads; t++) {
                    final int id = t + 1;
                    // each acquires twice and releases once, 14 times: frontier claims, pops and pushes interleave
                    tasks[t] = deadline -> {
                        final int[] mine = new int[16];
                        int n = 0;
                        for (int k = 0; k < 42; k++) { // at most 15 held at once: 60 of 64 for all four
                            if (k % 3 == 2 && n > 0) {
                                final int s = mine[--n];
                                if (!owner.compareAndSet(s, id, 0) || !pool.release(s)) {
                                    throw new AssertionError("slot " + s + " lost its owner");
                                }
                                continue;
                            }
                            final int s = pool.acquire();
                            if (s == PacketPool.NO_SLOT) {
                                throw new AssertionError("empty with at most 60 of 64 slots held");
                            }
                            if (!owner.compareAndSet(s, 0, id)) {
                                throw new AssertionError("slot " + s + " handed to " + id + " while "
                                        + owner.get(s) + " held it");
                            }
                            mine[n++] = s;
                        }
                        while (n > 0) {
                            final int s = mine[--n];
                            owner.set(s, 0);
                            pool.release(s);
                        }
                    };
                }
                Concurrently.run(TimeUnit.SECONDS.toNanos(100), tasks);
                assertEquals(0, pool.inUse());
                assertEquals(0, pool.invalidReleaseCount());
                assertEquals(0, pool.exhaustedCount());
                assertEquals(slots, drainAll(pool).cardinality(), "each slot exactly once");
            }
        }
    }

    /** Pages of [start, end) that are resident, from /proc/self/pagemap (bit 63: present). */
    private static long residentPages(final long start, final long end) throws Exception {
        final long first = start / 4096;
        final long last = (end - 1) / 4096;
        final ByteBuffer buf = ByteBuffer.allocate((int) (last - first + 1) * 8)
                .order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(
                Path.of("/proc/self/pagemap"))) {
            while (buf.hasRemaining()) {
                if (ch.read(buf, first * 8 + buf.position()) < 0) {
                    throw new AssertionError("pagemap ended early");
                }
            }
        }
        buf.flip();
        long present = 0;
        while (buf.hasRemaining()) {
            present += buf.getLong() >>> 63;
        }
        return present;
    }

    @Test
    void shouldDeriveHeadroomFromTheWireHeaderSizes() {
        // routing-session.md §5.10: FIPS_OVERHEAD = 106 counts both tags but neither ports nor link framing
        final int fipsOverhead = SlotDescriptor.FIXED_PREPEND_BYTES - SlotDescriptor.DATA_PACKET_PORTS_BYTES
                - SlotDescriptor.ETHERNET_FRAMING_BYTES + SlotDescriptor.TAILROOM_BYTES;
        assertEquals(106, fipsOverhead);
        // FIPS_IPV6_OVERHEAD = 77: 106 + 4 port bytes - 33 saved by the 7-byte shim replacing the 40-byte header
        assertEquals(77, fipsOverhead + SlotDescriptor.DATA_PACKET_PORTS_BYTES - (40 - 7));
        assertTrue(SlotDescriptor.HEADROOM_BYTES >= SlotDescriptor.REQUIRED_HEADROOM_BYTES);
        assertEquals(0, SlotDescriptor.DEFAULT_DATA_OFFSET % SlotDescriptor.CACHE_LINE_BYTES);
        assertEquals(2048, SlotDescriptor.slotStrideBytes(1500));
    }

    private static BitSet drainAll(final PacketPool pool) {
        final BitSet slots = new BitSet();
        int slot;
        while ((slot = pool.acquire()) != PacketPool.NO_SLOT) {
            assertFalse(slots.get(slot), "slot handed out twice: " + slot);
            slots.set(slot);
        }
        for (int s = slots.nextSetBit(0); s >= 0; s = slots.nextSetBit(s + 1)) {
            pool.release(s);
        }
        return slots;
    }
}
