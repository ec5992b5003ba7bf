package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.jline.utils.NonBlocking;
import org.jline.utils.NonBlockingReader;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.cli.TopState.GraphsMode;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;
import net.fips.cli.TopView.Tab;
import net.fips.control.ctl.ControlJson;

/**
 * {@link TopView}, {@link TopGraphs} and {@link TopState} without a terminal: every view drawn from fixed JSON
 * (hand-written in the shapes of operator.md §2.3) at several sizes, the key map, and the escape decoder.
 */
class TopViewTest {

    private static JsonNode json(final String s) {
        try {
            return ControlJson.MAPPER.readTree(s);
        } catch (final IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static final String NPUB_US01 = "npub1qmc3zel98";
    private static final String NPUB_US02 = "npub10yffksp9u";

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

    private static Map<Source, JsonNode> everything() {
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
        return m;
    }

    /** Everything, with the Graphs answer the state asks for. */
    private static Poll pollFor(final TopState s) {
        final Map<Source, JsonNode> m = everything();
        final TopGraphs.Request r = TopGraphs.request(s, STATS_PEERS);
        m.put(Source.GRAPHS, switch (s.graphsMode()) {
            case NODE -> NODE_HISTORY;
            case METRIC_BY_PEER -> BY_PEER;
            case PEER_BY_METRIC -> PEER_HISTORY;
        });
        return new Poll(m, r.key(), null, 1);
    }

    private static List<String> draw(final TopState s, final int w, final int h) {
        return TopView.draw(pollFor(s), Map.of(), s, w, h, "12:00:00").lines();
    }

    private static TopState state(final Tab tab) {
        return TopState.initial().withTab(tab);
    }

    private static TopState graphs(final GraphsMode mode) {
        TopState s = state(Tab.GRAPHS);
        while (s.graphsMode() != mode) {
            s = s.onKey('m', null, 0);
        }
        return s;
    }

    private static String screen(final List<String> lines) {
        return String.join("\n", lines);
    }

    private static void assertLine(final String regex, final String line) {
        assertTrue(line.matches(regex), "'" + line + "' does not match " + regex);
    }

    private static int index(final List<String> lines, final String prefix) {
        return lines.indexOf(lines.stream().filter(l -> l.strip().startsWith(prefix)).findFirst().orElseThrow());
    }

    private static String line(final List<String> lines, final String prefix) {
        return lines.stream().map(String::strip).filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + prefix + "' in\n"
                        + screen(lines)));
    }

    @Test
    void everyViewFitsEverySizeWithoutWrapping() {
        final List<TopState> states = new ArrayList<>();
        for (final Tab t : Tab.values()) {
            states.add(state(t));
        }
        for (final GraphsMode m : GraphsMode.values()) {
            TopState s = graphs(m);
            for (int i = 0; i < TopState.WINDOWS.size(); i++) {
                states.add(s);
                s = s.onKey(TopState.RIGHT, null, 0);
            }
        }
        states.add(state(Tab.PEERS).onKey(TopState.DOWN, pollFor(state(Tab.PEERS)), 0));
        states.add(state(Tab.TRANSPORTS).onKey('c', null, 0));
        states.add(state(Tab.NODE).onKey('?', null, 0));
        final Poll empty = new Poll(Map.of(), null, "connection refused", 0);
        for (final TopState s : states) {
            for (final int w : new int[] {0, 1, 7, 20, 40, 80, 132, 250}) {
                for (final int h : new int[] {1, 2, 3, 4, 8, 24, 60}) {
                    for (final Poll p : List.of(pollFor(s), empty)) {
                        final TopView.Screen sc = TopView.draw(p, Map.of(), s, w, h, "12:00:00");
                        assertEquals(h, sc.lines().size(), s + " " + w + "x" + h);
                        for (final String l : sc.lines()) {
                            assertTrue(l.length() <= w, s + " " + w + "x" + h + ": " + l);
                            assertFalse(l.contains("\n") || l.contains("\r") || l.contains("\t"), l);
                        }
                        assertTrue(sc.maxScroll() >= 0);
                    }
                }
            }
        }
        // No terminal size at all is still one line.
        assertEquals(1, TopView.draw(pollFor(state(Tab.ROUTING)), Map.of(), state(Tab.ROUTING), 80, 0, "t")
                .lines().size());
    }

    private static int columns(final String s) {
        return s.codePoints().map(cp -> Math.max(0, org.jline.utils.WCWidth.wcwidth(cp))).sum();
    }

