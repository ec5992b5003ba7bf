package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The default, human-readable rendering of each response's {@code data}. It reads JSON trees only, so it works
 * against any daemon that speaks the protocol; a key the daemon leaves out shows as {@code -}.
 */
final class TableView {
    private TableView() {
    }

    static String status(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final String k : List.of("version", "npub", "node_addr", "ipv6_addr", "state", "is_leaf_only",
                "peer_count", "session_count", "link_count", "transport_count", "connection_count", "tun_state",
                "tun_name", "effective_ipv6_mtu", "estimated_mesh_size", "root", "is_root", "persistent",
                "uptime_secs", "pid", "exe_path", "control_socket")) {
            rows.add(new String[] {k + ":", text(d.get(k))});
        }
        rows.add(new String[] {"transport_peer_counts:", pairs(d.get("transport_peer_counts"))});
        return table(null, rows) + "(forwarding counters and sparklines: --json)";
    }

    static String peers(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("peers")) {
            final String tree = p.path("is_parent").asBoolean() ? "parent"
                    : p.path("is_child").asBoolean() ? "child" : "-";
            rows.add(new String[] {text(p.get("display_name")), text(p.get("npub")), text(p.get("connectivity")),
                text(p.get("transport_type")), text(p.get("transport_addr")), text(p.get("direction")),
                text(p.get("tree_depth")), tree, text(p.path("mmp").get("srtt_ms")),
                text(p.path("mmp").get("loss_rate")), text(p.path("stats").get("bytes_recv")),
                text(p.path("stats").get("bytes_sent"))});
        }
        // Configured peers that are down (not in the reference's reply): their state instead of link figures.
        for (final JsonNode p : d.path("not_connected")) {
            rows.add(new String[] {text(p.get("display_name")), text(p.get("npub")), downState(p),
                text(p.get("transport_type")), text(p.get("transport_addr")), "-", "-", "-", "-", "-", "-", "-"});
        }
        return rows.isEmpty() ? "(no peers)" : table(new String[] {"NAME", "NPUB", "STATE", "TRANSPORT",
            "ADDRESS", "DIR", "DEPTH", "TREE", "SRTT_MS", "LOSS", "RX_BYTES", "TX_BYTES"}, rows).stripTrailing();
    }

    /** {@code retry in 12s} for a scheduled redial (rounded up), else the state as the daemon names it. */
    private static String downState(final JsonNode p) {
        if ("retrying".equals(p.path("state").asText()) && p.path("retry_in_ms").canConvertToLong()) {
            return "retry in " + (Math.max(0, p.get("retry_in_ms").asLong()) + 999) / 1000 + "s";
        }
        return text(p.get("state"));
    }

    static String links(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode l : d.path("links")) {
            final JsonNode s = l.path("stats");
            rows.add(new String[] {text(l.get("link_id")), text(l.get("transport_id")), text(l.get("remote_addr")),
                text(l.get("direction")), text(l.get("state")), text(s.get("packets_recv")),
                text(s.get("packets_sent")), text(s.get("bytes_recv")), text(s.get("bytes_sent"))});
        }
        return rows.isEmpty() ? "(no links)" : table(new String[] {"LINK", "TRANSPORT", "REMOTE", "DIR", "STATE",
            "RX_PKTS", "TX_PKTS", "RX_BYTES", "TX_BYTES"}, rows).stripTrailing();
    }

    static String connections(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode c : d.path("connections")) {
            rows.add(new String[] {text(c.get("link_id")), text(c.get("direction")), text(c.get("handshake_state")),
                text(c.get("idle_ms")), text(c.get("resend_count")), text(c.get("expected_peer"))});
        }
        return rows.isEmpty() ? "(no handshakes in flight)" : table(new String[] {"LINK", "DIR", "STATE",
            "IDLE_MS", "RESENDS", "EXPECTED_PEER"}, rows).stripTrailing();
    }

    static String transports(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode t : d.path("transports")) {
            rows.add(new String[] {text(t.get("transport_id")), text(t.get("type")), text(t.get("name")),
                text(t.get("state")), text(t.get("mtu")), text(t.get("local_addr")), pairs(t.get("stats"))});
        }
        return rows.isEmpty() ? "(no transports)" : table(new String[] {"ID", "TYPE", "NAME", "STATE", "MTU",
            "LOCAL", "STATS"}, rows).stripTrailing();
    }

    static String acl(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final String k : List.of("effective_mode", "default_decision", "enforcement_active", "allow_all",
                "deny_all", "allow_file", "deny_file")) {
            rows.add(new String[] {k + ":", text(d.get(k))});
        }
        for (final String k : List.of("allow_file_entries", "deny_file_entries", "allow_entries", "deny_entries")) {
            rows.add(new String[] {k + ":", list(d.get(k))});
        }
        return table(null, rows).stripTrailing();
    }

    static String tree(final JsonNode d) {
        final List<String[]> head = new ArrayList<>();
        for (final String k : List.of("my_node_addr", "root", "root_npub", "is_root", "depth", "parent",
                "parent_display_name", "declaration_sequence", "peer_tree_count")) {
            head.add(new String[] {k + ":", text(d.get(k))});
        }
        head.add(new String[] {"my_coords:", list(d.get("my_coords"))});
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("peers")) {
            rows.add(new String[] {text(p.get("display_name")), text(p.get("node_addr")), text(p.get("depth")),
                text(p.get("distance_to_us")), text(p.get("root"))});
        }
        final String peers = rows.isEmpty() ? "(no peer has a tree position)" : table(new String[] {"PEER",
            "NODE_ADDR", "DEPTH", "DISTANCE", "ROOT"}, rows).stripTrailing();
        return table(null, head) + "\n" + peers + "\n\nstats: " + pairs(d.get("stats"));
    }

    static String bloom(final JsonNode d) {
        final List<String[]> head = new ArrayList<>();
        for (final String k : List.of("own_node_addr", "is_leaf_only", "sequence", "leaf_dependent_count",
                "uptree_fill_ratio", "uptree_estimated_count")) {
            head.add(new String[] {k + ":", text(d.get(k))});
        }
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("peer_filters")) {
            rows.add(new String[] {text(p.get("display_name")), text(p.get("peer")), text(p.get("has_filter")),
                text(p.get("filter_sequence")), text(p.get("set_bits")), text(p.get("fill_ratio")),
                text(p.get("estimated_count"))});
        }
        final String peers = rows.isEmpty() ? "(no peers)" : table(new String[] {"PEER", "NODE_ADDR", "FILTER",
            "SEQUENCE", "SET_BITS", "FILL", "EST_COUNT"}, rows).stripTrailing();
        return table(null, head) + "\n" + peers + "\n\nstats: " + pairs(d.get("stats"));
    }

    static String cache(final JsonNode d) {
        final List<String[]> head = new ArrayList<>();
        for (final String k : List.of("count", "max_entries", "fill_ratio", "default_ttl_ms", "expired",
                "avg_age_ms")) {
            head.add(new String[] {k + ":", text(d.get(k))});
        }
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode e : d.path("entries")) {
            rows.add(new String[] {text(e.get("display_name")), text(e.get("node_addr")), text(e.get("depth")),
                text(e.get("age_ms")), text(e.get("path_mtu")), list(e.get("coords"))});
        }
        final String entries = rows.isEmpty() ? "(no cached coordinates)" : table(new String[] {"NODE",
            "NODE_ADDR", "DEPTH", "AGE_MS", "PATH_MTU", "COORDS"}, rows).stripTrailing();
        return table(null, head) + "\n" + entries;
    }

    static String identityCache(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode e : d.path("entries")) {
            rows.add(new String[] {text(e.get("display_name")), text(e.get("npub")), text(e.get("ipv6_addr")),
                text(e.get("age_ms"))});
        }
        final String head = "count: " + text(d.get("count")) + ", max_entries: " + text(d.get("max_entries"));
        return rows.isEmpty() ? head + "\n(no known identities)" : head + "\n" + table(new String[] {"NAME", "NPUB",
            "IPV6", "AGE_MS"}, rows).stripTrailing();
    }

    static String sessions(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode e : d.path("sessions")) {
            final JsonNode st = e.path("stats");
            rows.add(new String[] {text(e.get("display_name")), text(e.get("remote_addr")), text(e.get("state")),
                text(e.get("is_initiator")), text(e.has("current_k_bit") ? e.get("current_k_bit") : null),
                text(st.get("packets_sent")), text(st.get("packets_recv")), text(st.get("bytes_sent")),
                text(st.get("bytes_recv"))});
        }
        return rows.isEmpty() ? "(no sessions)" : table(new String[] {"NAME", "REMOTE", "STATE", "INITIATOR", "K",
            "PKTS_OUT", "PKTS_IN", "BYTES_OUT", "BYTES_IN"}, rows).stripTrailing();
    }

    static String mmp(final JsonNode d) {
        final List<String[]> peers = new ArrayList<>();
        for (final JsonNode e : d.path("peers")) {
            final JsonNode l = e.path("link_layer");
            peers.add(new String[] {text(e.get("display_name")), text(e.get("mode")), text(l.get("srtt_ms")),
                text(l.get("loss_rate")), text(l.get("etx")), text(l.get("goodput_bps"))});
        }
        final List<String[]> sessions = new ArrayList<>();
        for (final JsonNode e : d.path("sessions")) {
            final JsonNode l = e.path("session_layer");
            sessions.add(new String[] {text(e.get("display_name")), text(e.get("mode")), text(l.get("path_mtu")),
                text(l.get("loss_rate")), text(l.get("etx"))});
        }
        return (peers.isEmpty() ? "(no peers)" : table(new String[] {"PEER", "MODE", "SRTT_MS", "LOSS", "ETX",
            "GOODPUT_BPS"}, peers).stripTrailing()) + "\n\n" + (sessions.isEmpty() ? "(no sessions)"
                : table(new String[] {"SESSION", "MODE", "PATH_MTU", "LOSS", "ETX"}, sessions).stripTrailing());
    }

    static String routing(final JsonNode d) {
        final List<String[]> head = new ArrayList<>();
        for (final String k : List.of("coord_cache_entries", "identity_cache_entries", "recent_requests",
                "pending_tun_destinations", "pending_tun_packets")) {
            head.add(new String[] {k + ":", text(d.get(k))});
        }
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("pending_lookups")) {
            rows.add(new String[] {text(p.get("display_name")), text(p.get("target")), text(p.get("attempt")),
                text(p.get("age_ms"))});
        }
        final String pending = rows.isEmpty() ? "(no lookups pending)" : table(new String[] {"TARGET",
            "NODE_ADDR", "ATTEMPT", "AGE_MS"}, rows).stripTrailing();
        final StringBuilder sb = new StringBuilder(table(null, head)).append('\n').append(pending).append("\n\n");
        for (final String k : List.of("forwarding", "discovery", "error_signals", "congestion")) {
            sb.append(k).append(": ").append(pairs(d.get(k))).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    /** {@code show_listening_sockets}: a banner line about the firewall, then one row per socket. */
    static String listeningSockets(final JsonNode d) {
        final JsonNode active = d.get("firewall_active");
        final String banner = "fips0 " + text(d.get("fips0_addr")) + ", firewall (inet fips): "
                + (active == null || active.isNull() ? "unknown" : active.asBoolean() ? "active" : "not active");
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode s : d.path("sockets")) {
            rows.add(new String[] {text(s.get("proto")), text(s.get("local_addr")), text(s.get("port")),
                s.path("wildcard_bind").asBoolean() ? "wildcard" : "fips0", text(s.get("filter")),
                text(s.get("pid")), text(s.get("process"))});
        }
        return banner + "\n" + (rows.isEmpty() ? "(no sockets reachable from fips0)" : table(new String[] {"PROTO",
            "LOCAL", "PORT", "BIND", "FILTER", "PID", "PROCESS"}, rows).stripTrailing());
    }

    static String nostr(final JsonNode d) {
        if (!d.path("enabled").asBoolean(false)) {
            return "Nostr discovery is off (node.discovery.nostr.enabled: false)";
        }
        final JsonNode ours = d.path("our_advert");
        final List<String> eps = new ArrayList<>();
        ours.path("endpoints").forEach(e -> eps.add(text(e.get("transport")) + " " + text(e.get("addr"))));
        final StringBuilder sb = new StringBuilder();
        sb.append("policy ").append(text(d.get("policy"))).append(", app ").append(text(d.get("app")))
                .append(", advertise ").append(text(d.get("advertise"))).append('\n');
        sb.append("our advert: ").append(eps.isEmpty() ? "(no endpoint)" : String.join(", ", eps))
                .append("; last publish ").append(text(ours.get("last_publish_ms"))).append(" ms, expires ")
                .append(text(ours.get("expires_at_ms"))).append(" ms\n\n");
        final List<String[]> relays = new ArrayList<>();
        for (final JsonNode r : d.path("relays")) {
            relays.add(new String[] {text(r.get("url")), text(r.get("state")), text(r.get("connects")),
                text(r.get("disconnects")), text(r.get("events_delivered")), text(r.get("events_invalid"))});
        }
        sb.append(relays.isEmpty() ? "(no relays)" : table(new String[] {"RELAY", "STATE", "CONNECTS",
            "DISCONNECTS", "EVENTS", "INVALID"}, relays).stripTrailing()).append("\n\n");
        final List<String[]> adverts = new ArrayList<>();
        for (final JsonNode a : d.path("adverts")) {
            final List<String> e = new ArrayList<>();
            a.path("endpoints").forEach(x -> e.add(text(x.get("transport")) + " " + text(x.get("addr"))));
            adverts.add(new String[] {text(a.get("npub")), String.join(", ", e), text(a.get("valid_until_ms"))});
        }
        sb.append(adverts.isEmpty() ? "(no adverts seen)" : table(new String[] {"ADVERT", "ENDPOINTS",
            "VALID_UNTIL_MS"}, adverts).stripTrailing()).append("\n\n");
        final List<String[]> dials = new ArrayList<>();
        for (final JsonNode x : d.path("dials")) {
            dials.add(new String[] {text(x.get("display_name")), text(x.get("endpoint")), text(x.get("outcome")),
                text(x.get("consecutive_failures")), text(x.get("cooldown_until_ms"))});
        }
        sb.append(dials.isEmpty() ? "(no dials from adverts)" : table(new String[] {"PEER", "ENDPOINT", "OUTCOME",
            "FAILURES", "COOLDOWN_UNTIL_MS"}, dials).stripTrailing());
        final List<String[]> traversals = new ArrayList<>();
        for (final JsonNode x : d.path("traversals")) {
            traversals.add(new String[] {text(x.get("npub")), x.path("in_flight").asBoolean() ? "yes" : "no",
                text(x.get("initiated")), text(x.get("answered")), text(x.get("established")), text(x.get("failed")),
                text(x.get("last_outcome")), text(x.get("last_reason")), text(x.get("last_remote"))});
        }
        sb.append("\n\n").append(traversals.isEmpty() ? "(no NAT traversals)" : table(new String[] {"TRAVERSAL",
            "IN_FLIGHT", "INITIATED", "ANSWERED", "ESTABLISHED", "FAILED", "LAST", "REASON", "REMOTE"}, traversals)
            .stripTrailing());
        return sb.toString();
    }

    /** {@code show_lan}: one line of what runs and the counters, then one row per peer seen. */
    static String lan(final JsonNode d) {
        if (!d.path("enabled").asBoolean(false)) {
            return "LAN discovery: off (node.discovery.lan.enabled: false)";
        }
        final String head = d.path("running").asBoolean(false)
                ? "LAN discovery: " + text(d.get("service_type")) + " as " + text(d.get("instance_name")) + ", port "
                        + text(d.get("port")) + ", scope " + text(d.get("scope")) + ", " + text(d.get("interfaces"))
                        + " interface address(es)"
                : "LAN discovery: enabled but not running: " + text(d.get("problem"));
        final String counters = "announcements seen " + text(d.get("announcements_seen")) + ", refused "
                + text(d.get("announcements_refused")) + ", dropped " + text(d.get("queue_dropped"))
                + ", dials started " + text(d.get("dials_started"));
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("peers")) {
            rows.add(new String[] {text(p.get("npub")), text(p.get("address")), text(p.get("scope")),
                p.path("present").asBoolean() ? "yes" : "no", text(p.get("last_seen_ms_ago")), text(p.get("dials")),
                text(p.get("last_dial"))});
        }
        return head + "\n" + counters + "\n" + (rows.isEmpty() ? "(no LAN peers seen)" : table(new String[] {"NPUB",
            "ADDRESS", "SCOPE", "PRESENT", "LAST_SEEN_MS_AGO", "DIALS", "LAST_DIAL"}, rows).stripTrailing());
    }

    static String connect(final JsonNode d) {
        if (d.path("already_connected").asBoolean(false)) {
            return "already connected: " + text(d.get("npub")) + " (no dial started; see 'fipsctl show peers')";
        }
        return "connect started: " + text(d.get("npub")) + " via " + text(d.get("transport")) + " "
                + text(d.get("address")) + "\n(the handshake runs in the background; see 'fipsctl show peers')";
    }

    static String disconnect(final JsonNode d) {
        return "disconnected: " + text(d.get("npub"));
    }

    static String text(final JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return "-";
        }
        if (v.isFloatingPointNumber()) {
            final double x = v.asDouble();
            return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : String.format("%.3f", x);
        }
        return v.isValueNode() ? v.asText() : JsonText.compact(v);
    }

    static String pairs(final JsonNode obj) {
        if (obj == null || !obj.isObject() || obj.isEmpty()) {
            return "-";
        }
        final StringBuilder sb = new StringBuilder();
        for (final Map.Entry<String, JsonNode> e : obj.properties()) {
            sb.append(sb.isEmpty() ? "" : " ").append(e.getKey()).append('=').append(text(e.getValue()));
        }
        return sb.toString();
    }

    private static String list(final JsonNode arr) {
        if (arr == null || !arr.isArray() || arr.isEmpty()) {
            return "(none)";
        }
        final List<String> items = new ArrayList<>();
        arr.forEach(v -> items.add(text(v)));
        return String.join(", ", items);
    }

    /** Left-aligned columns two spaces apart; no header line when {@code header} is null. */
    static String table(final String[] header, final List<String[]> rows) {
        final List<String[]> all = new ArrayList<>();
        if (header != null) {
            all.add(header);
        }
        all.addAll(rows);
        final int cols = all.get(0).length;
        final int[] width = new int[cols];
        for (final String[] r : all) {
            for (int i = 0; i < cols; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        final StringBuilder sb = new StringBuilder();
        for (final String[] r : all) {
            final StringBuilder line = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                line.append(i == cols - 1 ? r[i] : String.format("%-" + width[i] + "s  ", r[i]));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
