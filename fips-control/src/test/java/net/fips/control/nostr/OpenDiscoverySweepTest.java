package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;

/**
 * The open-discovery sweep of discovery-gateway.md §1.10: the budget, each skip in the reference's order, the
 * startup sweep's age limit, and the summary line's fields.
 */
class OpenDiscoverySweepTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final String SELF = NodeIdentity.generate().npub();

    /** A node state made of sets; {@code queue} records and accepts unless the npub is in {@code undialable}. */
    private static final class State implements OpenDiscoverySweep.Peers {
        final Set<String> configured = new HashSet<>();
        final Set<String> connected = new HashSet<>();
        final Set<String> pending = new HashSet<>();
        final Set<String> cooldown = new HashSet<>();
        final Set<String> connecting = new HashSet<>();
        final Set<String> undialable = new HashSet<>();
        final List<String> queued = new ArrayList<>();

        @Override public boolean configured(final String npub) { return configured.contains(npub); }
        @Override public boolean connected(final String npub) { return connected.contains(npub); }
        @Override public boolean retryPending(final String npub) { return pending.contains(npub); }
        @Override public boolean inCooldown(final String npub) { return cooldown.contains(npub); }
        @Override public boolean connecting(final String npub) { return connecting.contains(npub); }

        @Override
        public boolean queue(final PeerIdentity peer, final AdvertCache.Cached advert) {
            if (undialable.contains(peer.npub())) {
                return false;
            }
            queued.add(peer.npub());
            return true;
        }
    }

    private static AdvertCache.Cached cached(final String npub, final long ageSecs) {
        return new AdvertCache.Cached(npub, new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1,
                List.of(new OverlayAdvert.Endpoint("udp", "198.18.0.1:2121")), null, null),
                NOW_MS / 1000 - ageSecs, NOW_MS + 3_600_000, "00");
    }

    private static String fresh() {
        return NodeIdentity.generate().npub();
    }

    @Test
    void eachSkipIsCountedUnderTheFirstCheckItFails() {
        final State st = new State();
        final List<AdvertCache.Cached> ads = new ArrayList<>();
        final String old = fresh();
        ads.add(cached(old, 5_000));
        st.configured.add(old);                       // too old wins over configured on the startup sweep
        final String configured = fresh();
        st.configured.add(configured);
        ads.add(cached(configured, 0));
        ads.add(cached("npub1notanpub", 0));
        ads.add(cached(SELF, 0));
        final String connected = fresh();
        st.connected.add(connected);
        st.pending.add(connected);                    // connected wins over pending
        ads.add(cached(connected, 0));
        final String pending = fresh();
        st.pending.add(pending);
        st.cooldown.add(pending);                     // pending wins over cooldown
        ads.add(cached(pending, 0));
        final String cooling = fresh();
        st.cooldown.add(cooling);
        st.connecting.add(cooling);                   // cooldown wins over connecting
        ads.add(cached(cooling, 0));
        final String connecting = fresh();
        st.connecting.add(connecting);
        ads.add(cached(connecting, 0));
        final String undialable = fresh();
        st.undialable.add(undialable);
        ads.add(cached(undialable, 0));
        final String stranger = fresh();
        ads.add(cached(stranger, 3_000));

        final OpenDiscoverySweep.Result r = OpenDiscoverySweep.run(OpenDiscoverySweep.STARTUP, ads, 64, 3600L,
                NOW_MS, SELF, st);
        assertEquals(List.of(stranger), st.queued);
        assertEquals(1, r.queued());
        assertEquals(10, r.cached());
        for (final OpenDiscoverySweep.Skip k : OpenDiscoverySweep.Skip.values()) {
            assertEquals(1, r.skipped().get(k), k::name);
        }
        assertEquals(9, r.skippedTotal());
        assertEquals("caller=startup cached=10 queued=1 skipped_age=1 skipped_configured=1 skipped_invalid_npub=1"
                + " skipped_self=1 skipped_connected=1 skipped_retry_pending=1 skipped_cooldown=1"
                + " skipped_connecting=1 skipped_no_endpoints=1 skipped_total=9", r.summary());
    }

    @Test
    void thePerTickSweepHasNoAgeLimitAndStopsAtTheBudget() {
        final State st = new State();
        final List<AdvertCache.Cached> ads = List.of(cached(fresh(), 100_000), cached(fresh(), 0),
                cached(fresh(), 0));
        final OpenDiscoverySweep.Result r = OpenDiscoverySweep.run(OpenDiscoverySweep.PER_TICK, ads, 2, null,
                NOW_MS, SELF, st);
        assertEquals(2, r.queued());
        assertEquals(List.of(ads.get(0).authorNpub(), ads.get(1).authorNpub()), st.queued);
        assertEquals(0, r.skippedTotal(), "the third was not looked at");
        assertTrue(OpenDiscoverySweep.run(OpenDiscoverySweep.PER_TICK, ads, 0, null, NOW_MS, SELF, new State())
                .queued() == 0);
    }

    @Test
    void theBudgetIsThePendingAllowanceCappedByFreeSlots() {
        assertEquals(60, OpenDiscoverySweep.budget(64, 4, 1000));
        assertEquals(3, OpenDiscoverySweep.budget(64, 4, 3));
        assertEquals(0, OpenDiscoverySweep.budget(64, 70, 3), "more pending than allowed: none, not negative");
        assertEquals(0, OpenDiscoverySweep.budget(64, 0, 0), "no free slot");
    }
}