    @Test
    void wideAndControlCharactersInNamesNeitherWrapNorReachTheTerminal() {
        final JsonNode peers = json("""
                {"peers":[{"npub":"npub1w","display_name":"日本語\\u001b[2J\\u0007名前","connectivity":"connected",
                 "stats":{}}]}""");
        final Poll p = Poll.of(Map.of(Source.PEERS, peers), 0);
        for (final int w : new int[] {1, 5, 6, 7, 12, 40}) {
            for (final String l : TopView.draw(p, Map.of(), state(Tab.PEERS), w, 10, "t").lines()) {
                assertTrue(columns(l) <= w, w + ": " + l);
                assertTrue(l.chars().noneMatch(c -> c < 0x20), w + ": " + l);
            }
        }
        final String row = line(TopView.draw(p, Map.of(), state(Tab.PEERS), 80, 10, "t").lines(), "日本語");
        assertTrue(row.startsWith("日本語?[2J?名前"), row);
        assertEquals("日本", TopView.fit("日本語", 5));
        assertEquals("e\u0301", TopView.fit("e\u0301x", 1), "a combining mark stays with its letter");
        assertEquals("?", TopView.fit("\u009b", 1));
    }

    @Test
    void tabBarNamesEveryViewAndFallsBackWhenNarrow() {
        final List<String> wide = draw(state(Tab.ROUTING), 132, 10);
        assertEquals("fipsctl top  Node  Peers  Transports  Sessions  Tree  Filters  Performance [Routing] Graphs ",
                wide.getFirst());
        assertEquals("[Routing] 8/9 fipsctl top", draw(state(Tab.ROUTING), 80, 10).getFirst());
        assertTrue(wide.getLast().startsWith("q quit  Tab/1-9 views  ? help"), wide.getLast());
        assertTrue(wide.getLast().endsWith("updated 12:00:00"), wide.getLast());
        // The longest footer (metric-by-peer) still has room for the clock at 110 columns; the others at 100.
        assertTrue(draw(graphs(GraphsMode.METRIC_BY_PEER), 110, 10).getLast().endsWith("updated 12:00:00"));
        for (final Tab t : Tab.values()) {
            assertTrue(draw(state(t), 100, 10).getLast().endsWith("updated 12:00:00"), t.title);
        }
    }

    @Test
    void transportsShowTheirLinksWithThePeerOnEach() {
        final List<String> l = draw(state(Tab.TRANSPORTS), 132, 40);
        assertEquals("Transports: 3   Links: 2", l.get(2));
        assertTrue(l.get(3).matches("TRANSPORT / LINK\\s+STATE\\s+PEER\\s+MTU\\s+TX_PKTS\\s+RX_PKTS\\s+TX_BYTES"
                + "\\s+RX_BYTES"), l.get(3));
        assertTrue(l.get(4).matches("▼ udp 0\\.0\\.0\\.0:2121 #1\\s+up\\s+1472\\s+1210\\s+1197\\s+211000\\s+199000"),
                l.get(4));
        // The counters beyond packets and bytes, an unmeasured one as '-'.
        assertEquals("      send_errors=0 recv_errors=1 mtu_exceeded=0 kernel_drops=-", l.get(5));
        assertTrue(l.get(6).matches("  ├─ out 203\\.0\\.113\\.7:2121\\s+connected\\s+test-us01\\s+1200\\s+1185"
                + "\\s+210000\\s+198000"), l.get(6));
        assertTrue(l.get(7).matches("  └─ in  198\\.51\\.100\\.9:2121\\s+connected\\s+test-us02\\s+10\\s+12\\s+900"
                + "\\s+1000"), l.get(7));
        // A named instance, no counters at all: dashes, not zeros.
        assertTrue(l.get(8).matches("  tcp backbone #2\\s+configured\\s+1400\\s+-\\s+-\\s+-\\s+-"), l.get(8));
        // Tor: mode and a shortened onion address; frames count as packets; null shows '-'.
        assertTrue(l.get(9).matches("  tor\\(onion\\) abcdefghijklmnop\\.\\. #3\\s+starting\\s+1400\\s+5\\s+-\\s+-"
                + "\\s+-"), l.get(9));

        final TopState collapsed = state(Tab.TRANSPORTS).onKey(TopState.LEFT, null, 0);
        assertTrue(collapsed.collapsed());
        final String c = screen(TopView.draw(pollFor(collapsed), Map.of(), collapsed, 132, 40, "t").lines());
        assertTrue(c.contains("▶ udp 0.0.0.0:2121 #1"), c);
        assertFalse(c.contains("203.0.113.7"), c);
        assertFalse(collapsed.onKey(TopState.RIGHT, null, 0).collapsed());
    }

