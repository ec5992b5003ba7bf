package net.fips.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The pool of discovery-gateway.md §4.3 on a hand-driven clock, with the lifetime fixes of ADR 0049. */
class VirtualPoolTest {
    private static final long TTL = 60;
    private static final long GRACE = 60;
    private static final long TICK = 10_000;

    private final Set<Inet6Address> busy = new HashSet<>();
    private final VirtualPool.TrafficProbe probe = vip -> new VirtualPool.Activity(busy.contains(vip), -1);

    static Inet6Address v6(final String s) {
        try {
            return (Inet6Address) InetAddress.getByName(s);
        } catch (final UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static VirtualPool pool(final String cidr) {
        return new VirtualPool(PoolCidr.parse(cidr), TTL, GRACE);
    }

    @Test
    void sizesAndFirstAddressAreTheReferences() {
        assertEquals(255, PoolCidr.parse("fd01::/120").size());
        assertEquals(3, PoolCidr.parse("fd01::/126").size());
        assertEquals(65_535, PoolCidr.parse("fd01::/112").size());
        assertEquals(65_535, PoolCidr.parse("fd01::/64").size());
        assertEquals(1, PoolCidr.parse("fd01::/127").size());
        assertEquals(v6("fd01::1"), PoolCidr.parse("fd01::/112").address(0));
        assertEquals(v6("fd01::ffff"), PoolCidr.parse("fd01::/112").address(65_534));
        assertEquals(v6("fd01::101"), PoolCidr.parse("fd01::100/120").address(0));
    }

    @Test
    void badCidrsAreRejectedWithTheReason() {
        for (final String bad : List.of("fd01::", "fd01::/0", "fd01::/129", "fd01::/x", "10.0.0.0/8", "host/64",
                "/64")) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PoolCidr.parse(bad));
            assertFalse(e.getMessage().isEmpty(), bad);
        }
    }

