package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.NodeAddr;

/** The identity cache: 15-byte prefix key, LRU order, capacity. */
class IdentityCacheTest {
    static List<PeerIdentity> peers(final int n, final long seed) throws IdentityFormatException {
        final Random rnd = new Random(seed);
        final List<PeerIdentity> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(TestIdentities.random(rnd).toPeer());
        }
        return out;
    }

    @Test
    void defaultCapacityIsTheReferences() {
        assertEquals(10_000, new IdentityCache().capacity());
        assertThrows(IllegalArgumentException.class, () -> new IdentityCache(0));
    }

    @Test
    void lookupMatchesOnTheFifteenBytePrefix() throws Exception {
        final PeerIdentity p = peers(1, 1).getFirst();
        final IdentityCache c = new IdentityCache();
        c.register(p, 5);
        final NodeAddr a = p.nodeAddr();
        final NodeAddr lastByteDiffers = NodeAddr.of(a.hi(), a.lo() ^ 0xFF);
        final NodeAddr byte14Differs = NodeAddr.of(a.hi(), a.lo() ^ 0x100);
        assertSame(p, c.lookup(lastByteDiffers, 6).identity());
        assertEquals(a, c.lookup(a, 7).nodeAddr(), "the full registered address is kept");
        assertNull(c.lookup(byte14Differs, 7));
        assertTrue(c.contains(lastByteDiffers));
        assertFalse(c.contains(byte14Differs));
        assertEquals(p, c.lookup(p.address(), 8).identity(), "FIPS IPv6 address finds the same entry");
        assertEquals(8, c.entries().getFirst().lastSeenNanos(), "lookups refresh last-seen");
        assertTrue(c.remove(lastByteDiffers));
        assertEquals(0, c.size());
    }

    @Test
    void evictsTheLeastRecentlyUsed() throws Exception {
        final List<PeerIdentity> p = peers(4, 2);
        final IdentityCache c = new IdentityCache(3);
        c.register(p.get(0), 0);
        c.register(p.get(1), 1);
        c.register(p.get(2), 2);
        c.lookup(p.get(0).nodeAddr(), 3); // 0 is now most recent; 1 is the eldest
        assertTrue(c.contains(p.get(1).nodeAddr())); // contains() does not touch
        c.register(p.get(3), 4);
        assertEquals(3, c.size());
        assertFalse(c.contains(p.get(1).nodeAddr()));
        assertTrue(c.contains(p.get(0).nodeAddr()));
        // Re-registering refreshes 2, so 0 (touched at 3) is the eldest when 1 comes back.
        c.register(p.get(2), 5);
        c.register(p.get(1), 6);
        assertFalse(c.contains(p.get(0).nodeAddr()), "0 (touched at 3) was the eldest after 2 re-registered at 5");
        assertEquals(List.of(p.get(3), p.get(2), p.get(1)),
                c.entries().stream().map(IdentityCache.Entry::identity).toList());
    }
}
