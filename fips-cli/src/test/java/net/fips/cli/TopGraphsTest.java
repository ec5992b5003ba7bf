package net.fips.cli;

import static net.fips.cli.TopFixtures.NPUB_US01;
import static net.fips.cli.TopFixtures.NPUB_US02;
import static net.fips.cli.TopFixtures.STATS_PEERS;
import static net.fips.cli.TopFixtures.assertLine;
import static net.fips.cli.TopFixtures.draw;
import static net.fips.cli.TopFixtures.graphs;
import static net.fips.cli.TopFixtures.index;
import static net.fips.cli.TopFixtures.json;
import static net.fips.cli.TopFixtures.line;
import static net.fips.cli.TopFixtures.pollFor;
import static net.fips.cli.TopFixtures.screen;
import static net.fips.cli.TopFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Arrays;

import org.jline.utils.NonBlockingReader;
import org.junit.jupiter.api.Test;

import net.fips.cli.TopState.GraphsMode;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;
import net.fips.cli.TopView.Tab;

/**
 * {@link TopGraphs} and {@link TopState} without a terminal: the Graphs view's modes and plots, the key map and the
 * escape decoder.
 */
class TopGraphsTest {

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
        assertEquals("[1.5, 3.5]", Arrays.toString(TopGraphs.buckets(new double[] {1, 2, 3, 4}, 2)));
        assertEquals("[1.0, NaN]", Arrays.toString(TopGraphs.buckets(new double[] {1, nan, nan, nan}, 2)));
        assertEquals("[1.0, 1.0, 2.0, 2.0]", Arrays.toString(TopGraphs.buckets(new double[] {1, 2}, 4)));
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
                Tab.PERFORMANCE, Tab.ROUTING, Tab.GRAPHS, Tab.GATEWAY, Tab.NODE)) {
            s = s.onKey('\t', null, 0);
            assertEquals(expected, s.tab());
        }
        assertEquals(Tab.GATEWAY, s.onKey(TopState.BACK_TAB, null, 0).tab());
        for (final Tab t : Tab.values()) {
            assertEquals(t, s.onKey(t.ordinal() < 9 ? '1' + t.ordinal() : '0', null, 0).tab());
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
        return TopCommand.escape(new KeysReader(afterEscape));
    }

    /**
     * The keys typed after an Escape, all there at once: a read past them has expired, as when nothing follows within
     * the decoder's wait (JLine's own wrapper over a {@code StringReader} reads on a thread of its own, so on a busy
     * machine its first character could miss the 50 ms wait).
     */
    private static final class KeysReader extends NonBlockingReader {
        private final String keys;
        private int at;

        KeysReader(final String keys) {
            this.keys = keys;
        }

        @Override
        protected int read(final long timeout, final boolean isPeek) {
            if (at >= keys.length()) {
                return READ_EXPIRED;
            }
            return isPeek ? keys.charAt(at) : keys.charAt(at++);
        }

        @Override
        public int readBuffered(final char[] b, final int off, final int len, final long timeout) {
            if (at >= keys.length()) {
                return READ_EXPIRED;
            }
            final int n = Math.min(len, keys.length() - at);
            keys.getChars(at, at + n, b, off);
            at += n;
            return n;
        }

        @Override
        public void close() {
        }
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

}
