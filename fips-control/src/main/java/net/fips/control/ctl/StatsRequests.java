package net.fips.control.ctl;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.metrics.Granularity;
import net.fips.control.metrics.NodeMetric;
import net.fips.control.metrics.PeerMetric;
import net.fips.control.metrics.Series;
import net.fips.control.metrics.StatsHistory;
import net.fips.control.metrics.TrackedPeer;

/**
 * The {@code show_stats_*} commands over a {@link StatsView}: parameter handling, the reference's error strings
 * and the reference's response shapes (operator.md §2.3). Used by {@link ControlDispatcher}.
 */
public final class StatsRequests {
    private static final String DEFAULT_WINDOW = "10m";
    private static final String DEFAULT_GRANULARITY = "1s";
    private static final long NS_PER_S = 1_000_000_000L;

    private StatsRequests() {
    }

    /** @return {@code show_stats_list} data */
    public static ObjectNode list() {
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        final ArrayNode metrics = o.putArray("metrics");
        for (final NodeMetric m : NodeMetric.values()) {
            metrics.addObject().put("name", m.wireName()).put("unit", m.unit()).put("scope", "node");
        }
        for (final PeerMetric m : PeerMetric.values()) {
            metrics.addObject().put("name", m.wireName()).put("unit", m.unit()).put("scope", "peer");
        }
        o.put("fast_ring_seconds", StatsHistory.FAST_RING_SECONDS);
        o.put("slow_ring_minutes", StatsHistory.SLOW_RING_MINUTES);
        o.put("peer_retention_seconds", StatsHistory.PEER_RETENTION_SECONDS);
        return o;
    }

    /**
     * {@code show_stats_history}: {@code metric} (required), {@code peer} (npub: the metric is then a peer
     * metric), {@code window} (default 10m), {@code granularity} (default 1s).
     *
     * @param params the request's params, or null
     * @param view   the history
     * @return {@code metric, unit, granularity_seconds, values}
     * @throws ControlException with the reference's messages
     */
    public static ObjectNode history(final JsonNode params, final StatsView view) throws ControlException {
        if (params == null) {
            throw new ControlException("missing params for show_stats_history");
        }
        final String metricName = string(params, "metric")
                .orElseThrow(() -> new ControlException("missing 'metric' parameter"));
        final long window = window(params);
        final Granularity g = granularity(params);
        final Optional<String> npub = string(params, "peer");
        if (npub.isPresent()) {
            final String addr = peerAddr(npub.get());
            final PeerMetric m = PeerMetric.byName(metricName)
                    .orElseThrow(() -> new ControlException("unknown peer metric: " + metricName));
            final Series s = view.history().peerSeries(addr, m, window, g)
                    .orElseThrow(() -> notTracked(view, npub.get(), addr));
            return series(s);
        }
        final NodeMetric m = NodeMetric.byName(metricName)
                .orElseThrow(() -> new ControlException("unknown metric: " + metricName));
        return series(view.history().series(m, window, g));
    }

    /**
     * {@code show_stats_all_history}: every node series, or with {@code peer} every series of that peer.
     *
     * @param params the request's params, or null (all optional)
     * @param view   the history
     * @return {@code granularity_seconds, window_seconds, peer, series[]}
     * @throws ControlException with the reference's messages
     */
    public static ObjectNode allHistory(final JsonNode params, final StatsView view) throws ControlException {
        final JsonNode p = params == null ? ControlJson.MAPPER.createObjectNode() : params;
        final long window = window(p);
        final Granularity g = granularity(p);
        final Optional<String> npub = string(p, "peer");
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        final ArrayNode series = ControlJson.MAPPER.createArrayNode();
        if (npub.isPresent()) {
            final String addr = peerAddr(npub.get());
            if (!view.history().tracks(addr)) {
                throw notTracked(view, npub.get(), addr);
            }
            for (final PeerMetric m : PeerMetric.values()) {
                series.add(series(view.history().peerSeries(addr, m, window, g)
                        .orElseGet(() -> new Series(m.wireName(), m.unit(), g.seconds(), new double[0]))));
            }
        } else {
            for (final NodeMetric m : NodeMetric.values()) {
                series.add(series(view.history().series(m, window, g)));
            }
        }
        o.put("granularity_seconds", g.seconds());
        o.put("window_seconds", window);
        if (npub.isPresent()) {
            o.put("peer", npub.get());
        } else {
            o.putNull("peer");
        }
        o.set("series", series);
        return o;
    }

