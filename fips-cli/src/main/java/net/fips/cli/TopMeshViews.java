package net.fips.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.cli.TopView.Body;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;

/** The Transports, Sessions, Tree and Routing views of {@code fipsctl top} ({@link TopView} frames them). */
final class TopMeshViews {

    private TopMeshViews() {
    }

    /** Each transport, then (unless collapsed) its links with the peer on each. */
    static Body transports(final Poll p, final TopState state) {
        final JsonNode t = p.get(Source.TRANSPORTS);
        if (t == null) {
            return new Body(List.of("(no transport list)"), -1);
        }
        final JsonNode links = p.get(Source.LINKS);
        final Map<Long, String> peerByLink = new HashMap<>();
        if (p.peers() != null) {
            for (final JsonNode peer : p.peers().path("peers")) {
                if (peer.path("link_id").isIntegralNumber()) {
                    peerByLink.put(peer.path("link_id").asLong(), TopFormat.text(peer.get("display_name")));
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
            rows.add(new String[] {mark + transportLabel(tr), TopFormat.text(tr.get("state")), "",
                TopFormat.text(tr.get("mtu")), TopFormat.text(first(st, "packets_sent", "frames_sent")),
                TopFormat.text(first(st, "packets_recv", "frames_recv")),
                TopFormat.text(st.get("bytes_sent")), TopFormat.text(st.get("bytes_recv"))});
            final StringBuilder others = new StringBuilder();
            for (final Map.Entry<String, JsonNode> e : st.properties()) {
                if (!List.of("packets_sent", "frames_sent", "packets_recv", "frames_recv", "bytes_sent",
                        "bytes_recv").contains(e.getKey())) {
                    others.append(others.isEmpty() ? "" : " ").append(e.getKey()).append('=')
                            .append(TopFormat.text(e.getValue()));
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
                    + TopFormat.text(l.get("remote_addr")), TopFormat.text(l.get("state")),
                    peerByLink.getOrDefault(l.path("link_id").asLong(-1), "-"), "",
                    TopFormat.text(ls.get("packets_sent")), TopFormat.text(ls.get("packets_recv")),
                    TopFormat.text(ls.get("bytes_sent")), TopFormat.text(ls.get("bytes_recv"))});
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

    static JsonNode first(final JsonNode obj, final String a, final String b) {
        return obj.has(a) ? obj.get(a) : obj.get(b);
    }

    static String transportLabel(final JsonNode t) {
        final String type = t.path("type").asText("?");
        final String id = " #" + TopFormat.text(t.get("transport_id"));
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

    static Body sessions(final Poll p) {
        final JsonNode d = p.get(Source.SESSIONS);
        if (d == null) {
            return new Body(List.of("(no session list)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode s : d.path("sessions")) {
            rows.add(new String[] {TopFormat.text(s.get("display_name")), TopFormat.text(s.get("state")),
                s.path("is_initiator").asBoolean() ? "out" : "in", TopFormat.text(s.path("mmp").get("srtt_ms")),
                TopFormat.text(s.path("mmp").get("loss_rate")), TopFormat.text(s.path("stats").get("bytes_recv")),
                TopFormat.text(s.path("stats").get("bytes_sent")), TopFormat.text(s.get("remote_addr"))});
        }
        lines.add("Sessions: " + rows.size());
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"NAME", "STATE", "DIR", "RTT_MS", "LOSS", "RX_BYTES",
                "TX_BYTES", "REMOTE"}, rows).split("\n")));
        }
        return new Body(lines, -1);
    }

    static Body tree(final Poll p, final int width) {
        final JsonNode t = p.get(Source.TREE);
        if (t == null) {
            return new Body(List.of("(no tree)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        lines.add("root: " + TopFormat.text(t.get("root")) + (t.path("is_root").asBoolean() ? " (us)" : ""));
        lines.add("depth: " + TopFormat.text(t.get("depth"))
                + "   parent: " + TopFormat.text(t.get("parent_display_name"))
                + "   declaration seq: " + TopFormat.text(t.get("declaration_sequence")));
        final List<String> coords = new ArrayList<>();
        t.path("my_coords").forEach(c -> coords.add(c.asText()));
        lines.add("coords (self -> root): " + (coords.isEmpty() ? "-" : String.join(" > ", coords)));
        lines.add("");
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode peer : t.path("peers")) {
            rows.add(new String[] {TopFormat.text(peer.get("display_name")), TopFormat.text(peer.get("depth")),
                TopFormat.text(peer.get("distance_to_us")), TopFormat.text(peer.get("root")),
                TopFormat.text(peer.get("node_addr"))});
        }
        lines.add("Tree peers: " + rows.size());
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"NAME", "DEPTH", "DISTANCE", "ROOT", "NODE_ADDR"},
                    rows).split("\n")));
        }
        lines.add("");
        lines.add("Tree announcements");
        lines.addAll(TopFormat.grid(TopFormat.counters(t.get("stats")), width));
        return new Body(lines, -1);
    }

    /**
     * Routing state and the coordinate cache, the forwarding counters as packets and bytes (the mesh's transmit
     * total derived as originated plus forwarded, as the reference's fipstop does), route classes as shares of
     * forwarded, then discovery, error-signal and congestion counters, pending lookups and retries.
     */
    static Body routing(final Poll p, final int width) {
        final JsonNode d = p.get(Source.ROUTING);
        if (d == null) {
            return new Body(List.of("(no routing state)"), -1);
        }
        final List<String> lines = new ArrayList<>();
        lines.add("Routing state");
        lines.addAll(TopFormat.grid(List.of(
                new String[] {"coord cache entries", TopFormat.text(d.get("coord_cache_entries"))},
                new String[] {"identity cache entries", TopFormat.text(d.get("identity_cache_entries"))},
                new String[] {"pending lookups", d.path("pending_lookups").isArray()
                    ? Integer.toString(d.path("pending_lookups").size()) : "-"},
                new String[] {"recent requests", TopFormat.text(d.get("recent_requests"))},
                new String[] {"pending TUN destinations", TopFormat.text(d.get("pending_tun_destinations"))},
                new String[] {"pending TUN packets", TopFormat.text(d.get("pending_tun_packets"))}), width));
        final JsonNode c = p.get(Source.CACHE);
        lines.add("");
        lines.add("Coordinate cache");
        if (c == null) {
            lines.add("  -");
        } else {
            final JsonNode fill = c.get("fill_ratio");
            lines.addAll(TopFormat.grid(List.of(new String[] {"entries", TopFormat.text(c.get("count")) + " / "
                    + TopFormat.text(c.get("max_entries"))},
                new String[] {"fill", fill == null || !fill.isNumber() ? "-"
                    : String.format(Locale.ROOT, "%.1f%%", fill.asDouble() * 100)},
                new String[] {"default TTL", TopFormat.millis(c.get("default_ttl_ms"))},
                new String[] {"expired", TopFormat.text(c.get("expired"))},
                new String[] {"avg age", TopFormat.millis(c.get("avg_age_ms"))}), width));
        }
        final JsonNode f = d.path("forwarding");
        lines.add("");
        final List<String[]> fwd = new ArrayList<>();
        fwd.add(new String[] {"local stack tx (originated)", TopFormat.text(f.get("originated_packets")),
            TopFormat.bytes(f.get("originated_bytes"))});
        fwd.add(new String[] {"local stack rx (delivered)", TopFormat.text(f.get("delivered_packets")),
            TopFormat.bytes(f.get("delivered_bytes"))});
        fwd.add(new String[] {"mesh tx (originated + forwarded)",
            TopFormat.sum(f, "originated_packets", "forwarded_packets"),
            TopFormat.sum(f, "originated_bytes", "forwarded_bytes")});
        fwd.add(new String[] {"mesh rx (received)", TopFormat.text(f.get("received_packets")),
            TopFormat.bytes(f.get("received_bytes"))});
        fwd.add(new String[] {"forwarded", TopFormat.text(f.get("forwarded_packets")),
            TopFormat.bytes(f.get("forwarded_bytes"))});
        fwd.add(new String[] {"dropped: no route", TopFormat.text(f.get("drop_no_route_packets")),
            TopFormat.bytes(f.get("drop_no_route_bytes"))});
        fwd.add(new String[] {"dropped: TTL exhausted", TopFormat.text(f.get("ttl_exhausted_packets")),
            TopFormat.bytes(f.get("ttl_exhausted_bytes"))});
        fwd.add(new String[] {"dropped: decode error", TopFormat.text(f.get("decode_error_packets")),
            TopFormat.bytes(f.get("decode_error_bytes"))});
        fwd.add(new String[] {"dropped: MTU exceeded", TopFormat.text(f.get("drop_mtu_exceeded_packets")),
            TopFormat.bytes(f.get("drop_mtu_exceeded_bytes"))});
        fwd.add(new String[] {"dropped: send error", TopFormat.text(f.get("drop_send_error_packets")),
            TopFormat.bytes(f.get("drop_send_error_bytes"))});
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
            classes.add(new String[] {k[0], TopFormat.text(n), TopFormat.share(n, total)});
        }
        lines.addAll(List.of(TableView.table(new String[] {"Route class", "COUNT", "OF FORWARDED"}, classes)
                .split("\n")));
        final JsonNode disc = d.path("discovery");
        final List<String[]> req = new ArrayList<>();
        final List<String[]> resp = new ArrayList<>();
        for (final Map.Entry<String, JsonNode> e : disc.properties()) {
            if (e.getKey().startsWith("req_")) {
                req.add(new String[] {e.getKey().substring(4), TopFormat.text(e.getValue())});
            } else if (e.getKey().startsWith("resp_")) {
                resp.add(new String[] {e.getKey().substring(5), TopFormat.text(e.getValue())});
            }
        }
        lines.add("");
        lines.add("Discovery requests");
        lines.addAll(req.isEmpty() ? List.of("  -") : TopFormat.grid(req, width));
        lines.add("Discovery responses");
        lines.addAll(resp.isEmpty() ? List.of("  -") : TopFormat.grid(resp, width));
        lines.add("Error signals");
        lines.addAll(TopFormat.grid(TopFormat.counters(d.get("error_signals")), width));
        lines.add("Congestion");
        lines.addAll(TopFormat.grid(TopFormat.counters(d.get("congestion")), width));
        lines.add("");
        final List<String[]> pending = new ArrayList<>();
        for (final JsonNode l : d.path("pending_lookups")) {
            pending.add(new String[] {TopFormat.text(l.get("display_name")), TopFormat.text(l.get("target")),
                TopFormat.text(l.get("attempt")), TopFormat.millis(l.get("age_ms"))});
        }
        lines.add("Pending lookups: " + pending.size());
        if (!pending.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"  TARGET", "NODE_ADDR", "ATTEMPT", "AGE"},
                    TopFormat.indent(pending)).split("\n")));
        }
        final List<String[]> retries = new ArrayList<>();
        for (final JsonNode r : d.path("retries")) {
            retries.add(new String[] {TopFormat.text(r.get("display_name")), TopFormat.text(r.get("node_addr")),
                TopFormat.text(r.get("retry_count")), TopFormat.text(r.get("retry_after_ms")),
                TopFormat.text(r.get("auto_reconnect"))});
        }
        lines.add("Retries: " + (d.path("retries").isArray() ? Integer.toString(retries.size()) : "-"));
        if (!retries.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"  PEER", "NODE_ADDR", "RETRIES", "RETRY_AT_MS",
                "AUTO_RECONNECT"}, TopFormat.indent(retries)).split("\n")));
        }
        lines.addAll(nostr(p.get(Source.NOSTR)));
        return new Body(lines, -1);
    }

    /** @return the Routing view's Nostr section: one summary line and the dials from adverts (nothing when off) */
    static List<String> nostr(final JsonNode n) {
        if (n == null || !n.path("enabled").asBoolean(false)) {
            return List.of();
        }
        int connected = 0;
        for (final JsonNode r : n.path("relays")) {
            connected += "connected".equals(r.path("state").asText()) ? 1 : 0;
        }
        final JsonNode last = n.path("our_advert").get("last_publish_ms");
        final List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("Nostr: relays " + connected + "/" + n.path("relays").size() + " connected, adverts seen "
                + n.path("adverts").size() + ", our advert " + (last == null || last.isNull() ? "not published"
                : "published at " + TopFormat.text(last) + " ms") + ", policy " + TopFormat.text(n.get("policy")));
        final List<String[]> dials = new ArrayList<>();
        for (final JsonNode x : n.path("dials")) {
            dials.add(new String[] {TopFormat.text(x.get("display_name")), TopFormat.text(x.get("endpoint")),
                TopFormat.text(x.get("outcome")), TopFormat.text(x.get("consecutive_failures"))});
        }
        if (!dials.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"  ADVERT DIAL", "ENDPOINT", "OUTCOME", "FAILURES"},
                    TopFormat.indent(dials)).split("\n")));
        }
        return lines;
    }

}
