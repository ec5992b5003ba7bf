package net.fips.cli;

import static net.fips.cli.TopFixtures.NPUB_US01;
import static net.fips.cli.TopFixtures.NPUB_US02;
import static net.fips.cli.TopFixtures.assertLine;
import static net.fips.cli.TopFixtures.draw;
import static net.fips.cli.TopFixtures.graphs;
import static net.fips.cli.TopFixtures.json;
import static net.fips.cli.TopFixtures.line;
import static net.fips.cli.TopFixtures.pollFor;
import static net.fips.cli.TopFixtures.screen;
import static net.fips.cli.TopFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.JsonNode;
import org.jline.utils.WCWidth;

import net.fips.cli.TopState.GraphsMode;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;
import net.fips.cli.TopView.Tab;

/**
 * {@link TopView} and its views without a terminal: every view drawn from fixed JSON ({@link TopFixtures}) at several
 * sizes, selection, the disconnect question, sorting and rates.
 */
class TopViewTest {

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
        return s.codePoints().map(cp -> Math.max(0, WCWidth.wcwidth(cp))).sum();
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
        assertEquals("fipsctl top  Node  Peers  Transports  Sessions  Tree  Filters  Performance [Routing] Graphs "
                + " Gateway ", wide.getFirst());
        assertEquals("[Routing] 8/10 fipsctl top", draw(state(Tab.ROUTING), 80, 10).getFirst());
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
        assertTrue(all.contains("Nostr: relays 1/2 connected, adverts seen 1, our advert published at 1784473600000"
                + " ms, policy configured_only"), all);
        assertLine("bob\\s+udp 198.18.0.3:2121\\s+linked\\s+0", line(l, "bob"));
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
        assertTrue(bottom.get(10).strip().startsWith("bob"), screen(bottom)); // the Nostr section ends the view
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
