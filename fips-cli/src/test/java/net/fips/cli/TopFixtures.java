package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.cli.TopState.GraphsMode;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;
import net.fips.cli.TopView.Tab;
import net.fips.control.ctl.ControlJson;

/** The fixed daemon answers (in the shapes of operator.md §2.3) and drawing helpers the fipsctl top tests share. */
final class TopFixtures {

    private TopFixtures() {
    }

    static JsonNode json(final String s) {
        try {
            return ControlJson.MAPPER.readTree(s);
        } catch (final IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static final String NPUB_US01 = "npub1qmc3zel98";
    static final String NPUB_US02 = "npub10yffksp9u";

    static final JsonNode STATUS = json("""
            {"version":"0.4.1","npub":"npub1sx42kqkhmu5r","node_addr":"1b4788b7ab7a436a611fc59fb1e34c6e",
             "ipv6_addr":"fd1b:4788:b7ab:7a43:6a61:1fc5:9fb1:e34c","state":"running","peer_count":2,
             "session_count":1,"link_count":2,"tun_state":"active","tun_name":"fips0","pid":812,"uptime_secs":3605,
             "estimated_mesh_size":null,"root":"00031f","is_root":false}""");

    static final JsonNode PEERS = json("""
            {"peers":[
             {"node_addr":"7c0a11","npub":"%s","display_name":"test-us01","ipv6_addr":"fd7c:0a11::1",
              "connectivity":"connected","link_id":3,"is_parent":true,"is_child":false,"has_bloom_filter":true,
              "filter_sequence":41,"transport_addr":"203.0.113.7:2121","direction":"outbound",
              "transport_type":"udp","tree_depth":2,"effective_depth":3.18,
              "stats":{"packets_sent":1200,"packets_recv":1185,"bytes_sent":210000,"bytes_recv":198000},
              "replay_suppressed":0,"consecutive_decrypt_failures":0,"current_k_bit":false,
              "mmp":{"mode":"full","srtt_ms":41.2,"loss_rate":0.0,"etx":1.0,"goodput_bps":5200.0,"lqi":null}},
             {"node_addr":"4a1f9c","npub":"%s","display_name":"test-us02","connectivity":"connected",
              "link_id":4,"is_parent":false,"is_child":true,"transport_addr":"198.51.100.9:2121",
              "direction":"inbound","transport_type":"udp","effective_depth":null,
              "stats":{"packets_sent":10,"packets_recv":12,"bytes_sent":900,"bytes_recv":1000}}]}"""
            .formatted(NPUB_US01, NPUB_US02));

    static final JsonNode TRANSPORTS = json("""
            {"transports":[
             {"transport_id":1,"type":"udp","state":"up","mtu":1472,"local_addr":"0.0.0.0:2121",
              "stats":{"packets_sent":1210,"bytes_sent":211000,"packets_recv":1197,"bytes_recv":199000,
                       "send_errors":0,"recv_errors":1,"mtu_exceeded":0,"kernel_drops":null}},
             {"transport_id":2,"type":"tcp","name":"backbone","state":"configured","mtu":1400,"stats":{}},
             {"transport_id":3,"type":"tor","state":"starting","mtu":1400,"tor_mode":"onion",
              "onion_address":"abcdefghijklmnopqrstuvwx.onion","stats":{"frames_sent":5,"frames_recv":null}}]}""");

    static final JsonNode LINKS = json("""
            {"links":[
             {"link_id":3,"transport_id":1,"remote_addr":"203.0.113.7:2121","direction":"outbound",
              "state":"connected","stats":{"packets_sent":1200,"packets_recv":1185,"bytes_sent":210000,
              "bytes_recv":198000}},
             {"link_id":4,"transport_id":1,"remote_addr":"198.51.100.9:2121","direction":"inbound",
              "state":"connected","stats":{"packets_sent":10,"packets_recv":12,"bytes_sent":900,
              "bytes_recv":1000}}]}""");

    static final JsonNode ROUTING = json("""
            {"coord_cache_entries":3,"identity_cache_entries":4,
             "pending_lookups":[{"target":"9e2d77","display_name":"far-node","initiated_ms":1,"last_sent_ms":2,
                                 "attempt":2,"age_ms":1500}],
             "pending_tun_destinations":0,"pending_tun_packets":0,"recent_requests":7,
             "retries":[{"node_addr":"55aa01","display_name":"flaky","retry_count":3,"retry_after_ms":1784473600456,
                         "auto_reconnect":true}],
             "forwarding":{"originated_packets":5012,"originated_bytes":null,"delivered_packets":4977,
              "delivered_bytes":null,"forwarded_packets":200,"forwarded_bytes":null,"received_packets":5180,
              "received_bytes":null,"drop_no_route_packets":3,"drop_no_route_bytes":null,
              "ttl_exhausted_packets":0,"ttl_exhausted_bytes":null,"decode_error_packets":0,
              "decode_error_bytes":null,"drop_mtu_exceeded_packets":0,"drop_mtu_exceeded_bytes":null,
              "drop_send_error_packets":0,"drop_send_error_bytes":null,"route_direct_peer":150,
              "route_tree_down":30,"route_tree_up":20,"route_crosslink_descend":0,"route_crosslink_ascend":0,
              "route_tree_down_cross":0},
             "discovery":{"req_received":11,"req_forwarded":6,"req_initiated":2,"resp_received":2,
                          "resp_timed_out":1},
             "error_signals":{"coords_required":1,"mtu_exceeded":0,"path_broken":0},
             "congestion":{"ce_forwarded":null,"ce_received":null,"congestion_detected":null,
                           "kernel_drop_events":0}}""");

    static final JsonNode CACHE = json("""
            {"count":3,"max_entries":1024,"fill_ratio":0.0029,"default_ttl_ms":300000,"expired":0,"avg_age_ms":12345,
             "entries":[]}""");

    static final JsonNode SESSIONS = json("""
            {"sessions":[{"remote_addr":"4a1f9c22","display_name":"test-us02","state":"established",
             "is_initiator":true,"stats":{"packets_sent":40,"packets_recv":38,"bytes_sent":5100,"bytes_recv":4800},
             "mmp":{"srtt_ms":88.0,"loss_rate":null}}]}""");

    static final JsonNode TREE = json("""
            {"my_node_addr":"1b47","root":"00031f","is_root":false,"depth":2,"my_coords":["1b47","7c0a11","00031f"],
             "parent":"7c0a11","parent_display_name":"test-us01","declaration_sequence":9,"peer_tree_count":1,
             "peers":[{"node_addr":"7c0a11","display_name":"test-us01","depth":1,"root":"00031f",
                       "distance_to_us":1}],
             "stats":{"accepted":5,"parent_switches":1,"received":6}}""");

    static final JsonNode BLOOM = json("""
            {"own_node_addr":"1b47","is_leaf_only":false,"sequence":12,"leaf_dependent_count":0,
             "peer_filters":[{"peer":"7c0a11","display_name":"test-us01","has_filter":true,"filter_sequence":41,
                              "estimated_count":1790.4,"set_bits":5301,"fill_ratio":0.647}],
             "uptree_fill_ratio":null,"uptree_estimated_count":null,"stats":{"accepted":41}}""");

    static final JsonNode MMP = json("""
            {"peers":[{"peer":"7c0a11","display_name":"test-us01","mode":"full",
                       "link_layer":{"loss_rate":0.0,"etx":1.0,"goodput_bps":5200.0,"srtt_ms":41.2}},
                      {"peer":"4a1f9c","display_name":"test-us02","mode":"full",
                       "link_layer":{"loss_rate":0.25,"etx":1.8,"goodput_bps":900.0,"srtt_ms":12.0,"lqi":2.1}},
                      {"peer":"55aa01","display_name":"Flaky","mode":"lite",
                       "link_layer":{"loss_rate":null,"etx":null,"goodput_bps":null}}],
             "sessions":[{"remote":"4a1f9c22","display_name":"test-us02","mode":"full",
                          "session_layer":{"loss_rate":0.0,"etx":1.0,"path_mtu":1420}}]}""");

    /** Ten node series over 4 s, with gaps; mesh_size is all gaps, peer_count is flat. */
    static final JsonNode NODE_HISTORY = json("""
            {"granularity_seconds":1,"window_seconds":4,"peer":null,"series":[
             {"metric":"mesh_size","unit":"nodes","granularity_seconds":1,"values":[null,null,null,null]},
             {"metric":"tree_depth","unit":"hops","granularity_seconds":1,"values":[2,2,2,2]},
             {"metric":"peer_count","unit":"peers","granularity_seconds":1,"values":[2,2,2,2]},
             {"metric":"parent_switches","unit":"events/s","granularity_seconds":1,"values":[0,0,1,0]},
             {"metric":"bytes_in","unit":"bytes/s","granularity_seconds":1,"values":[0,1000,null,2000]},
             {"metric":"bytes_out","unit":"bytes/s","granularity_seconds":1,"values":[0,500,700,1200]},
             {"metric":"packets_in","unit":"packets/s","granularity_seconds":1,"values":[0,1,2,3]},
             {"metric":"packets_out","unit":"packets/s","granularity_seconds":1,"values":[0,1,2,3]},
             {"metric":"loss_rate","unit":"fraction","granularity_seconds":1,"values":[0,0,0.5,0]},
             {"metric":"active_sessions","unit":"sessions","granularity_seconds":1,"values":[1,1,1,1]}]}""");

    static final JsonNode STATS_PEERS = json("""
            {"peers":[{"npub":"%s","node_addr":"7c0a11","display_name":"test-us01","is_active":true,
                       "first_seen_secs_ago":600,"last_contact_secs_ago":0},
                      {"npub":"%s","node_addr":"4a1f9c","display_name":"test-us02","is_active":true,
                       "first_seen_secs_ago":60,"last_contact_secs_ago":1}],"count":2}"""
            .formatted(NPUB_US01, NPUB_US02));

    static final JsonNode BY_PEER = json("""
            {"metric":"srtt_ms","unit":"ms","granularity_seconds":1,"window_seconds":4,"peers":[
             {"node_addr":"7c0a11","display_name":"test-us01","is_active":true,"values":[40.0,41.0,null,44.0]},
             {"node_addr":"4a1f9c","display_name":"test-us02","is_active":true,"values":[null,null,null,null]}]}""");

    static final JsonNode PEER_HISTORY = json("""
            {"granularity_seconds":1,"window_seconds":4,"peer":"%s","series":[
             {"metric":"srtt_ms","unit":"ms","granularity_seconds":1,"values":[40.0,41.0,null,44.0]},
             {"metric":"loss_rate","unit":"fraction","granularity_seconds":1,"values":[0,0,0,0]},
             {"metric":"bytes_in","unit":"bytes/s","granularity_seconds":1,"values":[]}]}"""
            .formatted(NPUB_US01));

    static final JsonNode LISTENING = json("""
            {"fips0_addr":"fd1b::1","firewall_active":null,"sockets":[{"proto":"tcp","local_addr":"::","port":22,
             "process":"sshd(1)","wildcard_bind":true,"filter":"no_firewall"}]}""");

    static final JsonNode NOSTR = json("""
            {"enabled":true,"policy":"configured_only","relays":[{"url":"wss://a","state":"connected"},
             {"url":"wss://b","state":"disconnected"}],"our_advert":{"last_publish_ms":1784473600000},
             "adverts":[{"npub":"npub1x"}],"dials":[{"display_name":"bob","endpoint":"udp 198.18.0.3:2121",
             "outcome":"linked","consecutive_failures":0}]}""");

    static final JsonNode GATEWAY = json("""
            {"pool_total":255,"pool_allocated":1,"pool_active":1,"pool_draining":0,"pool_free":253,"nat_mappings":2,
             "dns_listen":"[::1]:5353","uptime_secs":3725,"pool_cidr":"fd01::/120","lan_interface":"br-lan",
             "dns_upstream":"[::1]:5354","dns_ttl":60,"pool_grace_period":60}""");

    static final JsonNode GATEWAY_MAPPINGS = json("""
            {"mappings":[{"virtual_ip":"fd01::1","mesh_addr":"fd12:3456:789a:bcde:f011:2233:4455:66ee",
             "node_addr":"123456789abcdef0112233445566ee00","dns_name":"npub1abc.fips","state":"Active","sessions":2,
             "age_secs":75,"last_ref_secs":3},{"virtual_ip":"fd01::2","mesh_addr":"fd99::1",
             "node_addr":"99000000000000000000000000000100","dns_name":"npub1def.fips","state":"Allocated",
             "sessions":null,"age_secs":5,"last_ref_secs":5}]}""");

    static Map<Source, JsonNode> everything() {
        final Map<Source, JsonNode> m = new EnumMap<>(Source.class);
        m.put(Source.STATUS, STATUS);
        m.put(Source.PEERS, PEERS);
        m.put(Source.TRANSPORTS, TRANSPORTS);
        m.put(Source.LINKS, LINKS);
        m.put(Source.ROUTING, ROUTING);
        m.put(Source.CACHE, CACHE);
        m.put(Source.SESSIONS, SESSIONS);
        m.put(Source.TREE, TREE);
        m.put(Source.BLOOM, BLOOM);
        m.put(Source.MMP, MMP);
        m.put(Source.HISTORY, NODE_HISTORY);
        m.put(Source.LISTENING, LISTENING);
        m.put(Source.STATS_PEERS, STATS_PEERS);
        m.put(Source.GATEWAY, GATEWAY);
        m.put(Source.GATEWAY_MAPPINGS, GATEWAY_MAPPINGS);
        m.put(Source.NOSTR, NOSTR);
        return m;
    }

    /** Everything, with the Graphs answer the state asks for. */
    static Poll pollFor(final TopState s) {
        final Map<Source, JsonNode> m = everything();
        final TopGraphs.Request r = TopGraphs.request(s, STATS_PEERS);
        m.put(Source.GRAPHS, switch (s.graphsMode()) {
            case NODE -> NODE_HISTORY;
            case METRIC_BY_PEER -> BY_PEER;
            case PEER_BY_METRIC -> PEER_HISTORY;
        });
        return new Poll(m, r.key(), null, 1);
    }

    static List<String> draw(final TopState s, final int w, final int h) {
        return TopView.draw(pollFor(s), Map.of(), s, w, h, "12:00:00").lines();
    }

    static TopState state(final Tab tab) {
        return TopState.initial().withTab(tab);
    }

    static TopState graphs(final GraphsMode mode) {
        TopState s = state(Tab.GRAPHS);
        while (s.graphsMode() != mode) {
            s = s.onKey('m', null, 0);
        }
        return s;
    }

    static String screen(final List<String> lines) {
        return String.join("\n", lines);
    }

    static void assertLine(final String regex, final String line) {
        assertTrue(line.matches(regex), "'" + line + "' does not match " + regex);
    }

    static int index(final List<String> lines, final String prefix) {
        return lines.indexOf(lines.stream().filter(l -> l.strip().startsWith(prefix)).findFirst().orElseThrow());
    }

    static String line(final List<String> lines, final String prefix) {
        return lines.stream().map(String::strip).filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + prefix + "' in\n"
                        + screen(lines)));
    }
}
