package net.fips.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jline.utils.WCWidth;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The screens of {@code fipsctl top}, rendered from the daemon's JSON answers into plain lines of at most the
 * terminal's width. Pure (no terminal, no socket), so it is tested on its own; {@link TopCommand} polls and draws.
 * Every figure comes from the daemon; one it leaves out or sends as null shows as {@code -}.
 */
final class TopView {
    /** The views Tab cycles through, in the reference fipstop's order (its Gateway tab aside). */
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
        /** Routing state, the coordinate cache, forwarding and discovery counters, lookups and retries. */
        ROUTING("Routing"),
        /** The stats history as plots. */
        GRAPHS("Graphs");

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
        /** The Graphs view's query ({@link TopGraphs#request}); {@link Poll#graphsFor()} says for what. */
        GRAPHS("");

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
            case ROUTING -> List.of(Source.ROUTING, Source.CACHE);
            case GRAPHS -> List.of(Source.STATS_PEERS, Source.GRAPHS);
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
            case NODE -> node(poll);
            case PEERS -> peers(poll, rates, state);
            case TRANSPORTS -> transports(poll, state);
            case SESSIONS -> sessions(poll);
            case TREE -> tree(poll, w);
            case FILTERS -> text(poll.get(Source.BLOOM), "(no bloom state)", TableView::bloom);
            case PERFORMANCE -> performance(poll, state);
            case ROUTING -> routing(poll, w);
            case GRAPHS -> TopGraphs.body(poll, state, w, bodyRows);
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

    private static String tabBar(final Tab tab, final int width) {
        final StringBuilder bar = new StringBuilder("fipsctl top ");
        for (final Tab t : Tab.values()) {
            bar.append(t == tab ? "[" + t.title + "]" : " " + t.title + " ");
        }
        if (bar.length() <= width) {
            return bar.toString();
        }
        return "[" + tab.title + "] " + (tab.ordinal() + 1) + "/" + Tab.values().length + " fipsctl top";
    }

