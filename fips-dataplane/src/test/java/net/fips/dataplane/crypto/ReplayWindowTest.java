package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The replay window's acceptance rules, edge by edge, plus a seeded comparison with a naive model. */
class ReplayWindowTest {

    private static ReplayWindow acceptAll(final long... counters) {
        final ReplayWindow w = new ReplayWindow();
        for (final long c : counters) {
            assertTrue(w.check(c), "setup counter " + c + " should be fresh");
            w.accept(c);
        }
        return w;
    }

    @Test
    void firstPacketZeroIsAcceptedExactlyOnce() {
        final ReplayWindow w = new ReplayWindow();
        assertEquals(0, w.highest());
        assertTrue(w.check(0));
        assertTrue(w.check(0), "check alone must not record anything");
        w.accept(0);
        assertFalse(w.check(0));
        assertEquals(0, w.highest());
        assertTrue(w.check(1));
    }

    @Test
    void firstPacketAboveZeroLeavesLowerCountersOpen() {
        final ReplayWindow w = acceptAll(5);
        assertEquals(5, w.highest());
        assertFalse(w.check(5));
        for (long c = 0; c < 5; c++) {
            assertTrue(w.check(c), "counter " + c);
        }
        w.accept(0);
        assertFalse(w.check(0));
        assertTrue(w.check(1));
    }

    @Test
    void duplicatesInsideTheWindowAreRefused() {
        final ReplayWindow w = acceptAll(1, 2, 3, 10, 7);
        for (final long c : new long[] {1, 2, 3, 7, 10}) {
            assertFalse(w.check(c), "duplicate " + c);
        }
        for (final long c : new long[] {0, 4, 5, 6, 8, 9, 11}) {
            assertTrue(w.check(c), "fresh " + c);
        }
        assertEquals(10, w.highest());
    }

    @Test
    void outOfOrderArrivalWithinWindowIsAccepted() {
        final ReplayWindow w = acceptAll(100, 50, 99, 1);
        assertEquals(100, w.highest());
        assertFalse(w.check(50));
        assertFalse(w.check(99));
        assertFalse(w.check(1));
        assertTrue(w.check(51));
    }

    @Test
    void exactlyAtTheWindowEdge() {
        final long h = 5000;
        final ReplayWindow w = acceptAll(h);
        assertTrue(w.check(h - (ReplayWindow.SIZE - 1)), "oldest counter inside the window");
        assertFalse(w.check(h - ReplayWindow.SIZE), "first counter outside the window is too old");
        assertFalse(w.check(0));
        w.accept(h - (ReplayWindow.SIZE - 1));
        assertFalse(w.check(h - (ReplayWindow.SIZE - 1)));
        // One step forward pushes that oldest entry out: it is now too old rather than a duplicate.
        w.accept(h + 1);
        assertFalse(w.check(h - (ReplayWindow.SIZE - 1)));
        assertTrue(w.check(h - (ReplayWindow.SIZE - 2)));
    }

    @Test
    void farJumpClearsEverything() {
        final ReplayWindow w = acceptAll(0, 1, 2, 3);
        w.accept(1_000_000);
        assertEquals(1_000_000, w.highest());
        assertFalse(w.check(1_000_000));
        assertFalse(w.check(3), "far below the window");
        assertTrue(w.check(1_000_000 - 1));
        assertTrue(w.check(1_000_000 - (ReplayWindow.SIZE - 1)));
        assertFalse(w.check(1_000_000 - ReplayWindow.SIZE));
    }

    @Test
    void jumpOfExactlyWindowSizeAndOneLess() {
        final ReplayWindow a = acceptAll(100);
        a.accept(100 + ReplayWindow.SIZE);
        assertFalse(a.check(100), "shift == SIZE: old entry is now too old");
        assertTrue(a.check(101), "inside the window and never seen");

        final ReplayWindow b = acceptAll(100);
        b.accept(100 + ReplayWindow.SIZE - 1);
        assertFalse(b.check(100), "shift == SIZE-1: old entry survives in the last bit");
        assertTrue(b.check(101));
    }