    @Test
    void routingShowsCountersWithUnmeasuredOnesAsDashes() {
        final List<String> l = draw(state(Tab.ROUTING), 132, 80);
        final String all = screen(l);
        assertTrue(all.matches("(?s).*coord cache entries\\s+3 .*"), all);
        assertTrue(all.matches("(?s).*pending lookups\\s+1 .*"), all);
        assertTrue(line(l, "entries").contains("3 / 1024"), all);
        assertTrue(all.matches("(?s).*fill\\s+0\\.3%.*"), all);
        assertTrue(all.matches("(?s).*default TTL\\s+5m00s.*"), all);
        assertTrue(all.matches("(?s).*avg age\\s+12\\.3s.*"), all);
        // Packets measured, bytes not: '-' rather than 0.
        assertLine("local stack tx \\(originated\\)\\s+5012\\s+-", line(l, "local stack tx"));
        assertLine("mesh tx \\(originated \\+ forwarded\\)\\s+5212\\s+-", line(l, "mesh tx"));
        assertLine("dropped: no route\\s+3\\s+-", line(l, "dropped: no route"));
        assertLine("direct peer\\s+150\\s+75\\.0%", line(l, "direct peer"));
        assertLine("tree up\\s+20\\s+10\\.0%", line(l, "tree up "));
        assertTrue(all.matches("(?s).*received\\s+11.*forwarded\\s+6.*"), all);
        assertTrue(all.matches("(?s).*coords_required\\s+1.*"), all);
        assertTrue(all.matches("(?s).*ce_forwarded\\s+-.*"), all);
        assertTrue(all.matches("(?s).*kernel_drop_events\\s+0.*"), all);
        assertLine("far-node\\s+9e2d77\\s+2\\s+1\\.5s", line(l, "far-node"));
        assertLine("flaky\\s+55aa01\\s+3\\s+1784473600456\\s+true", line(l, "flaky"));
        // Narrow: one column of pairs, still cut to the width.
        final List<String> narrow = draw(state(Tab.ROUTING), 30, 80);
        assertTrue(narrow.get(3).matches("  coord cache entries\\s+3"), narrow.get(3));
        // Scrolling: a short screen starts at the top, End shows the last lines.
        final TopView.Screen shortScreen = TopView.draw(pollFor(state(Tab.ROUTING)), Map.of(), state(Tab.ROUTING),
                132, 12, "t");
        assertTrue(shortScreen.maxScroll() > 20, "max " + shortScreen.maxScroll());
        final TopState end = state(Tab.ROUTING).onKey(TopState.END, null, shortScreen.maxScroll());
        final List<String> bottom = TopView.draw(pollFor(end), Map.of(), end, 132, 12, "t").lines();
        assertTrue(bottom.get(1).startsWith("(" + shortScreen.maxScroll() + " lines above"), bottom.get(1));
        assertTrue(bottom.get(10).strip().startsWith("flaky"), screen(bottom));
    }

    @Test
    void peersSelectWithArrowsAndShowTheSelectedPeer() {
        final Poll p = pollFor(state(Tab.PEERS));
        final TopState none = state(Tab.PEERS);
        assertFalse(screen(draw(none, 132, 30)).contains(NPUB_US01));
        final TopState first = none.onKey(TopState.DOWN, p, 0);
        assertEquals(0, first.peerRow());
        final List<String> l = TopView.draw(p, Map.of(NPUB_US01, new double[] {2048, 10}), first, 132, 30, "t")
                .lines();
        assertLine(">\\s+test-us01\\s+connected\\s+203\\.0\\.113\\.7:2121\\s+parent"
                + "\\s+2\\s+41\\.200\\s+0\\s+2\\.0k\\s+10\\s+7c0a11", line(l, ">"));
        assertLine("test-us02\\s+connected\\s+198\\.51\\.100\\.9:2121\\s+child\\s+-"
                + "\\s+-\\s+-\\s+-\\s+-\\s+4a1f9c", line(l, "test-us02"));
        assertTrue(line(l, "test-us01  " + NPUB_US01).length() > 0);
        assertTrue(screen(l).contains("tree: parent, depth 2, effective depth 3.180   bloom filter: yes, seq 41"));
        assertTrue(screen(l).contains("lqi -"), screen(l));
        final TopState second = first.onKey(TopState.DOWN, p, 0).onKey(TopState.DOWN, p, 0);
        assertEquals(1, second.peerRow(), "clamped at the last peer");
        assertEquals(0, second.onKey(TopState.UP, p, 0).peerRow());
        assertEquals(-1, second.onKey(TopState.ESCAPE, p, 0).peerRow());
        assertEquals(-1, none.onKey(TopState.DOWN, new Poll(Map.of(), null, null, 0), 0).peerRow(), "no peers");
        // A short screen keeps the selected row in view.
        final List<String> tiny = TopView.draw(p, Map.of(), second, 132, 5, "t").lines();
        assertTrue(tiny.get(3).startsWith(">") && tiny.get(3).contains("test-us02"), screen(tiny));
    }

