package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The per-source 100 ms PTB interval, driven by a manual clock. */
class PtbRateLimiterTest {
    private static final long MS = 1_000_000L;
    private static final long A_HI = 0xfd00_0000_0000_0000L;

    @Test
    void firstAllowedThenLimitedUntilTheIntervalPasses() {
        final PtbRateLimiter l = new PtbRateLimiter();
        final long t0 = 5_000 * MS;
        assertTrue(l.shouldSend(A_HI, 1, t0));
        assertFalse(l.shouldSend(A_HI, 1, t0));
        assertFalse(l.shouldSend(A_HI, 1, t0 + 99 * MS));
        assertFalse(l.shouldSend(A_HI, 1, t0 + 100 * MS - 1));
        assertTrue(l.shouldSend(A_HI, 1, t0 + 100 * MS));
        assertFalse(l.shouldSend(A_HI, 1, t0 + 150 * MS));
        assertTrue(l.shouldSend(A_HI, 1, t0 + 200 * MS));
    }

    @Test
    void refusalsDoNotExtendTheWindow() {
        final PtbRateLimiter l = new PtbRateLimiter();
        assertTrue(l.shouldSend(A_HI, 1, 0));
        for (long t = 10 * MS; t < 100 * MS; t += 10 * MS) {
            assertFalse(l.shouldSend(A_HI, 1, t));
        }
        assertTrue(l.shouldSend(A_HI, 1, 100 * MS));
    }

    @Test
    void sourcesAreIndependent() {
        final PtbRateLimiter l = new PtbRateLimiter();
        assertTrue(l.shouldSend(A_HI, 1, 0));
        assertTrue(l.shouldSend(A_HI, 2, 0));
        assertTrue(l.shouldSend(A_HI + 1, 1, 0), "hi half matters too");
        assertFalse(l.shouldSend(A_HI, 1, MS));
        assertFalse(l.shouldSend(A_HI, 2, MS));
        assertFalse(l.shouldSend(A_HI + 1, 1, MS));
    }

    @Test
    void manySourcesWithinCapacityAreTrackedExactly() {
        final PtbRateLimiter l = new PtbRateLimiter(4096, 100 * MS);
        for (int i = 0; i < 500; i++) {
            assertTrue(l.shouldSend(A_HI, i, 0));
        }
        int refused = 0;
        for (int i = 0; i < 500; i++) {
            if (!l.shouldSend(A_HI, i, 50 * MS)) {
                refused++;
            }
        }
        assertEquals(500, refused, "every source seen 50 ms ago is limited");
        for (int i = 0; i < 500; i++) {
            assertTrue(l.shouldSend(A_HI, i, 100 * MS));
        }
    }

    @Test
    void overflowErrsTowardsSending() {
        final PtbRateLimiter l = new PtbRateLimiter(8, 100 * MS);
        assertEquals(8, l.capacity());
        for (int i = 0; i < 8; i++) {
            assertTrue(l.shouldSend(A_HI, i, i));
        }
        assertTrue(l.shouldSend(A_HI, 100, 10), "a ninth source evicts the oldest entry");
        assertTrue(l.shouldSend(A_HI, 0, 11), "the evicted source is allowed again");
        assertFalse(l.shouldSend(A_HI, 100, 12));
        // stale entries are reused before anything fresh is evicted
        assertTrue(l.shouldSend(A_HI, 200, 200 * MS));
        for (int i = 1; i < 8; i++) {
            assertTrue(l.shouldSend(A_HI, i, 200 * MS + i));
        }
        assertFalse(l.shouldSend(A_HI, 200, 200 * MS + 9));
    }

    @Test
    void capacityRoundsUpAndArgumentsAreChecked() {
        assertEquals(1024, new PtbRateLimiter().capacity());
        assertEquals(2048, new PtbRateLimiter(1025, 1).capacity());
        assertEquals(8, new PtbRateLimiter(1, 1).capacity());
        assertThrows(IllegalArgumentException.class, () -> new PtbRateLimiter(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new PtbRateLimiter(8, -1));
    }
}
