package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.udp.UdpDestination;

/** The dispatch table and the worker's link map against java.util.HashMap as a model (seeded random ops). */
class IndexTableTest {

    @Test
    void indexTableMatchesAModelUnderRandomAddsAndRemoves() {
        final SplittableRandom rnd = new SplittableRandom(42);
        final Map<Long, Long> model = new HashMap<>();
        IndexTable t = IndexTable.EMPTY;
        for (int op = 0; op < 5000; op++) {
            // Small key space so that replacements and removals of present keys are frequent.
            final long key = IndexTable.key(rnd.nextInt(3), rnd.nextInt(200) - 100);
            if (rnd.nextInt(3) == 0) {
                final IndexTable before = t;
                t = t.without(key);
                if (model.remove(key) == null) {
                    assertSame(before, t, "removing an absent key keeps the table");
                }
            } else {
                final long v = rnd.nextLong();
                t = t.with(key, v == IndexTable.MISSING ? 0 : v);
                model.put(key, v == IndexTable.MISSING ? 0 : v);
            }
            assertEquals(model.size(), t.size());
        }
        for (int tr = 0; tr < 3; tr++) {
            for (int idx = -100; idx < 100; idx++) {
                final long key = IndexTable.key(tr, idx);
                assertEquals(model.getOrDefault(key, IndexTable.MISSING), t.get(key));
            }
        }
    }

    @Test
    void keysSeparateTransportsAndUseAllThirtyTwoIndexBits() {
        final IndexTable t = IndexTable.EMPTY.with(IndexTable.key(0, -1), 1).with(IndexTable.key(1, -1), 2)
                .with(IndexTable.key(0, 0), 3);
        assertEquals(1, t.get(IndexTable.key(0, 0xFFFF_FFFF)));
        assertEquals(2, t.get(IndexTable.key(1, -1)));
        assertEquals(3, t.get(IndexTable.key(0, 0)));
        assertEquals(IndexTable.MISSING, t.get(IndexTable.key(2, -1)));
    }

    @Test
    void linkMapMatchesAModel() {
        final SplittableRandom rnd = new SplittableRandom(7);
        final Map<Long, Link> model = new HashMap<>();
        final LinkMap map = new LinkMap();
        final UdpDestination none = null;
        for (int op = 0; op < 5000; op++) {
            final long id = rnd.nextInt(300) - 150;
            if (rnd.nextInt(3) == 0) {
                assertSame(model.remove(id), map.remove(id));
            } else {
                final Link l = new Link(id, 0, none, new LinkSession(1, 2, new byte[32], new byte[32]), 0, 0);
                model.put(id, l);
                map.put(id, l);
            }
            assertEquals(model.size(), map.size());
        }
        for (long id = -150; id < 150; id++) {
            assertSame(model.get(id), map.get(id));
        }
        assertNull(map.get(Long.MAX_VALUE));
    }

    @Test
    void contextRejectsBadSettings() {
        assertThrows(IllegalArgumentException.class, () -> new DataPlaneContext().workerCount(0).conclude());
        assertThrows(IllegalArgumentException.class, () -> new DataPlaneContext().ringCapacity(1000).conclude());
        assertThrows(IllegalArgumentException.class, () -> new DataPlaneContext().ringCapacity(32).conclude());
        assertThrows(IllegalArgumentException.class, () -> new DataPlaneContext().maxMtuBytes(100).conclude());
        assertThrows(IllegalArgumentException.class, () -> new DataPlaneContext().eventQueueCapacity(0).conclude());
        assertThrows(NullPointerException.class, () -> new DataPlaneContext().localDelivery(null).conclude());
        assertEquals(true, new DataPlaneContext().conclude().concluded());
    }
}