    @Test
    void deleteAsksBeforeDisconnectingTheSelectedPeer() {
        final Poll p = pollFor(state(Tab.PEERS));
        final TopState none = state(Tab.PEERS);
        assertEquals(none, none.onKey(TopState.DELETE, p, 0), "nothing selected: Del does nothing");
        final TopState second = none.onKey(TopState.DOWN, p, 0).onKey(TopState.DOWN, p, 0);
        final TopState asking = second.onKey(TopState.DELETE, p, 0);
        assertEquals(NPUB_US02, asking.confirm());
        assertEquals("Disconnect test-us02 (" + NPUB_US02 + ")? y/N",
                TopView.draw(p, Map.of(), asking, 132, 10, "t").lines().get(1));
        assertEquals(NPUB_US02, asking.disconnectTarget('y'));
        assertEquals(NPUB_US02, asking.disconnectTarget('Y'));
        assertNull(asking.disconnectTarget('n'));
        assertNull(asking.disconnectTarget(TopState.ESCAPE));
        assertNull(second.disconnectTarget('y'), "y without the question is nothing");
        // Any key closes the question, without acting on that key.
        final TopState closed = asking.onKey('\t', p, 0);
        assertNull(closed.confirm());
        assertEquals(Tab.PEERS, closed.tab());
        // The outcome shows until the next key, which then acts as usual.
        final TopState done = closed.withNotice("disconnected test-us02");
        assertEquals("disconnected test-us02", TopView.draw(p, Map.of(), done, 132, 10, "t").lines().get(1));
        final TopState after = done.onKey('\t', p, 0);
        assertNull(after.notice());
        assertEquals(Tab.TRANSPORTS, after.tab());
        assertEquals(none, state(Tab.ROUTING).onKey(TopState.DELETE, p, 0).withTab(Tab.PEERS), "only on Peers");
    }

    @Test
    void otherViewsFromFixedJson() {
        final String node = screen(draw(state(Tab.NODE), 132, 40));
        assertTrue(node.contains("mesh size: -"), node);
        assertTrue(node.contains("packets: originated -   delivered -   forwarded -   dropped (no route) -"), node);
        assertTrue(node.matches("(?s).*mesh_size\\s+-\\s+\\n.*"), node);
        assertTrue(node.contains("Listening on fips0 (fd1b::1), firewall: unknown"), node);
        final String sessions = screen(draw(state(Tab.SESSIONS), 132, 40));
        assertTrue(sessions.matches("(?s).*test-us02\\s+established\\s+out\\s+88\\s+-\\s+4800\\s+5100\\s+4a1f9c22.*"),
                sessions);
        final String tree = screen(draw(state(Tab.TREE), 132, 40));
        assertTrue(tree.contains("coords (self -> root): 1b47 > 7c0a11 > 00031f"), tree);
        assertTrue(tree.matches("(?s).*parent_switches\\s+1.*"), tree);
        final String filters = screen(draw(state(Tab.FILTERS), 132, 40));
        assertTrue(filters.matches("(?s).*test-us01\\s+7c0a11\\s+true\\s+41\\s+5301\\s+0\\.647\\s+1790\\.400.*"),
                filters);
        assertTrue(filters.matches("(?s).*uptree_fill_ratio:\\s+-.*"), filters);
        final String perf = screen(draw(state(Tab.PERFORMANCE), 132, 40));
        assertTrue(perf.matches("(?s).*test-us01\\s+full\\s+41\\.200\\s+0\\s+1\\s+5200\\s+-\\s+-\\n.*"), perf);
        assertTrue(perf.matches("(?s).*test-us02\\s+full\\s+-\\s+0\\s+1\\s+1420\\s+-.*"), perf);
        final String help = screen(draw(state(Tab.GRAPHS).onKey('?', null, 0), 132, 40));
        assertTrue(help.contains("1 Node  2 Peers  3 Transports"), help);
        // No answers at all: each view says so instead of drawing zeros.
        for (final Tab t : Tab.values()) {
            final String s = screen(TopView.draw(new Poll(Map.of(), null, "refused", 0), Map.of(), state(t), 132, 20,
                    "t").lines());
            assertTrue(s.contains("Disconnected: refused"), s);
            assertTrue(s.contains("(no ") || s.contains("(waiting for data)") || s.contains("No peers tracked"), s);
        }
    }