    @Test
    void bitsCarryAcrossBitmapWords() {
        // Counters 0..63 fill word 0 exactly; every shift size moves them across word boundaries.
        for (final int shift : new int[] {1, 63, 64, 65, 127, 128, 129, 1000, 1984, 1985, 2047}) {
            final ReplayWindow w = new ReplayWindow();
            for (long c = 0; c < 64; c++) {
                w.accept(c);
            }
            w.accept(63 + shift);
            for (long c = 0; c < 64; c++) {
                final long diff = 63 + shift - c;
                final boolean inWindow = diff < ReplayWindow.SIZE;
                assertFalse(w.check(c), "shift " + shift + " counter " + c + (inWindow ? " duplicate" : " too old"));
            }
            for (long c = 64; c < 63 + shift; c++) {
                final long diff = 63 + shift - c;
                assertEquals(diff < ReplayWindow.SIZE, w.check(c), "shift " + shift + " unseen counter " + c);
            }
            assertFalse(w.check(63 + shift));
        }
    }

    @Test
    void countersAreUnsigned() {
        final ReplayWindow w = acceptAll(Long.MAX_VALUE);
        assertTrue(w.check(Long.MIN_VALUE), "2^63 is above 2^63-1 when unsigned");
        w.accept(Long.MIN_VALUE);
        assertEquals(Long.MIN_VALUE, w.highest());
        assertFalse(w.check(Long.MAX_VALUE), "now one below highest and already seen");
        assertFalse(w.check(0), "far below the window");
        w.accept(-1L);
        assertEquals(-1L, w.highest());
        assertTrue(w.check(-2L));
        assertFalse(w.check(-1L));
        assertFalse(w.check(Long.MAX_VALUE));
    }

    @Test
    void staleAcceptOfATooOldCounterIsIgnored() {
        final ReplayWindow w = acceptAll(10_000);
        w.accept(1);
        assertEquals(10_000, w.highest());
        assertTrue(w.check(9_999));
        assertFalse(w.check(10_000));
    }

    @Test
    void resetAndCopy() {
        final ReplayWindow w = acceptAll(3, 4, 9);
        final ReplayWindow copy = new ReplayWindow();
        copy.copyFrom(w);
        assertEquals(9, copy.highest());
        assertFalse(copy.check(4));
        assertTrue(copy.check(5));
        w.reset();
        assertEquals(0, w.highest());
        assertTrue(w.check(0));
        assertTrue(w.check(4));
        assertFalse(copy.check(4), "the copy is independent");
    }

    @Test
    void checkAndAcceptCombinesBothSteps() {
        final ReplayWindow w = new ReplayWindow();
        assertTrue(w.checkAndAccept(7));
        assertFalse(w.checkAndAccept(7));
        assertTrue(w.checkAndAccept(6));
    }

    /** Random arrival orders, duplicates and jumps against a set-based model of the same rules. */
    @Test
    void matchesANaiveModel() {
        final Random rnd = new Random(0x5eed_2048L);
        for (int run = 0; run < 50; run++) {
            final ReplayWindow w = new ReplayWindow();
            final Set<Long> seen = new HashSet<>();
            long highest = 0;
            long next = 0;
            for (int i = 0; i < 4000; i++) {
                final long c;
                final int kind = rnd.nextInt(10);
                if (kind < 5) {
                    c = next++;
                } else if (kind < 8) {
                    c = Math.max(0, highest - rnd.nextInt(2 * ReplayWindow.SIZE + 10));
                } else if (kind < 9) {
                    c = highest + rnd.nextInt(3 * ReplayWindow.SIZE);
                    next = Math.max(next, c + 1);
                } else {
                    c = highest + ReplayWindow.SIZE - 1 + rnd.nextInt(3);
                    next = Math.max(next, c + 1);
                }
                final boolean want = c > highest || (highest - c < ReplayWindow.SIZE && !seen.contains(c));
                assertEquals(want, w.check(c), "run " + run + " step " + i + " counter " + c + " highest " + highest);
                // Accept only some fresh packets, as if others failed authentication.
                if (want && rnd.nextInt(8) != 0) {
                    w.accept(c);
                    seen.add(c);
                    highest = Math.max(highest, c);
                }
                assertEquals(highest, w.highest());
            }
        }
    }
}
