package net.fips.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The screens of {@code fipsctl top}, rendered from the daemon's JSON answers into plain lines of at most the
 * terminal's width. Pure (no terminal, no socket), so it is tested on its own; {@link TopCommand} polls and draws.
 * Every figure comes from the daemon; one it leaves out or sends as null shows as {@code -}.
 */
final class TopView {
    /** The views Tab cycles through, in order. */
    enum Tab {
        /** Identity, counts, sparklines, listening sockets. */
        NODE("Node"),
        /** Peers with RTT, loss and throughput. */
        PEERS("Peers"),
        /** End-to-end sessions. */
        SESSIONS("Sessions"),
        /** Spanning tree position and peers' declarations. */
        TREE("Tree");

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

    /**
     * One poll's answers. A null field means that query failed or was not made this round.
     *
     * @param status    {@code show_status}
     * @param peers     {@code show_peers}
     * @param sessions  {@code show_sessions}
     * @param tree      {@code show_tree}
     * @param history   {@code show_stats_all_history} over the last minute
     * @param listening {@code show_listening_sockets}
     * @param error     why the daemon could not be reached, or null
     * @param atNanos   when it was taken (monotonic)
     */
    record Poll(JsonNode status, JsonNode peers, JsonNode sessions, JsonNode tree, JsonNode history,
                JsonNode listening, String error, long atNanos) {
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

    /**
     * @param poll    the latest answers (never null)
     * @param rates   per-peer byte rates ({@link #rates})
     * @param tab     the view shown
     * @param width   terminal columns
     * @param height  terminal rows
     * @param clock   the time of day to print, e.g. {@code 13:05:07}
     * @return exactly {@code height} lines, none longer than {@code width}
     */
    static List<String> render(final Poll poll, final Map<String, double[]> rates, final Tab tab, final int width,
                               final int height, final String clock) {
        final List<String> lines = new ArrayList<>();
        final StringBuilder bar = new StringBuilder("fipsctl top ");
        for (final Tab t : Tab.values()) {
            bar.append(t == tab ? " [" + t.title + "] " : "  " + t.title + "  ");
        }
        lines.add(bar.toString());
        if (poll.error() != null) {
            lines.add("Disconnected: " + poll.error() + " (retrying every second)");
        } else {
            lines.add("");
        }
        switch (tab) {
            case NODE -> node(poll, lines);
            case PEERS -> peers(poll, rates, lines);
            case SESSIONS -> sessions(poll, lines);
            case TREE -> tree(poll, lines);
        }
        final List<String> out = new ArrayList<>(height);
        for (int i = 0; i < height - 1 && i < lines.size(); i++) {
            out.add(fit(lines.get(i), width));
        }
        while (out.size() < height - 1) {
            out.add("");
        }
        out.add(fit("q quit  Tab/Shift-Tab switch view  updated " + clock, width));
        return out;
    }

    private static void node(final Poll p, final List<String> lines) {
        final JsonNode s = p.status();
        if (s == null) {
            lines.add("(no status)");
            return;
        }
        lines.add("npub:      " + text(s.get("npub")));
        lines.add("node_addr: " + text(s.get("node_addr")) + "   ipv6: " + text(s.get("ipv6_addr")));
        lines.add("version:   " + text(s.get("version")) + "   state: " + text(s.get("state")) + "   uptime: "
                + uptime(s.get("uptime_secs")) + "   pid: " + text(s.get("pid")));
        final JsonNode tree = p.tree();
        lines.add("peers: " + text(s.get("peer_count")) + "   sessions: " + text(s.get("session_count"))
                + "   links: " + text(s.get("link_count")) + "   mesh size: " + text(s.get("estimated_mesh_size"))
                + "   tun: " + text(s.get("tun_state")) + " " + text(s.get("tun_name")));
        lines.add("root: " + text(s.get("root")) + (s.path("is_root").asBoolean() ? " (us)" : "") + "   depth: "
                + (tree == null ? "-" : text(tree.get("depth"))) + "   parent: "
                + (tree == null ? "-" : text(tree.get("parent_display_name"))));
        lines.add("");
        lines.add("Last minute (1 s samples):");
        final JsonNode h = p.history();
        if (h == null) {
            lines.add("  (no history)");
        } else {
            for (final JsonNode series : h.path("series")) {
                final double[] v = values(series.path("values"));
                double last = Double.NaN;
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                for (final double x : v) {
                    if (!Double.isNaN(x)) {
                        last = x;
                        min = Math.min(min, x);
                        max = Math.max(max, x);
                    }
                }
                lines.add(String.format(Locale.ROOT, "  %-16s %10s  %s", series.path("metric").asText(),
                        Double.isNaN(last) ? "-" : number(last), StatsTables.sparkline(v, min, max)));
            }
        }
        lines.add("");
        final JsonNode l = p.listening();
        if (l == null) {
            lines.add("Listening on fips0: -");
            return;
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
    }

    private static void peers(final Poll p, final Map<String, double[]> rates, final List<String> lines) {
        if (p.peers() == null) {
            lines.add("(no peer list)");
            return;
        }
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode peer : p.peers().path("peers")) {
            final double[] r = rates.get(peer.path("npub").asText());
            final String role = peer.path("is_parent").asBoolean() ? "parent"
                    : peer.path("is_child").asBoolean() ? "child" : "-";
            rows.add(new String[] {text(peer.get("display_name")), text(peer.get("connectivity")),
                text(peer.get("transport_addr")), role, text(peer.get("tree_depth")),
                text(peer.path("mmp").get("srtt_ms")), text(peer.path("mmp").get("loss_rate")),
                r == null ? "-" : bytesPerSecond(r[0]), r == null ? "-" : bytesPerSecond(r[1]),
                text(peer.get("node_addr"))});
        }
        lines.add("Peers: " + rows.size());
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"NAME", "STATE", "ADDRESS", "TREE", "DEPTH",
                "RTT_MS", "LOSS", "RX/s", "TX/s", "NODE_ADDR"}, rows).split("\n")));
        }
    }

    private static void sessions(final Poll p, final List<String> lines) {
        if (p.sessions() == null) {
            lines.add("(no session list)");
            return;
        }
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode s : p.sessions().path("sessions")) {
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
    }

    private static void tree(final Poll p, final List<String> lines) {
        final JsonNode t = p.tree();
        if (t == null) {
            lines.add("(no tree)");
            return;
        }
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
    }

    private static String text(final JsonNode v) {
        return TableView.text(v);
    }

    private static double[] values(final JsonNode arr) {
        final double[] v = new double[arr.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = arr.get(i).isNumber() ? arr.get(i).asDouble() : Double.NaN;
        }
        return v;
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

    private static String fit(final String line, final int width) {
        return line.length() <= width ? line : line.substring(0, Math.max(0, width));
    }
}