    private static List<String> names(final List<String> lines, final String from, final String to) {
        final List<String> out = new ArrayList<>();
        boolean in = false;
        for (final String l : lines) {
            if (l.contains(from)) {
                in = true;
                continue;
            }
            if (in && (l.contains(to) || l.isBlank())) {
                break;
            }
            if (in && !l.strip().startsWith("PEER") && !l.strip().startsWith("SESSION")) {
                out.add(l.strip().split("\\s+")[0]);
            }
        }
        return out;
    }

    @Test
    void performanceTablesSortByTheChosenColumn() {
        final TopState byName = state(Tab.PERFORMANCE);
        List<String> l = draw(byName, 132, 40);
        assertEquals("> Link MMP: 3   sort: PEER ascending", l.get(2));
        assertEquals(List.of("Flaky", "test-us01", "test-us02"), names(l, "Link MMP", "Session MMP"));
        assertLine("PEER▲\\s+MODE\\s+SRTT_MS\\s+LOSS\\s+ETX\\s+GOODPUT_BPS\\s+LQI\\s+ECN_CE", line(l, "PEER▲"));
        // s: by MODE; s again: by SRTT_MS, the peer without one last.
        final TopState bySrtt = byName.onKey('s', null, 0).onKey('s', null, 0);
        assertEquals(2, bySrtt.perfColumn(0));
        l = draw(bySrtt, 132, 40);
        assertEquals(List.of("test-us02", "test-us01", "Flaky"), names(l, "Link MMP", "Session MMP"));
        assertTrue(screen(l).contains("SRTT_MS▲"), screen(l));
        // S: descending, still without a value last.
        l = draw(bySrtt.onKey('S', null, 0), 132, 40);
        assertEquals(List.of("test-us01", "test-us02", "Flaky"), names(l, "Link MMP", "Session MMP"));
        assertTrue(screen(l).contains("SRTT_MS▼") && screen(l).contains("sort: SRTT_MS descending"));
        // f: the session table gets the keys; the link table keeps its order.
        final TopState sessions = bySrtt.onKey('f', null, 0).onKey('s', null, 0);
        assertEquals(1, sessions.perfPane());
        assertEquals(2, sessions.perfColumn(0));
        assertEquals(1, sessions.perfColumn(1));
        l = draw(sessions, 132, 40);
        assertTrue(screen(l).contains("> Session MMP: 1   sort: MODE ascending"), screen(l));
        assertTrue(screen(l).contains("  Link MMP: 3   sort: SRTT_MS ascending"), screen(l));
        // The column wraps around.
        TopState wrap = byName;
        for (int i = 0; i < TopPeerViews.PERF_COLUMNS.get(0).size(); i++) {
            wrap = wrap.onKey('s', null, 0);
        }
        assertEquals(0, wrap.perfColumn(0));
    }

