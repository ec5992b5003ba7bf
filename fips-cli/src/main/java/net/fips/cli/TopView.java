package net.fips.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The screens of {@code fipsctl top}, rendered from the daemon's JSON answers into plain lines of at most the
 * terminal's width. Pure (no terminal, no socket), so it is tested on its own; {@link TopCommand} polls and draws.
 * Every figure comes from the daemon; one it leaves out or sends as null shows as {@code -}.
 */
final class TopView {
    /** The views Tab cycles through, in the reference fipstop's order. */
    enum Tab {
        /** Identity, counts, sparklines, listening sockets. */
        NODE("Node"),
        /** Peers with RTT, loss and throughput; a detail block for the selected one. */
        PEERS("Peers"),
        /** Transports with their links underneath. */
        TRANSPORTS("Transports"),
        /** End-to-end sessions. */
        SESSIONS("Sessions"),
        /** Spanning tree position and peers' declarations. */
        TREE("Tree"),
        /** Bloom filter state per peer. */
        FILTERS("Filters"),
        /** Link and session MMP. */
        PERFORMANCE("Performance"),
        /** Routing state, the coordinate cache, forwarding and discovery counters, lookups, retries, Nostr. */
        ROUTING("Routing"),
        /** The stats history as plots. */
        GRAPHS("Graphs"),
        /** fips-gateway's pool and mappings, from the gateway's own socket. */
        GATEWAY("Gateway");

        final String title;

        Tab(final String title) {
            this.title = title;
        }

        Tab next() {
            return values()[(ordinal() + 1) % values().length];
        }

        Tab previous() {
            return values()[(ordinal() + values().length - 1) % values().length];
        }
    }

    /** The daemon's answers a view is drawn from, each with the command that fetches it. */
    enum Source {
        STATUS("show_status"),
        PEERS("show_peers"),
        LINKS("show_links"),
        TRANSPORTS("show_transports"),
        SESSIONS("show_sessions"),
        TREE("show_tree"),
        BLOOM("show_bloom"),
        MMP("show_mmp"),
        ROUTING("show_routing"),
        CACHE("show_cache"),
        /** {@code show_stats_all_history} over the last minute at 1 s (the Node view's sparklines). */
        HISTORY("show_stats_all_history"),
        LISTENING("show_listening_sockets"),
        STATS_PEERS("show_stats_peers"),
        /** {@code show_nostr}: the Routing view's Nostr section. */
        NOSTR("show_nostr"),
        /** The Graphs view's query ({@link TopGraphs#request}); {@link Poll#graphsFor()} says for what. */
        GRAPHS(""),
        /** {@code show_gateway}, asked of the gateway's socket, not the daemon's. */
        GATEWAY("show_gateway"),
        /** {@code show_mappings}, asked of the gateway's socket. */
        GATEWAY_MAPPINGS("show_mappings");

        final String command;

        Source(final String command) {
            this.command = command;
        }
    }

    /** @return the sources a view needs polled besides status and peers (which every round fetches) */
    static List<Source> sourcesFor(final Tab tab) {
        return switch (tab) {
            case NODE -> List.of(Source.TREE, Source.HISTORY, Source.LISTENING);
            case PEERS -> List.of();
            case TRANSPORTS -> List.of(Source.TRANSPORTS, Source.LINKS);
            case SESSIONS -> List.of(Source.SESSIONS);
            case TREE -> List.of(Source.TREE);
            case FILTERS -> List.of(Source.BLOOM);
            case PERFORMANCE -> List.of(Source.MMP);
            case ROUTING -> List.of(Source.ROUTING, Source.CACHE, Source.NOSTR);
            case GRAPHS -> List.of(Source.STATS_PEERS, Source.GRAPHS);
            case GATEWAY -> List.of(Source.GATEWAY, Source.GATEWAY_MAPPINGS);
        };
    }

    /**
     * One poll's answers. A source that is absent failed or has not been fetched yet.
     *
     * @param data      the answers by source (no nulls)
     * @param graphsFor which Graphs request {@link Source#GRAPHS} answers ({@link TopGraphs.Request#key()}), or null
     * @param error     why the daemon could not be reached, or null
     * @param atNanos   when it was taken (monotonic)
     */
    record Poll(Map<Source, JsonNode> data, String graphsFor, String error, long atNanos) {
        Poll {
            final EnumMap<Source, JsonNode> copy = new EnumMap<>(Source.class);
            copy.putAll(data);
            data = Collections.unmodifiableMap(copy);
        }