    @Test
    void allocationIsIdempotentPerMeshAddressAndExhausts() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        final VirtualPool.Allocation a = p.allocate(v6("fd12::1"), "a.fips", 0);
        assertEquals(new VirtualPool.Allocation(v6("fd01::1"), true), a);
        assertEquals(new VirtualPool.Allocation(v6("fd01::1"), false), p.allocate(v6("fd12::1"), "a.fips", 5));
        assertEquals(v6("fd01::2"), p.allocate(v6("fd12::2"), "b.fips", 5).virtualIp());
        assertEquals(v6("fd01::3"), p.allocate(v6("fd12::3"), "c.fips", 5).virtualIp());
        final VirtualPool.ExhaustedException e = assertThrows(VirtualPool.ExhaustedException.class,
                () -> p.allocate(v6("fd12::4"), "d.fips", 5));
        assertEquals("pool exhausted (3 addresses in use)", e.getMessage());
        assertEquals(new VirtualPool.Status(3, 3, 0, 0, 0), p.status());
    }

    @Test
    void nodeKeyIsMeshBytesOneToFifteenAndAZero() {
        assertEquals("123456789abcdef0112233445566ee00",
                VirtualPool.nodeKey(v6("fd12:3456:789a:bcde:f011:2233:4455:66ee")));
    }

    @Test
    void anIdleAllocationDrainsAfterTtlAndIsFreedAfterGrace() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        p.allocate(v6("fd12::1"), "a.fips", 0);
        long t = 0;
        for (; t <= TTL * 1000; t += TICK) {
            assertEquals(List.of(), p.tick(t, probe));
            assertEquals(VirtualPool.State.ALLOCATED, p.mappings(t).getFirst().state(), "at " + t);
        }
        assertEquals(List.of(), p.tick(t, probe)); // 70 s: idle > 60 s
        assertEquals(VirtualPool.State.DRAINING, p.mappings(t).getFirst().state());
        final long drainStart = t;
        for (t += TICK; t <= drainStart + GRACE * 1000; t += TICK) {
            assertEquals(List.of(), p.tick(t, probe));
        }
        final List<VirtualPool.Mapping> freed = p.tick(t, probe);
        assertEquals(1, freed.size());
        assertEquals(v6("fd01::1"), freed.getFirst().virtualIp());
        assertEquals(new VirtualPool.Status(3, 0, 0, 0, 3), p.status());
        // freed addresses go to the back of the free list
        assertEquals(v6("fd01::2"), p.allocate(v6("fd12::9"), "z.fips", t).virtualIp());
    }

    @Test
    void continuousTrafficIsNeverReclaimed() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        final Inet6Address vip = p.allocate(v6("fd12::1"), "a.fips", 0).virtualIp();
        busy.add(vip);
        for (long t = 0; t < 3_600_000; t += TICK) {
            assertEquals(List.of(), p.tick(t, probe), "at " + t);
            assertEquals(VirtualPool.State.ACTIVE, p.mappings(t).getFirst().state());
        }
    }

    @Test
    void conntrackSessionsAloneKeepAMapping() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        p.allocate(v6("fd12::1"), "a.fips", 0);
        for (long t = 0; t < 600_000; t += TICK) {
            assertEquals(List.of(), p.tick(t, vip -> new VirtualPool.Activity(false, 2)));
        }
        assertEquals(2, p.mappings(600_000).getFirst().sessions());
    }

    @Test
    void activeThenIdleDrainsAndTrafficRecoversWithAFreshGrace() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        final Inet6Address vip = p.allocate(v6("fd12::1"), "a.fips", 0).virtualIp();
        busy.add(vip);
        p.tick(0, probe);
        assertEquals(VirtualPool.State.ACTIVE, p.mappings(0).getFirst().state());
        busy.clear();
        long t = TICK;
        while (p.mappings(t).getFirst().state() == VirtualPool.State.ACTIVE) {
            p.tick(t, probe);
            t += TICK;
        }
        assertEquals(VirtualPool.State.DRAINING, p.mappings(t).getFirst().state());
        p.tick(t + 50_000, probe); // 50 s into the grace period
        busy.add(vip);
        p.tick(t + 55_000, probe);
        assertEquals(VirtualPool.State.ACTIVE, p.mappings(t).getFirst().state());
        busy.clear();
        // drains again after a full TTL, then gets a whole new grace window
        final long resumed = t + 55_000;
        long u = resumed + TICK;
        while (p.mappings(u).getFirst().state() == VirtualPool.State.ACTIVE) {
            p.tick(u, probe);
            u += TICK;
        }
        final long drain2 = u - TICK;
        assertEquals(List.of(), p.tick(drain2 + GRACE * 1000, probe));
        assertEquals(1, p.tick(drain2 + GRACE * 1000 + 1, probe).size());
    }

    @Test
    void aDnsLookupOfADrainingMappingKeepsItForAnotherTtl() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        p.allocate(v6("fd12::1"), "a.fips", 0);
        p.tick(61_000, probe);
        assertEquals(VirtualPool.State.DRAINING, p.mappings(61_000).getFirst().state());
        assertEquals(new VirtualPool.Allocation(v6("fd01::1"), false), p.allocate(v6("fd12::1"), "a.fips", 100_000));
        assertEquals(VirtualPool.State.ALLOCATED, p.mappings(100_000).getFirst().state());
        assertEquals(List.of(), p.tick(130_000, probe)); // the reference would free it here (drain 61 s + 60 s)
        assertEquals(List.of(), p.tick(160_000, probe));
        assertEquals(VirtualPool.State.ALLOCATED, p.mappings(160_000).getFirst().state());
        p.tick(161_000, probe);
        assertEquals(VirtualPool.State.DRAINING, p.mappings(161_000).getFirst().state());
    }

    @Test
    void mappingViewCarriesAgesAndName() throws Exception {
        final VirtualPool p = pool("fd01::/126");
        p.allocate(v6("fd12::1"), "a.fips", 1_000);
        p.allocate(v6("fd12::1"), "a.fips", 4_000);
        final VirtualPool.Mapping m = p.mappings(10_500).getFirst();
        assertEquals("a.fips", m.dnsName());
        assertEquals(9, m.ageSecs());
        assertEquals(6, m.lastRefSecs());
        assertEquals(-1, m.sessions());
        assertTrue(m.nodeKey().endsWith("0100"), m.nodeKey());
    }
}