    @Test
    void graphsNodeModePlotsEveryNodeMetric() {
        final List<String> l = draw(graphs(GraphsMode.NODE), 40, 80);
        assertTrue(l.get(2).startsWith("mode: node   window: 10m @ 1s"), l.get(2));
        // All gaps: no min, max or last, and a blank plot.
        final int mesh = index(l, "mesh_size");
        assertTrue("  mesh_size [nodes]   min -   max -   last -   samples 4 (4 gaps)".startsWith(l.get(mesh)),
                l.get(mesh));
        assertEquals("", l.get(mesh + 1).strip());
        // bytes_in 0, 1000, gap, 2000 over 38 columns: 10, 9, 10 and 9 columns, the gap blank.
        final int bytes = index(l, "bytes_in");
        final List<String> wide = draw(graphs(GraphsMode.NODE), 132, 80);
        assertEquals("  bytes_in [bytes/s]   min 0.00   max 2.0k   last 2.0k   samples 4 (1 gaps)",
                wide.get(bytes));
        final String top = l.get(bytes + 1);
        final String bottom = l.get(bytes + 3);
        assertEquals(40, bottom.length());
        assertEquals("  " + "▁".repeat(10) + "█".repeat(9) + " ".repeat(10) + "█".repeat(9), bottom);
        assertEquals("  " + " ".repeat(29) + "█".repeat(9), top);
        // A flat series rests on the lowest block.
        final int peers = index(l, "peer_count");
        assertEquals("  " + "▁".repeat(38), l.get(peers + 3));
        // Waiting: a Graphs answer for another window is not drawn.
        final TopState tenMin = graphs(GraphsMode.NODE);
        final TopState oneHour = tenMin.onKey(TopState.RIGHT, null, 0);
        assertEquals("1h", oneHour.windowName());
        final String waiting = screen(TopView.draw(pollFor(tenMin), Map.of(), oneHour, 80, 20, "t").lines());
        assertTrue(waiting.contains("window: 1h @ 1s") && waiting.contains("(waiting for data)"), waiting);
    }

    @Test
    void graphsByPeerModesSelectAPeerOrAMetric() {
        final TopState byPeer = graphs(GraphsMode.METRIC_BY_PEER);
        final List<String> l = draw(byPeer, 100, 40);
        assertTrue(l.get(2).startsWith("mode: metric-by-peer [srtt_ms]   window: 10m @ 1s"), l.get(2));
        assertLine("PEER▲\\s+MIN\\s+MAX\\s+LAST\\s+N\\s+\\[ms\\]   sort: name ascending", line(l, "PEER"));
        assertLine("> test-us01\\s+40\\.0\\s+44\\.0\\s+44\\.0\\s+4\\s+\\S.*", line(l, "> test-us01"));
        assertLine("test-us02\\s+-\\s+-\\s+-\\s+4\\s*", line(l, "test-us02"));
        assertTrue(screen(l).contains("  test-us01 srtt_ms [ms]   min 40.0   max 44.0   last 44.0   samples 4"));
        final TopState second = byPeer.onKey(TopState.DOWN, pollFor(byPeer), 0);
        assertEquals(1, second.graphPeer());
        assertEquals(1, second.onKey(TopState.DOWN, pollFor(byPeer), 0).graphPeer(), "clamped");
        assertTrue(line(draw(second, 100, 40), "> test-us02").length() > 0);
        // s / S sort the list: by last value descending, the peer without samples last; the selection is a row.
        final TopState byLast = byPeer.onKey('s', null, 0).onKey('s', null, 0).onKey('s', null, 0)
                .onKey('S', null, 0);
        final List<String> sorted = draw(byLast, 100, 40);
        assertTrue(screen(sorted).contains("LAST▼") && screen(sorted).contains("sort: last descending"));
        final int us01 = index(sorted, "> test-us01");
        assertEquals(us01 + 1, index(sorted, "test-us02"));
        final TopState byName = byLast.onKey('s', null, 0).onKey('s', null, 0);
        assertEquals(0, byName.graphSort() / 2, "wraps to name");
        final List<String> reversed = draw(byName, 100, 40);
        assertTrue(index(reversed, "> test-us02") < index(reversed, "test-us01"), screen(reversed));
        assertTrue(screen(reversed).contains("  test-us02 srtt_ms [ms]   min -"), "the detail follows the row");
        final TopState loss = byPeer.onKey('n', null, 0);
        assertEquals("loss_rate", loss.peerMetric());
        assertEquals("ecn_ce", byPeer.onKey('N', null, 0).peerMetric());
        final TopGraphs.Request r = TopGraphs.request(loss, STATS_PEERS);
        assertEquals("show_stats_history_all_peers", r.command());
        assertEquals("{\"window\":\"10m\",\"granularity\":\"1s\",\"metric\":\"loss_rate\"}", r.params().toString());

        final TopState onePeer = graphs(GraphsMode.PEER_BY_METRIC);
        final List<String> p = draw(onePeer, 100, 40);
        assertTrue(p.get(2).startsWith("mode: peer-by-metric [test-us01]"), p.get(2));
        assertTrue(screen(p).contains("  srtt_ms [ms]   min 40.0   max 44.0   last 44.0   samples 4 (1 gaps)"));
        assertTrue(screen(p).contains("  bytes_in [bytes/s]   min -   max -   last -   samples 0\n  (no samples)"));
        final TopGraphs.Request pr = TopGraphs.request(onePeer, STATS_PEERS);
        assertEquals("show_stats_all_history", pr.command());
        assertEquals(NPUB_US01, pr.params().path("peer").asText());
        final TopState next = onePeer.onKey('n', pollFor(onePeer), 0);
        assertEquals(NPUB_US02, TopGraphs.request(next, STATS_PEERS).params().path("peer").asText());
        assertEquals(0, next.onKey('n', pollFor(onePeer), 0).graphPeer(), "wraps");
        assertNull(TopGraphs.request(onePeer, json("{\"peers\":[],\"count\":0}")), "no peer to ask for");
        final String none = screen(TopView.draw(new Poll(Map.of(Source.STATS_PEERS, json("{\"peers\":[]}")), null,
                null, 0), Map.of(), onePeer, 80, 10, "t").lines());
        assertTrue(none.contains("No peers tracked in the stats history yet."), none);
    }

