package net.fips.dataplane.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MpscSlotRingTest {
    private static final int PER_PRODUCER = 500_000;

    @Test
    void shouldKeepFifoOrderAndReportFullAndEmpty() {
        {
            final MpscSlotRing ring = new MpscSlotRing(4);
            assertEquals(MpscSlotRing.EMPTY, ring.poll());
            int next = 0;
            int expected = 0;
            for (int lap = 0; lap < 50; lap++) {
                while (ring.offer(next)) {
                    next++;
                }
                assertEquals(4, ring.size());
                assertFalse(ring.offer(7));
                for (int i = 0; i <= lap % 4; i++) {
                    assertEquals(expected++, ring.poll());
                }
            }
            final int[] batch = new int[64];
            final int n = ring.drainTo(batch);
            for (int i = 0; i < n; i++) {
                assertEquals(expected++, batch[i]);
            }
            assertEquals(next, expected);
            assertEquals(0, ring.drainTo(batch, 64));
            assertThrows(IllegalArgumentException.class, () -> ring.offer(-5));
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryPacketOfTwoProducersInPerProducerOrder() throws Exception {
        final MpscSlotRing ring = new MpscSlotRing(256);
        try (PacketPool pool = new PacketPool(1024, 1280, true)) {
            final Concurrently.Task[] tasks = new Concurrently.Task[3];
            for (int p = 0; p < 2; p++) {
                final int producerId = p;
                tasks[p] = deadline -> {
                    final PacketView view = pool.newView();
                    for (int seq = 0; seq < PER_PRODUCER; seq++) {
                        int slot;
                        while ((slot = pool.acquire()) == PacketPool.NO_SLOT) {
                            deadline.spin("a free slot");
                        }
                        view.wrap(slot).setLength(12);
                        view.putI32Le(0, producerId);
                        view.putI32Le(4, seq);
                        view.putI32Le(8, seq * 31 + producerId);
                        while (!ring.offer(slot)) {
                            deadline.spin("room in the inbox");
                        }
                    }
                };
            }
            tasks[2] = deadline -> {
                final PacketView view = pool.newView();
                final int[] nextSeq = new int[2];
                final int[] batch = new int[16];
                int received = 0;
                while (received < 2 * PER_PRODUCER) {
                    final int n = ring.drainTo(batch);
                    if (n == 0) {
                        deadline.spin("a packet");
                        continue;
                    }
                    for (int i = 0; i < n; i++) {
                        view.wrap(batch[i]);
                        final int producerId = view.getI32Le(0);
                        final int seq = view.getI32Le(4);
                        if (view.length() != 12 || seq != nextSeq[producerId]
                                || view.getI32Le(8) != seq * 31 + producerId) {
                            throw new AssertionError("producer " + producerId + " packet " + seq + " expected "
                                    + nextSeq[producerId]);
                        }
                        nextSeq[producerId]++;
                        pool.release(batch[i]);
                        received++;
                    }
                }
            };
            Concurrently.run(TimeUnit.SECONDS.toNanos(100), tasks);
            assertEquals(MpscSlotRing.EMPTY, ring.poll());
            assertEquals(0, ring.size());
            assertEquals(0, pool.inUse());
            assertEquals(0, pool.invalidReleaseCount());
            assertTrue(pool.exhaustedCount() == 0, "at most 2 + 256 + 16 slots are ever in flight");
        }
    }
}
