package net.fips.dataplane.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SpscSlotRingTest {
    private static final int PACKETS = 1_000_000;

    @Test
    void shouldRejectCapacitiesThatAreNotPowersOfTwo() {
        for (final int bad : new int[] {0, 1, 3, 100, -4, SpscSlotRing.MAX_CAPACITY * 2}) {
            assertThrows(IllegalArgumentException.class, () -> new SpscSlotRing(bad), "capacity " + bad);
            assertThrows(IllegalArgumentException.class, () -> new MpscSlotRing(bad), "capacity " + bad);
        }
    }

    @Test
    void shouldKeepFifoOrderAcrossManyLapsAndReportFullAndEmpty() {
        {
            final SpscSlotRing ring = new SpscSlotRing(8);
            assertEquals(SpscSlotRing.EMPTY, ring.poll());
            assertTrue(ring.isEmpty());
            int next = 0;
            int expected = 0;
            for (int lap = 0; lap < 100; lap++) {
                while (ring.offer(next)) {
                    next++;
                }
                assertEquals(8, ring.size());
                assertFalse(ring.offer(12345));
                final int take = 1 + lap % 8;
                for (int i = 0; i < take; i++) {
                    assertEquals(expected++, ring.poll());
                }
            }
            while (!ring.isEmpty()) {
                assertEquals(expected++, ring.poll());
            }
            assertEquals(next, expected);
            assertEquals(SpscSlotRing.EMPTY, ring.poll());
            assertThrows(IllegalArgumentException.class, () -> ring.offer(-1));
        }
    }

    @Test
    void shouldDrainInBatchesUpToTheLimit() {
        {
            final SpscSlotRing ring = new SpscSlotRing(16);
            for (int i = 0; i < 10; i++) {
                assertTrue(ring.offer(100 + i));
            }
            final int[] batch = new int[32];
            assertEquals(4, ring.drainTo(batch, 4));
            assertEquals(103, batch[3]);
            assertEquals(6, ring.drainTo(batch));
            for (int i = 0; i < 6; i++) {
                assertEquals(104 + i, batch[i]);
            }
            assertEquals(0, ring.drainTo(batch));
            for (int i = 0; i < 16; i++) {
                assertTrue(ring.offer(i));
            }
            assertEquals(16, ring.drainTo(batch));
            assertEquals(15, batch[15]);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldHandMillionPacketsFromProducerToConsumerInOrder() throws Exception {
        final SpscSlotRing ring = new SpscSlotRing(256);
        try (PacketPool pool = new PacketPool(1024, 1500, true)) {
            final Concurrently.Task producer = deadline -> {
                final PacketView view = pool.newView();
                for (long seq = 0; seq < PACKETS; seq++) {
                    final int slot = pool.acquire();
                    if (slot == PacketPool.NO_SLOT) {
                        throw new AssertionError("pool exhausted although at most 258 slots are in flight");
                    }
                    view.wrap(slot).setLength(24);
                    view.putI64Le(0, seq);
                    view.putI64Le(8, ~seq);
                    view.prepend(4);
                    view.putI32Le(0, (int) seq ^ 0x5A5A5A5A);
                    while (!ring.offer(slot)) {
                        deadline.spin("room in the ring");
                    }
                }
            };
            final Concurrently.Task consumer = deadline -> {
                final PacketView view = pool.newView();
                final int[] batch = new int[32];
                long expected = 0;
                while (expected < PACKETS) {
                    final int n;
                    if ((expected & 1) == 0) {
                        final int slot = ring.poll();
                        batch[0] = slot;
                        n = slot == SpscSlotRing.EMPTY ? 0 : 1;
                    } else {
                        n = ring.drainTo(batch);
                    }
                    if (n == 0) {
                        deadline.spin("a packet");
                        continue;
                    }
                    for (int i = 0; i < n; i++) {
                        view.wrap(batch[i]);
                        if (view.length() != 28 || view.getI32Le(0) != ((int) expected ^ 0x5A5A5A5A)
                                || view.getI64Le(4) != expected || view.getI64Le(12) != ~expected) {
                            throw new AssertionError("packet " + expected + " corrupt or out of order: got "
                                    + view.getI64Le(4) + " length " + view.length());
                        }
                        pool.release(batch[i]);
                        expected++;
                    }
                }
            };
            Concurrently.run(TimeUnit.SECONDS.toNanos(100), producer, consumer);
            assertTrue(ring.isEmpty());
            assertEquals(0, pool.inUse());
            assertEquals(0, pool.exhaustedCount());
            assertEquals(0, pool.invalidReleaseCount());
        }
    }
}