    @Test
    void plotScalesToTheSeriesAndLeavesGapsBlank() {
        final double nan = Double.NaN;
        assertEquals(List.of("▁▅ █"), TopGraphs.plot(new double[] {0, 1, nan, 2}, 4, 1));
        assertEquals(List.of(" ▁ █", "▁█ █"), TopGraphs.plot(new double[] {0, 1, nan, 2}, 4, 2));
        assertEquals(List.of("▁▁▁"), TopGraphs.plot(new double[] {5, 5, 5}, 3, 1));
        assertEquals(List.of("   "), TopGraphs.plot(new double[] {nan, nan, nan}, 3, 1));
        assertEquals(List.of(""), TopGraphs.plot(new double[0], 3, 1));
        assertEquals("[1.5, 3.5]", java.util.Arrays.toString(TopGraphs.buckets(new double[] {1, 2, 3, 4}, 2)));
        assertEquals("[1.0, NaN]", java.util.Arrays.toString(TopGraphs.buckets(new double[] {1, nan, nan, nan}, 2)));
        assertEquals("[1.0, 1.0, 2.0, 2.0]", java.util.Arrays.toString(TopGraphs.buckets(new double[] {1, 2}, 4)));
        assertEquals("-", TopGraphs.compact(nan));
        assertEquals("0.25", TopGraphs.compact(0.25));
        assertEquals("41.2", TopGraphs.compact(41.2));
        assertEquals("2.0k", TopGraphs.compact(2048));
        assertEquals("1.5M", TopGraphs.compact(1.5e6));
    }

