package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.cli.TopView.Body;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;

/** The Node, Peers and Performance views of {@code fipsctl top} ({@link TopView} frames them). */
final class TopPeerViews {

    private TopPeerViews() {
    }

    static Body node(final Poll p) {
        final List<String> lines = new ArrayList<>();
        final JsonNode s = p.status();
        if (s == null) {
            return new Body(List.of("(no status)"), -1);
        }
        lines.add("npub:      " + TopFormat.text(s.get("npub")));
        lines.add("node_addr: " + TopFormat.text(s.get("node_addr"))
                + "   ipv6: " + TopFormat.text(s.get("ipv6_addr")));
        lines.add("version:   " + TopFormat.text(s.get("version")) + "   state: " + TopFormat.text(s.get("state"))
                + "   uptime: " + TopFormat.uptime(s.get("uptime_secs")) + "   pid: " + TopFormat.text(s.get("pid")));
        final JsonNode tree = p.get(Source.TREE);
        lines.add("peers: " + TopFormat.text(s.get("peer_count"))
                + "   sessions: " + TopFormat.text(s.get("session_count"))
                + "   links: " + TopFormat.text(s.get("link_count"))
                + "   mesh size: " + TopFormat.text(s.get("estimated_mesh_size"))
                + "   tun: " + TopFormat.text(s.get("tun_state")) + " " + TopFormat.text(s.get("tun_name")));
        lines.add("root: " + TopFormat.text(s.get("root")) + (s.path("is_root").asBoolean() ? " (us)" : "")
                + "   depth: " + (tree == null ? "-" : TopFormat.text(tree.get("depth"))) + "   parent: "
                + (tree == null ? "-" : TopFormat.text(tree.get("parent_display_name"))));
        final JsonNode f = s.path("forwarding");
        lines.add("packets: originated " + TopFormat.text(f.get("originated_packets"))
                + "   delivered " + TopFormat.text(f.get("delivered_packets"))
                + "   forwarded " + TopFormat.text(f.get("forwarded_packets"))
                + "   dropped (no route) " + TopFormat.text(f.get("drop_no_route_packets"))
                + "   (Routing view: all counters)");
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
                        Double.isNaN(st[2]) ? "-" : TopFormat.number(st[2]), StatsTables.sparkline(v, st[0], st[1])));
            }
        }
        lines.add("");
        final JsonNode l = p.get(Source.LISTENING);
        if (l == null) {
            lines.add("Listening on fips0: -");
            return new Body(lines, -1);
        }
        final JsonNode fw = l.get("firewall_active");
        lines.add("Listening on fips0 (" + TopFormat.text(l.get("fips0_addr")) + "), firewall: "
                + (fw == null || fw.isNull() ? "unknown" : fw.asBoolean() ? "active" : "NOT ACTIVE"));
        for (final JsonNode sock : l.path("sockets")) {
            final String filter = sock.path("filter").asText();
            final String mark = switch (filter) {
                case "accept", "no_firewall" -> "OPEN";
                case "drop" -> "filt";
                default -> "filt?";
            };
            lines.add(String.format(Locale.ROOT, "  %-5s %-4s %5s  %-8s %s", mark, TopFormat.text(sock.get("proto")),
                    TopFormat.text(sock.get("port")), sock.path("wildcard_bind").asBoolean() ? "[::]" : "fips0",
                    TopFormat.text(sock.get("process"))));
        }
        return new Body(lines, -1);
    }

    static Body peers(final Poll p, final Map<String, double[]> rates, final TopState state) {
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
            rows.add(new String[] {i == sel ? ">" : " ", TopFormat.text(peer.get("display_name")),
                TopFormat.text(peer.get("connectivity")), TopFormat.text(peer.get("transport_addr")), role(peer),
                TopFormat.text(peer.get("tree_depth")), TopFormat.text(peer.path("mmp").get("srtt_ms")),
                TopFormat.text(peer.path("mmp").get("loss_rate")), r == null ? "-" : TopFormat.bytesPerSecond(r[0]),
                r == null ? "-" : TopFormat.bytesPerSecond(r[1]), TopFormat.text(peer.get("node_addr"))});
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

    static String role(final JsonNode peer) {
        return peer.path("is_parent").asBoolean() ? "parent" : peer.path("is_child").asBoolean() ? "child" : "-";
    }

    static void peerDetail(final JsonNode peer, final List<String> lines) {
        final JsonNode st = peer.path("stats");
        final JsonNode m = peer.path("mmp");
        lines.add(TopFormat.text(peer.get("display_name")) + "  " + TopFormat.text(peer.get("npub")));
        lines.add("  node_addr " + TopFormat.text(peer.get("node_addr"))
                + "   ipv6 " + TopFormat.text(peer.get("ipv6_addr")));
        lines.add("  link " + TopFormat.text(peer.get("link_id")) + "   " + TopFormat.text(peer.get("transport_type"))
                + " " + TopFormat.text(peer.get("transport_addr")) + "   " + TopFormat.text(peer.get("direction"))
                + "   " + TopFormat.text(peer.get("connectivity")));
        lines.add("  tree: " + role(peer) + ", depth " + TopFormat.text(peer.get("tree_depth")) + ", effective depth "
                + TopFormat.text(peer.get("effective_depth")) + "   bloom filter: "
                + (peer.path("has_bloom_filter").asBoolean()
                        ? "yes, seq " + TopFormat.text(peer.get("filter_sequence")) : "no"));
        lines.add("  packets tx/rx " + TopFormat.text(st.get("packets_sent"))
                + " / " + TopFormat.text(st.get("packets_recv"))
                + "   bytes tx/rx " + TopFormat.text(st.get("bytes_sent"))
                + " / " + TopFormat.text(st.get("bytes_recv")));
        lines.add("  replay suppressed " + TopFormat.text(peer.get("replay_suppressed"))
                + "   decrypt failures in a row " + TopFormat.text(peer.get("consecutive_decrypt_failures"))
                + "   k bit " + TopFormat.text(peer.get("current_k_bit")));
        lines.add("  mmp: mode " + TopFormat.text(m.get("mode")) + "   srtt_ms " + TopFormat.text(m.get("srtt_ms"))
                + "   loss " + TopFormat.text(m.get("loss_rate")) + "   etx " + TopFormat.text(m.get("etx"))
                + "   goodput_bps " + TopFormat.text(m.get("goodput_bps")) + "   lqi " + TopFormat.text(m.get("lqi")));
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
    static Body performance(final Poll p, final TopState state) {
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
                    row[c] = TopFormat.text(cols.get(c).of(r));
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
    static int compare(final JsonNode a, final JsonNode b, final boolean descending) {
        final boolean na = a == null || a.isNull() || a.isMissingNode();
        final boolean nb = b == null || b.isNull() || b.isMissingNode();
        if (na || nb) {
            return Boolean.compare(na, nb);
        }
        final int c = a.isNumber() && b.isNumber() ? Double.compare(a.asDouble(), b.asDouble())
                : String.CASE_INSENSITIVE_ORDER.compare(a.asText(), b.asText());
        return descending ? -c : c;
    }

}
