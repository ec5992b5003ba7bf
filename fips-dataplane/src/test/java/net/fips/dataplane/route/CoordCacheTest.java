package net.fips.dataplane.route;

import static net.fips.dataplane.route.TreeDistanceTest.a;
import static net.fips.dataplane.route.TreeDistanceTest.c;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

class CoordCacheTest {
    private static final long TTL = 1_000_000_000L;

    @Test
    void expiresLazilyOneNanoAfterTtl() {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(1), c(1, 0), 5_000);
        assertEquals(c(1, 0), cache.get(a(1), 5_000 + TTL));
        assertNull(cache.get(a(1), 5_000 + TTL + 1));
        assertEquals(1, cache.size(), "lazy: still held");
        assertNull(cache.getAndTouch(a(1), 5_000 + TTL + 1));
        assertEquals(0, cache.size(), "get-and-touch removes an expired entry");
    }

    @Test
    void touchRefreshesTtlButPlainGetDoesNot() {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(1), c(1, 0), 0);
        cache.insert(a(2), c(2, 0), 0);
        assertNotNull(cache.get(a(2), TTL / 2));
        assertEquals(c(1, 0), cache.getAndTouch(a(1), TTL / 2));
        assertNotNull(cache.get(a(1), TTL + TTL / 2));
        assertNull(cache.get(a(2), TTL + 1));
    }

    @Test
    void overwriteResetsTtlKeepsCreationAndPathMtu() {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(1), c(1, 0), 1400, 100);
        cache.insert(a(1), c(1, 2, 0), 200);
        final List<CoordCache.Listing> rows = cache.entries(300);
        assertEquals(1, rows.size());
        assertEquals(new CoordCache.Listing(a(1), c(1, 2, 0), 200, TTL - 100, 1400), rows.getFirst());
        cache.insert(a(1), c(1, 2, 0), 1280, 400);
        assertEquals(1280, cache.entries(400).getFirst().pathMtu());
        cache.insert(a(3), c(3, 0), -1, 400);
        assertEquals(0, cache.entry(a(3), 400).pathMtu());
        assertThrows(IllegalArgumentException.class, () -> cache.insert(a(4), Coords.EMPTY, 0));
    }

    @Test
    void evictsAnExpiredEntryFirstElseTheLeastRecentlyUsed() {
        final CoordCache cache = new CoordCache(3, TTL);
        cache.insert(a(1), c(1, 0), 0);
        cache.insert(a(2), c(2, 0), 10);
        cache.insert(a(3), c(3, 0), 20);
        cache.getAndTouch(a(1), 30);
        cache.insert(a(4), c(4, 0), 40);
        assertNull(cache.get(a(2), 40), "oldest last_used evicted");
        assertNotNull(cache.get(a(1), 40), "touched entry survived");
        // a(3) expires first (last used at 20); a(1) (30) and a(4) (40) are alive at 20 + TTL + 1.
        final long later = 20 + TTL + 1;
        cache.getAndTouch(a(1), 35);
        cache.insert(a(5), c(5, 0), later);
        assertNull(cache.get(a(3), 0), "the expired entry is evicted first, not the least recently used alive one");
        assertNotNull(cache.get(a(4), later));
        assertNotNull(cache.get(a(1), later));
        assertEquals(3, cache.size());
    }

    @Test
    void invalidateViaNodeAndOtherRoots() {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(5), c(5, 3, 0), 0);
        cache.insert(a(6), c(6, 4, 0), 0);
        cache.insert(a(3), c(3, 0), 0);
        cache.insert(a(7), c(7, 9), 0);
        assertEquals(2, cache.invalidateVia(a(3)), "entries through 3, and 3 itself");
        assertNull(cache.get(a(5), 0));
        assertNull(cache.get(a(3), 0));
        assertNotNull(cache.get(a(6), 0));
        assertEquals(1, cache.invalidateOtherRoots(a(0)));
        assertNull(cache.get(a(7), 0));
        assertNotNull(cache.get(a(6), 0));
        assertTrue(cache.remove(a(6)));
        assertEquals(0, cache.size());
    }

    @Test
    void viewSeesTouchesFromAnotherThreadAndIsReusedUntilAChange() throws Exception {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(1), c(1, 0), 0);
        cache.insert(a(2), c(2, 0), 0);
        final CoordCache.View view = cache.view();
        assertSame(view, cache.view(), "no change, same view");
        final NodeAddr one = a(1);
        // A data-plane thread routes through the view at TTL/2 ...
        final CoordCache.Entry touched = CompletableFuture.supplyAsync(
                () -> view.getAndTouch(one.hi(), one.lo(), TTL / 2)).get();
        assertNotNull(touched);
        // ... and the owner sees it: a(1) survives past its original expiry, a(2) does not.
        assertNotNull(cache.get(a(1), TTL + 10));
        assertNull(cache.get(a(2), TTL + 10));
        assertEquals(c(2, 0), view.get(a(2), TTL), "view: plain get");
        assertNull(view.get(a(2), TTL + 1), "view checks expiry");
        assertNull(view.getAndTouch(a(9).hi(), a(9).lo(), 0));
        // The owner evicts by the touched time too: a(2) is the least recently used now.
        final CoordCache small = new CoordCache(2, TTL);
        small.insert(a(1), c(1, 0), 0);
        small.insert(a(2), c(2, 0), 5_000_000);
        small.view().getAndTouch(one.hi(), one.lo(), 10_000_000);
        small.insert(a(3), c(3, 0), 20_000_000);
        assertNotNull(small.get(a(1), 20_000_000));
        assertNull(small.get(a(2), 20_000_000));
        // A structural change gives a new view; the old one is unchanged.
        cache.insert(a(3), c(3, 0), 0);
        final CoordCache.View next = cache.view();
        assertEquals(2, view.size());
        assertEquals(3, next.size());
        assertNull(view.get(a(3), 0));
        assertEquals(c(3, 0), next.get(a(3), 0));
    }

    @Test
    void entriesCarryTheBloomHashesOfTheirAddress() {
        final CoordCache cache = new CoordCache(10, TTL);
        cache.insert(a(1), c(1, 0), 0);
        final CoordCache.Entry e = cache.entry(a(1), 0);
        final long[] h = BloomFilter.baseHashes(a(1).toBytes());
        assertEquals(h[0], e.bloomH1);
        assertEquals(h[1], e.bloomH2);
    }

    @Test
    void viewLookupOverManyEntries() {
        final CoordCache cache = new CoordCache(5000, TTL);
        final Random rnd = new Random(7);
        final NodeAddr[] addrs = new NodeAddr[5000];
        for (int i = 0; i < addrs.length; i++) {
            addrs[i] = NodeAddr.of(rnd.nextLong(), rnd.nextLong());
            cache.insert(addrs[i], Coords.of(addrs[i], NodeAddr.ZERO), 0);
        }
        final CoordCache.View view = cache.view();
        for (final NodeAddr x : addrs) {
            assertEquals(x, view.get(x.hi(), x.lo(), 0).addr());
        }
        assertNull(view.get(1, 2, 0));
    }
}
