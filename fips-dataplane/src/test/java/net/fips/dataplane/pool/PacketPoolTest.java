package net.fips.dataplane.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
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