    /**
     * {@code show_stats_peers}: the peers the history tracks, active ones first, then by display name.
     *
     * @param view the history
     * @return {@code peers[], count}
     */
    public static ObjectNode peers(final StatsView view) {
        final long now = view.nanoClock().getAsLong();
        final List<TrackedPeer> tracked = sorted(view);
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        final ArrayNode arr = o.putArray("peers");
        for (final TrackedPeer t : tracked) {
            arr.addObject().put("npub", t.npub()).put("node_addr", t.nodeAddr())
                    .put("display_name", view.displayNameOf().apply(t.npub())).put("is_active", t.active())
                    .put("first_seen_secs_ago", Math.max(0, (now - t.firstSeenNanos()) / NS_PER_S))
                    .put("last_contact_secs_ago", Math.max(0, (now - t.lastContactNanos()) / NS_PER_S));
        }
        o.put("count", arr.size());
        return o;
    }

    /**
     * {@code show_stats_history_all_peers}: one peer metric for every tracked peer.
     *
     * @param params the request's params, or null
     * @param view   the history
     * @return {@code metric, unit, granularity_seconds, window_seconds, peers[]{node_addr, display_name,
     *         is_active, values}}
     * @throws ControlException with the reference's messages
     */
    public static ObjectNode historyAllPeers(final JsonNode params, final StatsView view) throws ControlException {
        if (params == null) {
            throw new ControlException("missing params for show_stats_history_all_peers");
        }
        final String metricName = string(params, "metric")
                .orElseThrow(() -> new ControlException("missing 'metric' parameter"));
        final PeerMetric m = PeerMetric.byName(metricName)
                .orElseThrow(() -> new ControlException("unknown peer metric: " + metricName));
        final long window = window(params);
        final Granularity g = granularity(params);
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        o.put("metric", m.wireName());
        o.put("unit", m.unit());
        o.put("granularity_seconds", g.seconds());
        o.put("window_seconds", window);
        final ArrayNode arr = o.putArray("peers");
        for (final TrackedPeer t : sorted(view)) {
            final Optional<Series> s = view.history().peerSeries(t.nodeAddr(), m, window, g);
            if (s.isEmpty()) {
                continue;
            }
            final ObjectNode po = arr.addObject().put("node_addr", t.nodeAddr())
                    .put("display_name", view.displayNameOf().apply(t.npub())).put("is_active", t.active());
            po.set("values", values(s.get()));
        }
        return o;
    }

    private static List<TrackedPeer> sorted(final StatsView view) {
        final List<TrackedPeer> tracked = new ArrayList<>(view.history().trackedPeers());
        tracked.sort(Comparator.comparing((TrackedPeer t) -> !t.active())
                .thenComparing(t -> view.displayNameOf().apply(t.npub())));
        return tracked;
    }

    /** A series as the reference serialises it; gaps are null. */
    public static ObjectNode series(final Series s) {
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        o.put("metric", s.metric());
        o.put("unit", s.unit());
        o.put("granularity_seconds", s.granularitySeconds());
        o.set("values", values(s));
        return o;
    }

    private static ArrayNode values(final Series s) {
        final ArrayNode a = ControlJson.MAPPER.createArrayNode();
        for (final double v : s.values()) {
            if (Double.isFinite(v)) {
                a.add(v);
            } else {
                a.addNull();
            }
        }
        return a;
    }

    /** A missing or non-string value counts as absent, as the reference's {@code as_str} does. */
    private static Optional<String> string(final JsonNode params, final String field) {
        final JsonNode v = params.get(field);
        return v != null && v.isTextual() ? Optional.of(v.asText()) : Optional.empty();
    }

    private static long window(final JsonNode params) throws ControlException {
        try {
            return Granularity.parseWindowSeconds(string(params, "window").orElse(DEFAULT_WINDOW));
        } catch (final IllegalArgumentException e) {
            throw new ControlException(e.getMessage());
        }
    }

    private static Granularity granularity(final JsonNode params) throws ControlException {
        try {
            return Granularity.parse(string(params, "granularity").orElse(DEFAULT_GRANULARITY));
        } catch (final IllegalArgumentException e) {
            throw new ControlException(e.getMessage());
        }
    }

    private static String peerAddr(final String npub) throws ControlException {
        try {
            return PeerIdentity.fromNpub(npub).nodeAddr().toString();
        } catch (final IdentityFormatException e) {
            throw new ControlException("invalid peer npub: " + e.getMessage());
        }
    }

    /** The reference names the peer by its alias, else the short hex of its node_addr. */
    private static ControlException notTracked(final StatsView view, final String npub, final String addr) {
        final String alias = view.aliasOf().apply(npub);
        final String name = alias != null ? alias : addr.substring(0, 8) + "...";
        return new ControlException("peer not tracked in stats history: " + name);
    }
}