    private static String footer(final TopState s) {
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

    private static List<String> help() {
        final List<String> l = new ArrayList<>();
        l.add("Keys (? or Esc closes this help)");
        l.add("");
        l.add("  q, Ctrl-C          quit");
        l.add("  Tab, Shift-Tab     next / previous view");
        final StringBuilder nums = new StringBuilder("  1-9                ");
        for (final Tab t : Tab.values()) {
            nums.append(t.ordinal() + 1).append(' ').append(t.title).append("  ");
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

    private static Body text(final JsonNode d, final String none, final java.util.function.Function<JsonNode,
            String> table) {
        return new Body(d == null ? List.of(none) : List.of(table.apply(d).split("\n", -1)), -1);
    }

    private static Body node(final Poll p) {
        final List<String> lines = new ArrayList<>();
        final JsonNode s = p.status();
        if (s == null) {
            return new Body(List.of("(no status)"), -1);
        }
        lines.add("npub:      " + text(s.get("npub")));
        lines.add("node_addr: " + text(s.get("node_addr")) + "   ipv6: " + text(s.get("ipv6_addr")));
        lines.add("version:   " + text(s.get("version")) + "   state: " + text(s.get("state")) + "   uptime: "
                + uptime(s.get("uptime_secs")) + "   pid: " + text(s.get("pid")));
        final JsonNode tree = p.get(Source.TREE);
        lines.add("peers: " + text(s.get("peer_count")) + "   sessions: " + text(s.get("session_count"))
                + "   links: " + text(s.get("link_count")) + "   mesh size: " + text(s.get("estimated_mesh_size"))
                + "   tun: " + text(s.get("tun_state")) + " " + text(s.get("tun_name")));
        lines.add("root: " + text(s.get("root")) + (s.path("is_root").asBoolean() ? " (us)" : "") + "   depth: "
                + (tree == null ? "-" : text(tree.get("depth"))) + "   parent: "
                + (tree == null ? "-" : text(tree.get("parent_display_name"))));
        final JsonNode f = s.path("forwarding");
        lines.add("packets: originated " + text(f.get("originated_packets")) + "   delivered "
                + text(f.get("delivered_packets")) + "   forwarded " + text(f.get("forwarded_packets"))
                + "   dropped (no route) " + text(f.get("drop_no_route_packets")) + "   (Routing view: all counters)");
        lines.add("");
        lines.add("Last minute (1 s samples):");
        final JsonNode h = p.get(Source.HISTORY);
        if (h == null) {
            lines.add("  (no history)");
        } else {
            for (final JsonNode series : h.path("series")) {
                final double[] v = TopGraphs.values(series.path("values"));
                final double[] st = TopGraphs.summary(v);
                lines.add(String.format(Locale.ROOT, "  %-16s %10s  %s", series.path("metric").asText(),
                        Double.isNaN(st[2]) ? "-" : number(st[2]), StatsTables.sparkline(v, st[0], st[1])));
            }
        }
        lines.add("");
        final JsonNode l = p.get(Source.LISTENING);
        if (l == null) {
            lines.add("Listening on fips0: -");
            return new Body(lines, -1);
        }
        final JsonNode fw = l.get("firewall_active");
        lines.add("Listening on fips0 (" + text(l.get("fips0_addr")) + "), firewall: "
                + (fw == null || fw.isNull() ? "unknown" : fw.asBoolean() ? "active" : "NOT ACTIVE"));
        for (final JsonNode sock : l.path("sockets")) {
            final String filter = sock.path("filter").asText();
            final String mark = switch (filter) {
                case "accept", "no_firewall" -> "OPEN";
                case "drop" -> "filt";
                default -> "filt?";
            };
            lines.add(String.format(Locale.ROOT, "  %-5s %-4s %5s  %-8s %s", mark, text(sock.get("proto")),
                    text(sock.get("port")), sock.path("wildcard_bind").asBoolean() ? "[::]" : "fips0",
                    text(sock.get("process"))));
        }
        return new Body(lines, -1);
    }

    private static Body peers(final Poll p, final Map<String, double[]> rates, final TopState state) {
        if (p.peers() == null) {
            return new Body(List.of("(no peer list)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        final JsonNode all = p.peers().path("peers");
        final int sel = Math.min(state.peerRow(), all.size() - 1);
        final List<String[]> rows = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            final JsonNode peer = all.get(i);
            final double[] r = rates.get(peer.path("npub").asText());
            rows.add(new String[] {i == sel ? ">" : " ", text(peer.get("display_name")),
                text(peer.get("connectivity")), text(peer.get("transport_addr")), role(peer),
                text(peer.get("tree_depth")), text(peer.path("mmp").get("srtt_ms")),
                text(peer.path("mmp").get("loss_rate")), r == null ? "-" : bytesPerSecond(r[0]),
                r == null ? "-" : bytesPerSecond(r[1]), text(peer.get("node_addr"))});
        }
        lines.add("Peers: " + rows.size() + (rows.isEmpty() || sel >= 0 ? "" : "   (Up/Down selects a peer)"));
        int focus = -1;
        if (!rows.isEmpty()) {
            final String[] table = TableView.table(new String[] {" ", "NAME", "STATE", "ADDRESS", "TREE", "DEPTH",
                "RTT_MS", "LOSS", "RX/s", "TX/s", "NODE_ADDR"}, rows).split("\n");
            final int top = lines.size();
            lines.addAll(List.of(table));
            if (sel >= 0) {
                focus = top + 1 + sel;
                lines.add("");
                peerDetail(all.get(sel), lines);
            }
        }
        return new Body(lines, focus);
    }

    private static String role(final JsonNode peer) {
        return peer.path("is_parent").asBoolean() ? "parent" : peer.path("is_child").asBoolean() ? "child" : "-";
    }

    private static void peerDetail(final JsonNode peer, final List<String> lines) {
        final JsonNode st = peer.path("stats");
        final JsonNode m = peer.path("mmp");
        lines.add(text(peer.get("display_name")) + "  " + text(peer.get("npub")));
        lines.add("  node_addr " + text(peer.get("node_addr")) + "   ipv6 " + text(peer.get("ipv6_addr")));
        lines.add("  link " + text(peer.get("link_id")) + "   " + text(peer.get("transport_type")) + " "
                + text(peer.get("transport_addr")) + "   " + text(peer.get("direction")) + "   "
                + text(peer.get("connectivity")));
        lines.add("  tree: " + role(peer) + ", depth " + text(peer.get("tree_depth")) + ", effective depth "
                + text(peer.get("effective_depth")) + "   bloom filter: "
                + (peer.path("has_bloom_filter").asBoolean() ? "yes, seq " + text(peer.get("filter_sequence")) : "no"));
        lines.add("  packets tx/rx " + text(st.get("packets_sent")) + " / " + text(st.get("packets_recv"))
                + "   bytes tx/rx " + text(st.get("bytes_sent")) + " / " + text(st.get("bytes_recv")));
        lines.add("  replay suppressed " + text(peer.get("replay_suppressed")) + "   decrypt failures in a row "
                + text(peer.get("consecutive_decrypt_failures")) + "   k bit " + text(peer.get("current_k_bit")));
        lines.add("  mmp: mode " + text(m.get("mode")) + "   srtt_ms " + text(m.get("srtt_ms")) + "   loss "
                + text(m.get("loss_rate")) + "   etx " + text(m.get("etx")) + "   goodput_bps "
                + text(m.get("goodput_bps")) + "   lqi " + text(m.get("lqi")));
    }

    /**
     * One column of the Performance view.
     *
     * @param header its heading
     * @param layer  the object the value is in ({@code link_layer} / {@code session_layer}), or null for the row
     * @param key    the value's key
     */
    record Column(String header, String layer, String key) {
        JsonNode of(final JsonNode row) {
            return layer == null ? row.get(key) : row.path(layer).get(key);
        }
    }

    /** The Performance view's columns: link MMP ({@code show_mmp.peers}), session MMP ({@code .sessions}). */
    static final List<List<Column>> PERF_COLUMNS = List.of(
            List.of(new Column("PEER", null, "display_name"), new Column("MODE", null, "mode"),
                new Column("SRTT_MS", "link_layer", "srtt_ms"), new Column("LOSS", "link_layer", "loss_rate"),
                new Column("ETX", "link_layer", "etx"), new Column("GOODPUT_BPS", "link_layer", "goodput_bps"),
                new Column("LQI", "link_layer", "lqi"), new Column("ECN_CE", "link_layer", "ecn_ce_count")),
            List.of(new Column("SESSION", null, "display_name"), new Column("MODE", null, "mode"),
                new Column("SRTT_MS", "session_layer", "srtt_ms"), new Column("LOSS", "session_layer", "loss_rate"),
                new Column("ETX", "session_layer", "etx"), new Column("PATH_MTU", "session_layer", "path_mtu"),
                new Column("SQI", "session_layer", "sqi")));

    /** Link and session MMP, each table sorted by its chosen column (absent values last either way). */
    private static Body performance(final Poll p, final TopState state) {
        final JsonNode d = p.get(Source.MMP);
        if (d == null) {
            return new Body(List.of("(no MMP state)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        final String[] keys = {"peers", "sessions"};
        final String[] titles = {"Link MMP", "Session MMP"};
        for (int pane = 0; pane < 2; pane++) {
            final List<Column> cols = PERF_COLUMNS.get(pane);
            final int sortCol = state.perfColumn(pane);
            final boolean desc = state.perfDescending(pane);
            final List<JsonNode> rows = new ArrayList<>();
            d.path(keys[pane]).forEach(rows::add);
            final Column by = cols.get(sortCol);
            rows.sort((a, b) -> compare(by.of(a), by.of(b), desc));
            if (pane == 1) {
                lines.add("");
            }
            lines.add((state.perfPane() == pane ? "> " : "  ") + titles[pane] + ": " + rows.size() + "   sort: "
                    + by.header() + (desc ? " descending" : " ascending"));
            if (rows.isEmpty()) {
                continue;
            }
            final String[] header = new String[cols.size()];
            for (int c = 0; c < header.length; c++) {
                header[c] = cols.get(c).header() + (c == sortCol ? desc ? "▼" : "▲" : "");
            }
            final List<String[]> cells = new ArrayList<>();
            for (final JsonNode r : rows) {
                final String[] row = new String[cols.size()];
                for (int c = 0; c < row.length; c++) {
                    row[c] = text(cols.get(c).of(r));
                }
                cells.add(row);
            }
            for (final String l : TableView.table(header, cells).split("\n")) {
                lines.add("  " + l);
            }
        }
        return new Body(lines, -1);
    }

    /** Numbers by value, anything else as text (case-insensitive); an absent or null value sorts last. */
    private static int compare(final JsonNode a, final JsonNode b, final boolean descending) {
        final boolean na = a == null || a.isNull() || a.isMissingNode();
        final boolean nb = b == null || b.isNull() || b.isMissingNode();
        if (na || nb) {
            return Boolean.compare(na, nb);
        }
        final int c = a.isNumber() && b.isNumber() ? Double.compare(a.asDouble(), b.asDouble())
                : String.CASE_INSENSITIVE_ORDER.compare(a.asText(), b.asText());
        return descending ? -c : c;
    }

    /** Each transport, then (unless collapsed) its links with the peer on each. */
    private static Body transports(final Poll p, final TopState state) {
        final JsonNode t = p.get(Source.TRANSPORTS);
        if (t == null) {
            return new Body(List.of("(no transport list)"), -1);
        }
        final JsonNode links = p.get(Source.LINKS);
        final Map<Long, String> peerByLink = new HashMap<>();
        if (p.peers() != null) {
            for (final JsonNode peer : p.peers().path("peers")) {
                if (peer.path("link_id").isIntegralNumber()) {
                    peerByLink.put(peer.path("link_id").asLong(), text(peer.get("display_name")));
                }
            }
        }
        final List<String[]> rows = new ArrayList<>();
        final Map<Integer, String> extra = new HashMap<>();
        int linkCount = 0;
        for (final JsonNode tr : t.path("transports")) {
            final List<JsonNode> mine = new ArrayList<>();
            if (links != null) {
                for (final JsonNode l : links.path("links")) {
                    if (l.path("transport_id").asLong(-1) == tr.path("transport_id").asLong(-2)) {
                        mine.add(l);
                    }
                }
            }
            linkCount += mine.size();
            final JsonNode st = tr.path("stats");
            final String mark = mine.isEmpty() ? "  " : state.collapsed() ? "▶ " : "▼ ";
            rows.add(new String[] {mark + transportLabel(tr), text(tr.get("state")), "", text(tr.get("mtu")),
                text(first(st, "packets_sent", "frames_sent")), text(first(st, "packets_recv", "frames_recv")),
                text(st.get("bytes_sent")), text(st.get("bytes_recv"))});
            final StringBuilder others = new StringBuilder();
            for (final Map.Entry<String, JsonNode> e : st.properties()) {
                if (!List.of("packets_sent", "frames_sent", "packets_recv", "frames_recv", "bytes_sent",
                        "bytes_recv").contains(e.getKey())) {
                    others.append(others.isEmpty() ? "" : " ").append(e.getKey()).append('=')
                            .append(text(e.getValue()));
                }
            }
            if (!others.isEmpty()) {
                extra.put(rows.size() - 1, "      " + others);
            }
            if (state.collapsed()) {
                continue;
            }
            for (int i = 0; i < mine.size(); i++) {
                final JsonNode l = mine.get(i);
                final JsonNode ls = l.path("stats");
                final String dir = l.path("direction").asText("").toLowerCase(Locale.ROOT);
                rows.add(new String[] {(i == mine.size() - 1 ? "  └─ " : "  ├─ ")
                    + (dir.startsWith("out") ? "out " : dir.startsWith("in") ? "in  " : "?   ")
                    + text(l.get("remote_addr")), text(l.get("state")),
                    peerByLink.getOrDefault(l.path("link_id").asLong(-1), "-"), "", text(ls.get("packets_sent")),
                    text(ls.get("packets_recv")), text(ls.get("bytes_sent")), text(ls.get("bytes_recv"))});
            }
        }
        final List<String> lines = new ArrayList<>();
        lines.add("Transports: " + t.path("transports").size() + "   Links: " + (links == null ? "-" : linkCount)
                + (state.collapsed() ? " (collapsed; Right expands)" : ""));
        if (rows.isEmpty()) {
            return new Body(lines, -1);
        }
        final String[] table = TableView.table(new String[] {"TRANSPORT / LINK", "STATE", "PEER", "MTU", "TX_PKTS",
            "RX_PKTS", "TX_BYTES", "RX_BYTES"}, rows).split("\n");
        lines.add(table[0]);
        for (int i = 1; i < table.length; i++) {
            lines.add(table[i]);
            final String more = extra.get(i - 1);
            if (more != null) {
                lines.add(more);
            }
        }
        return new Body(lines, -1);
    }

    private static JsonNode first(final JsonNode obj, final String a, final String b) {
        return obj.has(a) ? obj.get(a) : obj.get(b);
    }

    private static String transportLabel(final JsonNode t) {
        final String type = t.path("type").asText("?");
        final String id = " #" + text(t.get("transport_id"));
        if (t.hasNonNull("name")) {
            return type + " " + t.get("name").asText() + id;
        }
        if ("tor".equals(type)) {
            final String onion = t.path("onion_address").asText("");
            return "tor(" + t.path("tor_mode").asText("socks5") + ")"
                    + (onion.isEmpty() ? "" : " " + (onion.length() > 16 ? onion.substring(0, 16) + ".." : onion))
                    + id;
        }
        return t.hasNonNull("local_addr") ? type + " " + t.get("local_addr").asText() + id : type + id;
    }

    private static Body sessions(final Poll p) {
        final JsonNode d = p.get(Source.SESSIONS);
        if (d == null) {
            return new Body(List.of("(no session list)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode s : d.path("sessions")) {
            rows.add(new String[] {text(s.get("display_name")), text(s.get("state")),
                s.path("is_initiator").asBoolean() ? "out" : "in", text(s.path("mmp").get("srtt_ms")),
                text(s.path("mmp").get("loss_rate")), text(s.path("stats").get("bytes_recv")),
                text(s.path("stats").get("bytes_sent")), text(s.get("remote_addr"))});
        }
        lines.add("Sessions: " + rows.size());
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"NAME", "STATE", "DIR", "RTT_MS", "LOSS", "RX_BYTES",
                "TX_BYTES", "REMOTE"}, rows).split("\n")));
        }
        return new Body(lines, -1);
    }

    private static Body tree(final Poll p, final int width) {
        final JsonNode t = p.get(Source.TREE);
        if (t == null) {
            return new Body(List.of("(no tree)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        lines.add("root: " + text(t.get("root")) + (t.path("is_root").asBoolean() ? " (us)" : ""));
        lines.add("depth: " + text(t.get("depth")) + "   parent: " + text(t.get("parent_display_name"))
                + "   declaration seq: " + text(t.get("declaration_sequence")));
        final List<String> coords = new ArrayList<>();
        t.path("my_coords").forEach(c -> coords.add(c.asText()));
        lines.add("coords (self -> root): " + (coords.isEmpty() ? "-" : String.join(" > ", coords)));
        lines.add("");
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode peer : t.path("peers")) {
            rows.add(new String[] {text(peer.get("display_name")), text(peer.get("depth")),
                text(peer.get("distance_to_us")), text(peer.get("root")), text(peer.get("node_addr"))});
        }
        lines.add("Tree peers: " + rows.size());
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"NAME", "DEPTH", "DISTANCE", "ROOT", "NODE_ADDR"},
                    rows).split("\n")));
        }
        lines.add("");
        lines.add("Tree announcements");
        lines.addAll(grid(counters(t.get("stats")), width));
        return new Body(lines, -1);
    }

    /**
     * Routing state and the coordinate cache, the forwarding counters as packets and bytes (the mesh's transmit
     * total derived as originated plus forwarded, as the reference's fipstop does), route classes as shares of
     * forwarded, then discovery, error-signal and congestion counters, pending lookups and retries.
     */
    private static Body routing(final Poll p, final int width) {
        final JsonNode d = p.get(Source.ROUTING);
        if (d == null) {
            return new Body(List.of("(no routing state)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        lines.add("Routing state");
        lines.addAll(grid(List.of(new String[] {"coord cache entries", text(d.get("coord_cache_entries"))},
                new String[] {"identity cache entries", text(d.get("identity_cache_entries"))},
                new String[] {"pending lookups", d.path("pending_lookups").isArray()
                    ? Integer.toString(d.path("pending_lookups").size()) : "-"},
                new String[] {"recent requests", text(d.get("recent_requests"))},
                new String[] {"pending TUN destinations", text(d.get("pending_tun_destinations"))},
                new String[] {"pending TUN packets", text(d.get("pending_tun_packets"))}), width));
        final JsonNode c = p.get(Source.CACHE);
        lines.add("");
        lines.add("Coordinate cache");
        if (c == null) {
            lines.add("  -");
        } else {
            final JsonNode fill = c.get("fill_ratio");
            lines.addAll(grid(List.of(new String[] {"entries", text(c.get("count")) + " / "
                    + text(c.get("max_entries"))},
                new String[] {"fill", fill == null || !fill.isNumber() ? "-"
                    : String.format(Locale.ROOT, "%.1f%%", fill.asDouble() * 100)},
                new String[] {"default TTL", millis(c.get("default_ttl_ms"))},
                new String[] {"expired", text(c.get("expired"))},
                new String[] {"avg age", millis(c.get("avg_age_ms"))}), width));
        }
        final JsonNode f = d.path("forwarding");
        lines.add("");
        final List<String[]> fwd = new ArrayList<>();
        fwd.add(new String[] {"local stack tx (originated)", text(f.get("originated_packets")),
            bytes(f.get("originated_bytes"))});
        fwd.add(new String[] {"local stack rx (delivered)", text(f.get("delivered_packets")),
            bytes(f.get("delivered_bytes"))});
        fwd.add(new String[] {"mesh tx (originated + forwarded)", sum(f, "originated_packets", "forwarded_packets"),
            sum(f, "originated_bytes", "forwarded_bytes")});
        fwd.add(new String[] {"mesh rx (received)", text(f.get("received_packets")), bytes(f.get("received_bytes"))});
        fwd.add(new String[] {"forwarded", text(f.get("forwarded_packets")), bytes(f.get("forwarded_bytes"))});
        fwd.add(new String[] {"dropped: no route", text(f.get("drop_no_route_packets")),
            bytes(f.get("drop_no_route_bytes"))});
        fwd.add(new String[] {"dropped: TTL exhausted", text(f.get("ttl_exhausted_packets")),
            bytes(f.get("ttl_exhausted_bytes"))});
        fwd.add(new String[] {"dropped: decode error", text(f.get("decode_error_packets")),
            bytes(f.get("decode_error_bytes"))});
        fwd.add(new String[] {"dropped: MTU exceeded", text(f.get("drop_mtu_exceeded_packets")),
            bytes(f.get("drop_mtu_exceeded_bytes"))});
        fwd.add(new String[] {"dropped: send error", text(f.get("drop_send_error_packets")),
            bytes(f.get("drop_send_error_bytes"))});
        lines.addAll(List.of(TableView.table(new String[] {"Forwarding", "PACKETS", "BYTES"}, fwd).split("\n")));
        lines.add("");
        final JsonNode total = f.get("forwarded_packets");
        final List<String[]> classes = new ArrayList<>();
        for (final String[] k : List.of(new String[] {"direct peer", "route_direct_peer"},
                new String[] {"tree down", "route_tree_down"}, new String[] {"tree up", "route_tree_up"},
                new String[] {"cross-link descend", "route_crosslink_descend"},
                new String[] {"cross-link ascend", "route_crosslink_ascend"},
                new String[] {"tree down via cross-link", "route_tree_down_cross"})) {
            final JsonNode n = f.get(k[1]);
            classes.add(new String[] {k[0], text(n), share(n, total)});
        }
        lines.addAll(List.of(TableView.table(new String[] {"Route class", "COUNT", "OF FORWARDED"}, classes)
                .split("\n")));
        final JsonNode disc = d.path("discovery");
        final List<String[]> req = new ArrayList<>();
        final List<String[]> resp = new ArrayList<>();
        for (final Map.Entry<String, JsonNode> e : disc.properties()) {
            if (e.getKey().startsWith("req_")) {
                req.add(new String[] {e.getKey().substring(4), text(e.getValue())});
            } else if (e.getKey().startsWith("resp_")) {
                resp.add(new String[] {e.getKey().substring(5), text(e.getValue())});
            }
        }
        lines.add("");
        lines.add("Discovery requests");
        lines.addAll(req.isEmpty() ? List.of("  -") : grid(req, width));
        lines.add("Discovery responses");
        lines.addAll(resp.isEmpty() ? List.of("  -") : grid(resp, width));
        lines.add("Error signals");
        lines.addAll(grid(counters(d.get("error_signals")), width));
        lines.add("Congestion");
        lines.addAll(grid(counters(d.get("congestion")), width));
        lines.add("");
        final List<String[]> pending = new ArrayList<>();
        for (final JsonNode l : d.path("pending_lookups")) {
            pending.add(new String[] {text(l.get("display_name")), text(l.get("target")), text(l.get("attempt")),
                millis(l.get("age_ms"))});
        }
        lines.add("Pending lookups: " + pending.size());
        if (!pending.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"  TARGET", "NODE_ADDR", "ATTEMPT", "AGE"},
                    indent(pending)).split("\n")));
        }
        final List<String[]> retries = new ArrayList<>();
        for (final JsonNode r : d.path("retries")) {
            retries.add(new String[] {text(r.get("display_name")), text(r.get("node_addr")),
                text(r.get("retry_count")), text(r.get("retry_after_ms")), text(r.get("auto_reconnect"))});
        }
        lines.add("Retries: " + (d.path("retries").isArray() ? Integer.toString(retries.size()) : "-"));
        if (!retries.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"  PEER", "NODE_ADDR", "RETRIES", "RETRY_AT_MS",
                "AUTO_RECONNECT"}, indent(retries)).split("\n")));
        }
        return new Body(lines, -1);
    }

    private static List<String[]> indent(final List<String[]> rows) {
        for (final String[] r : rows) {
            r[0] = "  " + r[0];
        }
        return rows;
    }

    /** A counter object as (name, value) pairs; an absent object is one pair of dashes. */
    private static List<String[]> counters(final JsonNode obj) {
        final List<String[]> out = new ArrayList<>();
        if (obj == null || !obj.isObject() || obj.isEmpty()) {
            out.add(new String[] {"-", "-"});
            return out;
        }
        for (final Map.Entry<String, JsonNode> e : obj.properties()) {
            out.add(new String[] {e.getKey(), text(e.getValue())});
        }
        return out;
    }

    /** (label, value) pairs in as many aligned columns as {@code width} holds, indented by two. */
    static List<String> grid(final List<String[]> pairs, final int width) {
        int label = 0;
        int value = 0;
        for (final String[] p : pairs) {
            label = Math.max(label, p[0].length());
            value = Math.max(value, p[1].length());
        }
        final int cell = label + 1 + value + 4;
        final int cols = Math.max(1, (width - 2) / cell);
        final int rows = (pairs.size() + cols - 1) / cols;
        final List<String> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            final StringBuilder sb = new StringBuilder("  ");
            for (int c = 0; c < cols; c++) {
                final int i = c * rows + r;
                if (i < pairs.size()) {
                    sb.append(String.format(Locale.ROOT, "%-" + label + "s %" + value + "s    ", pairs.get(i)[0],
                            pairs.get(i)[1]));
                }
            }
            out.add(sb.toString().stripTrailing());
        }
        return out;
    }

    private static String sum(final JsonNode obj, final String a, final String b) {
        final JsonNode x = obj.get(a);
        final JsonNode y = obj.get(b);
        return x == null || y == null || !x.isNumber() || !y.isNumber() ? "-" : Long.toString(x.asLong() + y.asLong());
    }

    private static String share(final JsonNode n, final JsonNode total) {
        if (n == null || total == null || !n.isNumber() || !total.isNumber()) {
            return "-";
        }
        return total.asLong() == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * n.asLong() / total.asLong());
    }

    private static String bytes(final JsonNode v) {
        return v == null || !v.isNumber() ? "-" : Long.toString(v.asLong());
    }

    private static String millis(final JsonNode v) {
        if (v == null || !v.isNumber()) {
            return "-";
        }
        final long ms = v.asLong();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        return ms < 3_600_000 ? String.format(Locale.ROOT, "%dm%02ds", ms / 60_000, ms / 1000 % 60)
                : String.format(Locale.ROOT, "%dh%02dm", ms / 3_600_000, ms / 60_000 % 60);
    }

    private static String text(final JsonNode v) {
        return TableView.text(v);
    }

    private static String number(final double x) {
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x)
                : String.format(Locale.ROOT, "%.3f", x);
    }

    static String uptime(final JsonNode secs) {
        if (secs == null || !secs.isNumber()) {
            return "-";
        }
        final long s = secs.asLong();
        return s >= 86_400 ? String.format(Locale.ROOT, "%dd%02dh%02dm", s / 86_400, s / 3600 % 24, s / 60 % 60)
                : String.format(Locale.ROOT, "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }

    static String bytesPerSecond(final double b) {
        if (b >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", b / 1e6);
        }
        if (b >= 1e3) {
            return String.format(Locale.ROOT, "%.1fk", b / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", b);
    }

    /**
     * {@code line} cut to {@code width} terminal columns: wide characters count two, combining ones none, and a
     * control character (an escape in a peer's name, say) is drawn as {@code ?} so it cannot move the cursor.
     */
    static String fit(final String line, final int width) {
        final StringBuilder sb = new StringBuilder(Math.min(line.length(), Math.max(0, width)));
        int cols = 0;
        for (int i = 0; i < line.length(); ) {
            int cp = line.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 0x20 || cp >= 0x7f && cp < 0xa0) {
                cp = '?';
            }
            final int w = Math.max(0, WCWidth.wcwidth(cp));
            if (cols + w > width) {
                break;
            }
            sb.appendCodePoint(cp);
            cols += w;
        }
        return sb.toString();
    }
}