    @Test
    void keysSwitchViewsAndCycleTheGraphsChoices() {
        TopState s = TopState.initial();
        for (final Tab expected : List.of(Tab.PEERS, Tab.TRANSPORTS, Tab.SESSIONS, Tab.TREE, Tab.FILTERS,
                Tab.PERFORMANCE, Tab.ROUTING, Tab.GRAPHS, Tab.NODE)) {
            s = s.onKey('\t', null, 0);
            assertEquals(expected, s.tab());
        }
        assertEquals(Tab.GRAPHS, s.onKey(TopState.BACK_TAB, null, 0).tab());
        for (final Tab t : Tab.values()) {
            assertEquals(t, s.onKey('1' + t.ordinal(), null, 0).tab());
        }
        assertEquals(Tab.GRAPHS, s.onKey('g', null, 0).tab());
        // Scrolling stays within what the view has.
        final TopState r = state(Tab.ROUTING);
        assertEquals(3, r.onKey(TopState.DOWN, null, 3).onKey(TopState.DOWN, null, 3).onKey(TopState.DOWN, null, 3)
                .onKey(TopState.DOWN, null, 3).scroll());
        assertEquals(0, r.onKey(TopState.UP, null, 3).scroll());
        assertEquals(10, r.onKey(TopState.PAGE_DOWN, null, 40).scroll());
        assertEquals(40, r.onKey(TopState.END, null, 40).onKey(TopState.END, null, 40).scroll());
        assertEquals(0, r.onKey(TopState.END, null, 40).onKey(TopState.HOME, null, 40).scroll());
        assertEquals(0, r.onKey(TopState.END, null, 40).onKey('\t', null, 40).scroll(), "a new view starts on top");
        // Graphs: windows and modes cycle both ways.
        TopState g = state(Tab.GRAPHS);
        final List<String> windows = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            windows.add(g.windowName() + "@" + g.granularity());
            g = g.onKey(TopState.RIGHT, null, 0);
        }
        assertEquals(List.of("10m@1s", "1h@1s", "24h@1m", "1m@1s"), windows);
        assertEquals("1m", state(Tab.GRAPHS).onKey(TopState.LEFT, null, 0).windowName());
        assertEquals(GraphsMode.METRIC_BY_PEER, g.onKey('m', null, 0).graphsMode());
        assertEquals(GraphsMode.NODE, g.onKey('m', null, 0).onKey('m', null, 0).onKey('m', null, 0).graphsMode());
        // Help swallows keys until closed.
        final TopState help = s.onKey('?', null, 0);
        assertTrue(help.help());
        assertEquals(help, help.onKey('\t', null, 0));
        assertFalse(help.onKey(TopState.ESCAPE, null, 0).help());
        assertFalse(help.onKey('?', null, 0).help());
    }

    private static int decode(final String afterEscape) throws IOException {
        final NonBlockingReader r = NonBlocking.nonBlocking("test", new StringReader(afterEscape));
        return TopCommand.escape(r);
    }

    @Test
    void escapeSequencesDecodeToKeys() throws IOException {
        assertEquals(TopState.UP, decode("[A"));
        assertEquals(TopState.DOWN, decode("[B"));
        assertEquals(TopState.RIGHT, decode("[C"));
        assertEquals(TopState.LEFT, decode("OD"));
        assertEquals(TopState.BACK_TAB, decode("[Z"));
        assertEquals(TopState.PAGE_UP, decode("[5~"));
        assertEquals(TopState.PAGE_DOWN, decode("[6~"));
        assertEquals(TopState.HOME, decode("[H"));
        assertEquals(TopState.HOME, decode("[1~"));
        assertEquals(TopState.END, decode("[4~"));
        assertEquals(TopState.END, decode("OF"));
        assertEquals(TopState.ESCAPE, decode(""));
        assertEquals(TopState.DELETE, decode("[3~"));
        assertEquals(0, decode("[2~"), "Insert: no action");
        assertEquals(TopState.UP, decode("[1;5A"), "Ctrl-Up: the modifier is ignored");
    }

    @Test
    void ratesComeFromTwoPollsAndNullsShowAsDashes() {
        final JsonNode peers1 = json("""
                {"peers":[{"npub":"npub1x","display_name":"bob","connectivity":"connected","is_parent":true,
                 "mmp":{"srtt_ms":41.5,"loss_rate":null},"stats":{"bytes_recv":1000,"bytes_sent":500}}]}""");
        final JsonNode peers2 = json("""
                {"peers":[{"npub":"npub1x","display_name":"bob","connectivity":"connected","is_parent":true,
                 "mmp":{"srtt_ms":41.5,"loss_rate":null},"stats":{"bytes_recv":3000,"bytes_sent":1500}}]}""");
        final Poll p1 = Poll.of(Map.of(Source.PEERS, peers1), 0);
        final Poll p2 = Poll.of(Map.of(Source.PEERS, peers2), 2_000_000_000L);
        final Map<String, double[]> rates = TopView.rates(p1, p2);
        assertEquals(1000.0, rates.get("npub1x")[0]);
        assertEquals(500.0, rates.get("npub1x")[1]);
        final List<String> lines = TopView.render(p2, rates, Tab.PEERS, 100, 12, "12:00:00");
        assertEquals(12, lines.size());
        final String row = line(lines, "bob").strip();
        assertTrue(row.matches("bob\\s+connected\\s+-\\s+parent\\s+-\\s+41\\.500\\s+-\\s+1\\.0k\\s+500\\s+-"), row);
        assertTrue(lines.get(11).startsWith("q quit"), lines.get(11));
        assertTrue(TopView.render(p2, Map.of(), Tab.PEERS, 100, 12, "t").stream()
                .anyMatch(s -> s.strip().startsWith("bob") && s.contains("  -  ")), "no rate before two polls");
        assertNotNull(TopView.rates(null, p2));
        assertTrue(TopView.rates(null, p2).isEmpty());
    }
}
