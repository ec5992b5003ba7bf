package net.fips.control.node;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nostr.AdvertCache;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.OpenDiscoverySweep;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.RelayPool;
import net.fips.control.nostr.TraversalStarter;

/**
 * Renders {@code show_nostr} from the runtime (relays, our advert, cached adverts, failure records, counters), the
 * traversal engine and {@link NostrDiscovery}'s peers and sweeps. Called on the control thread once per tick; the
 * object it returns is published as is and never changed afterwards.
 */
final class NostrStatusView {
    private final NodeIdentity identity;
    private final NostrConfig nc;
    private final NostrRuntime runtime;
    private final TraversalStarter traversal;
    /** The node's traversal engine, or null (a test's starter, or no adoption slots). */
    private final NatTraversal nat;

    NostrStatusView(final NodeIdentity identity, final NostrConfig nc, final NostrRuntime runtime,
            final TraversalStarter traversal, final NatTraversal nat) {
        this.identity = identity;
        this.nc = nc;
        this.runtime = runtime;
        this.traversal = traversal;
        this.nat = nat;
    }

    /**
     * @param peers            the peers discovery dials, in its order
     * @param startupSweepDone whether the startup sweep ran
     * @param startupSweep     its counts, or null
     * @param lastSweep        the latest per-tick sweep that queued a dial, or null
     * @return the {@code show_nostr} object
     */
    ObjectNode render(final Collection<NostrPeerState> peers, final boolean startupSweepDone,
            final OpenDiscoverySweep.Result startupSweep, final OpenDiscoverySweep.Result lastSweep) {
        final JsonNodeFactory f = JsonNodeFactory.instance;
        final ObjectNode o = f.objectNode();
        o.put("enabled", true);
        o.put("npub", identity.npub());
        o.put("app", nc.app());
        o.put("policy", nc.policy().name().toLowerCase(Locale.ROOT));
        o.put("advertise", runtime.advertising());
        final ArrayNode relays = o.putArray("relays");
        for (final RelayPool.RelayView r : runtime.relays()) {
            final ObjectNode n = relays.addObject();
            n.put("url", r.url());
            n.put("state", r.connected() ? "connected" : "disconnected");
            n.put("advert_relay", nc.advertRelays().contains(r.url()));
            n.put("dm_relay", nc.dmRelays().contains(r.url()));
            n.put("connects", r.stats().connects());
            n.put("connect_failures", r.stats().connectFailures());
            n.put("disconnects", r.stats().disconnects());
            n.put("events_delivered", r.stats().eventsDelivered());
            n.put("events_invalid", r.stats().eventsInvalid());
            n.put("events_expired", r.stats().eventsExpired());
            n.put("malformed_messages", r.stats().malformedMessages());
        }
        final ObjectNode ours = o.putObject("our_advert");
        final OverlayAdvert local = runtime.localAdvert();
        endpoints(ours.putArray("endpoints"), local);
        final NostrRuntime.Published pub = runtime.lastPublished();
        if (pub == null) {
            ours.putNull("last_publish_ms");
            ours.putNull("event_id");
            ours.putNull("expires_at_ms");
            ours.putArray("accepted_by");
        } else {
            ours.put("last_publish_ms", pub.atMs());
            ours.put("event_id", pub.eventId());
            ours.put("expires_at_ms", pub.expiresAtMs());
            final ArrayNode by = ours.putArray("accepted_by");
            pub.relays().forEach(by::add);
        }
        final Long relayList = runtime.relayListPublishedMs();
        if (relayList == null) {
            ours.putNull("relay_list_published_ms");
        } else {
            ours.put("relay_list_published_ms", relayList);
        }
        final ArrayNode seen = o.putArray("adverts");
        for (final AdvertCache.Cached c : runtime.adverts()) {
            final ObjectNode n = seen.addObject();
            n.put("npub", c.authorNpub());
            endpoints(n.putArray("endpoints"), c.advert());
            n.put("created_at", c.createdAt());
            n.put("valid_until_ms", c.validUntilMs());
            n.put("event_id", c.eventId());
        }
        final Map<String, FailureState.View> failures = new LinkedHashMap<>();
        runtime.failures().forEach(v -> failures.put(v.npub(), v));
        final ArrayNode dials = o.putArray("dials");
        for (final NostrPeerState p : peers) {
            final ObjectNode n = dials.addObject();
            n.put("npub", p.identity.npub());
            n.put("display_name", p.name);
            n.put("configured", p.config != null);
            if (p.lastEndpoint == null) {
                n.putNull("endpoint");
            } else {
                n.put("endpoint", p.lastEndpoint);
            }
            n.put("outcome", p.outcome);
            if (p.outcomeAtMs == 0) {
                n.putNull("outcome_at_ms");
            } else {
                n.put("outcome_at_ms", p.outcomeAtMs);
            }
            n.put("dials", p.dials);
            final FailureState.View v = failures.get(p.identity.npub());
            n.put("consecutive_failures", v == null ? 0 : v.consecutiveFailures());
            if (v == null || v.cooldownUntilMs() == null) {
                n.putNull("cooldown_until_ms");
            } else {
                n.put("cooldown_until_ms", v.cooldownUntilMs());
            }
        }
        final ArrayNode traversals = o.putArray("traversals");
        if (nat != null) {
            nat.render(traversals);
        }
        final ObjectNode sweeps = o.putObject("open_discovery");
        sweeps.put("startup_sweep_done", startupSweepDone);
        sweep(sweeps, "startup_sweep", startupSweep);
        sweep(sweeps, "last_sweep", lastSweep);
        final ObjectNode counters = o.putObject("counters");
        runtime.counters().forEach(counters::put);
        counters.put("traversals_unavailable", traversal.unavailableCount());
        counters.put("traversal_signals_dropped", nat == null ? 0 : nat.signalsDropped());
        counters.put("traversal_offers_over_sender_allowance", nat == null ? 0 : nat.offersOverSenderAllowance());
        return o;
    }

    /** {@code show_nostr.open_discovery.<name>}: a sweep's counts, or null before one ran. */
    private static void sweep(final ObjectNode out, final String name, final OpenDiscoverySweep.Result r) {
        if (r == null) {
            out.putNull(name);
            return;
        }
        final ObjectNode n = out.putObject(name);
        n.put("at_ms", r.atMs());
        n.put("budget", r.budget());
        n.put("cached", r.cached());
        n.put("queued", r.queued());
        r.skipped().forEach((k, v) -> n.put("skipped_" + k.name().toLowerCase(Locale.ROOT), v));
        n.put("skipped_total", r.skippedTotal());
    }

    private static void endpoints(final ArrayNode out, final OverlayAdvert a) {
        if (a == null) {
            return;
        }
        for (final OverlayAdvert.Endpoint e : a.endpoints()) {
            final ObjectNode n = out.addObject();
            n.put("transport", e.transport());
            n.put("addr", e.addr());
        }
    }

    /** Shown when Nostr discovery is off. */
    static ObjectNode disabled() {
        final ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("enabled", false);
        return o;
    }
}