        /** @return answers with no error, taken at {@code atNanos} */
        static Poll of(final Map<Source, JsonNode> data, final long atNanos) {
            return new Poll(data, null, null, atNanos);
        }

        JsonNode get(final Source s) {
            return data.get(s);
        }

        JsonNode status() {
            return data.get(Source.STATUS);
        }

        JsonNode peers() {
            return data.get(Source.PEERS);
        }
    }

    /**
     * A view's content before it is cut to the screen.
     *
     * @param lines the lines, any length
     * @param focus a line to keep on screen (the selection), or -1
     */
    record Body(List<String> lines, int focus) {
    }

    /**
     * A drawn screen.
     *
     * @param lines     exactly the terminal's height, none wider than it
     * @param maxScroll the largest scroll offset that still shows something new (for the key handler)
     */
    record Screen(List<String> lines, int maxScroll) {
    }

    /** Bytes per second per peer npub, from two consecutive polls' counters; absent until there are two. */
    static Map<String, double[]> rates(final Poll before, final Poll now) {
        final Map<String, double[]> out = new HashMap<>();
        if (before == null || before.peers() == null || now.peers() == null || now.atNanos() <= before.atNanos()) {
            return out;
        }
        final double secs = (now.atNanos() - before.atNanos()) / 1e9;
        final Map<String, JsonNode> old = new HashMap<>();
        for (final JsonNode p : before.peers().path("peers")) {
            old.put(p.path("npub").asText(), p.path("stats"));
        }
        for (final JsonNode p : now.peers().path("peers")) {
            final JsonNode was = old.get(p.path("npub").asText());
            if (was == null) {
                continue;
            }
            final JsonNode s = p.path("stats");
            final long rx = s.path("bytes_recv").asLong() - was.path("bytes_recv").asLong();
            final long tx = s.path("bytes_sent").asLong() - was.path("bytes_sent").asLong();
            if (rx >= 0 && tx >= 0) {
                out.put(p.path("npub").asText(), new double[] {rx / secs, tx / secs});
            }
        }
        return out;
    }

    private TopView() {
    }

    /** {@link #draw} with only a view chosen, for callers that need the lines only. */
    static List<String> render(final Poll poll, final Map<String, double[]> rates, final Tab tab, final int width,
                               final int height, final String clock) {
        return draw(poll, rates, TopState.initial().withTab(tab), width, height, clock).lines();
    }

    /**
     * @param poll    the latest answers (never null)
     * @param rates   per-peer byte rates ({@link #rates})
     * @param state   the view and selections
     * @param width   terminal columns
     * @param height  terminal rows
     * @param clock   the time of day to print, e.g. {@code 13:05:07}
     * @return exactly {@code max(1, height)} lines, none wider than {@code width} columns
     */
    static Screen draw(final Poll poll, final Map<String, double[]> rates, final TopState state, final int width,
                       final int height, final String clock) {
        final int w = Math.max(0, width);
        final int h = Math.max(1, height);
        final int bodyRows = Math.max(0, h - 3);
        final Body body = state.help() ? new Body(help(), -1) : switch (state.tab()) {
            case NODE -> TopPeerViews.node(poll);
            case PEERS -> TopPeerViews.peers(poll, rates, state);
            case TRANSPORTS -> TopMeshViews.transports(poll, state);
            case SESSIONS -> TopMeshViews.sessions(poll);
            case TREE -> TopMeshViews.tree(poll, w);
            case FILTERS -> text(poll.get(Source.BLOOM), "(no bloom state)", TableView::bloom);
            case PERFORMANCE -> TopPeerViews.performance(poll, state);
            case ROUTING -> TopMeshViews.routing(poll, w);
            case GRAPHS -> TopGraphs.body(poll, state, w, bodyRows);
            case GATEWAY -> TopGatewayView.gateway(poll);
        };
        final int maxScroll = Math.max(0, body.lines().size() - bodyRows);
        int first = Math.min(state.scroll(), maxScroll);
        if (body.focus() >= 0) {
            if (body.focus() < first) {
                first = body.focus();
            } else if (body.focus() >= first + bodyRows) {
                first = Math.min(maxScroll, body.focus() - bodyRows + 1);
            }
        }
        final List<String> out = new ArrayList<>(h);
        out.add(fit(tabBar(state.tab(), w), w));
        if (h >= 3) {
            final String status = state.confirm() != null ? "Disconnect " + peerName(poll, state.confirm()) + " ("
                    + state.confirm() + ")? y/N"
                    : poll.error() != null ? "Disconnected: " + poll.error() + " (retrying)"
                    : state.notice() != null ? state.notice()
                    : first > 0 ? "(" + first + " lines above; Up/PgUp/Home)" : "";
            out.add(fit(status, w));
            for (int i = first; i < first + bodyRows && i < body.lines().size(); i++) {
                out.add(fit(body.lines().get(i), w));
            }
            while (out.size() < h - 1) {
                out.add("");
            }
        }
        if (h >= 2) {
            out.add(fit(footer(state) + "  updated " + clock, w));
        }
        return new Screen(out, maxScroll);
    }

    /** @return the display name {@code show_peers} gives {@code npub}, or the npub */
    static String peerName(final Poll poll, final String npub) {
        if (poll != null && poll.peers() != null) {
            for (final JsonNode p : poll.peers().path("peers")) {
                if (npub.equals(p.path("npub").asText())) {
                    return p.path("display_name").asText(npub);
                }
            }
        }
        return npub;
    }

    static String tabBar(final Tab tab, final int width) {
        final StringBuilder bar = new StringBuilder("fipsctl top ");
        for (final Tab t : Tab.values()) {
            bar.append(t == tab ? "[" + t.title + "]" : " " + t.title + " ");
        }
        if (bar.length() <= width) {
            return bar.toString();
        }
        return "[" + tab.title + "] " + (tab.ordinal() + 1) + "/" + Tab.values().length + " fipsctl top";
    }

    static String footer(final TopState s) {
        final String keys = switch (s.tab()) {
            case PEERS -> "Up/Down select  Esc deselect  Del disconnect";
            case TRANSPORTS -> "Left/Right collapse/expand";
            case PERFORMANCE -> "f table  s sort  S reverse";
            case GRAPHS -> "Left/Right window  m mode" + switch (s.graphsMode()) {
                case NODE -> "";
                case METRIC_BY_PEER -> "  n/N metric  Up/Down peer  s/S sort";
                case PEER_BY_METRIC -> "  n/N peer";
            };
            default -> "Up/Down/PgUp/PgDn scroll";
        };
        return "q quit  Tab/1-9 views  ? help  " + keys;
    }

    static List<String> help() {
        final List<String> l = new ArrayList<>();
        l.add("Keys (? or Esc closes this help)");
        l.add("");
        l.add("  q, Ctrl-C          quit");
        l.add("  Tab, Shift-Tab     next / previous view");
        final StringBuilder nums = new StringBuilder("  1-9, 0             ");
        for (final Tab t : Tab.values()) {
            nums.append((t.ordinal() + 1) % 10).append(' ').append(t.title).append("  ");
        }
        l.add(nums.toString().stripTrailing());
        l.add("  g                  Graphs");
        l.add("  Up/Down, PgUp/PgDn, Home/End   scroll (Peers: select a peer; Esc deselects)");
        l.add("  Peers: Del disconnects the selected peer after a y/N question (the only key that changes the node)");
        l.add("  Transports: Left/c collapse links, Right/Space/e expand");
        l.add("  Performance: f moves between the link and session tables, s sorts by the next column, S reverses");
        l.add("  Graphs: Left/Right window (1m, 10m, 1h at 1 s; 24h at 1 m), m mode (node, metric-by-peer,");
        l.add("          peer-by-metric), n/N next/previous metric or peer; metric-by-peer: Up/Down peer, s sorts");
        l.add("          the list by the next column (name, min, max, last, n), S reverses");
        l.add("");
        l.add("A value the node does not measure shows as '-'.");
        return l;
    }

    static Body text(final JsonNode d, final String none, final Function<JsonNode,
            String> table) {
        return new Body(d == null ? List.of(none) : List.of(table.apply(d).split("\n", -1)), -1);
    }


    /** @see TopFormat#fit */
    static String fit(final String line, final int width) {
        return TopFormat.fit(line, width);
    }
}
