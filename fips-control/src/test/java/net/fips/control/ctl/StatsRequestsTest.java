package net.fips.control.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.metrics.NodeSample;
import net.fips.control.metrics.PeerSample;
import net.fips.control.metrics.StatsHistory;

/**
 * The {@code show_stats_*} and {@code show_metrics} commands through {@link ControlDispatcher}, against a history
 * fed on a test clock. Expected shapes come from operator.md §2.3/§2.4 and the reference's snapshot fixtures, not
 * from our own output.
 */
class StatsRequestsTest {
    private static final long S = StatsHistory.SAMPLE_NANOS;
    private static final NodeIdentity A = FakeControlApi.PEER_A;
    private static final NodeIdentity B = FakeControlApi.PEER_B;

    private final AtomicLong clock = new AtomicLong(1_000 * S);
    private StatsHistory history;
    private ControlDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        history = new StatsHistory();
        final StatsView view = new StatsView(history, clock::get,
                npub -> npub.equals(B.npub()) ? "test-us02" : null,
                npub -> npub.equals(A.npub()) ? "test-us01" : npub.equals(B.npub()) ? "test-us02" : "npub1short");
        dispatcher = new ControlDispatcher(new FakeControlApi() {
            @Override
            public Optional<StatsView> stats() {
                return Optional.of(view);
            }
        });
    }

    private void tick(final NodeSample node, final PeerSample... peers) {
        history.record(clock.get(), node, List.of(peers));
        clock.addAndGet(S);
    }

    private static PeerSample peerA(final double srtt) {
        return new PeerSample(A.nodeAddr().toString(), A.npub(), srtt, Double.NaN, 0, 0, 0, 0,
                NodeSample.UNMEASURED);
    }

    /** Sends one request and reads the answer back from its text, as a client does. */
    private JsonNode ask(final String line) {
        final JsonNode r = dispatcher.dispatch(line.replace("NPUB_A", A.npub()).replace("NPUB_B", B.npub())
                .replace("NPUB_C", FakeControlApi.PEER_C.npub()));
        try {
            return json(ControlJson.compact(r));
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode json(final String text) throws Exception {
        return ControlJson.MAPPER.readTree(text);
    }

    @Test
    void theSpecsPeerHistoryExchange() throws Exception {
        // operator.md §2.4: five 1 s srtt_ms samples of one peer, the third not measured.
        for (final double srtt : new double[] {41.0, 41.3, Double.NaN, 40.9, 41.2}) {
            tick(NodeSample.NOTHING, peerA(srtt));
        }
        final JsonNode r = ask("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"srtt_ms\","
                + "\"peer\":\"NPUB_A\",\"window\":\"5s\",\"granularity\":\"1s\"}}");
        assertEquals(json("{\"status\":\"ok\",\"data\":{\"metric\":\"srtt_ms\",\"unit\":\"ms\","
                + "\"granularity_seconds\":1,\"values\":[41.0,41.3,null,40.9,41.2]}}"), r);
    }

    @Test
    void nodeHistoryDefaultsToTenMinutesAtOneSecond() throws Exception {
        tick(new NodeSample(7, 1, 1, 0, 0, 0, 0, 0, Double.NaN, Double.NaN));
        final JsonNode d = ask("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\"}}")
                .get("data");
        assertEquals(Set.of("metric", "unit", "granularity_seconds", "values"), keys(d));
        assertEquals("nodes", d.get("unit").asText());
        assertEquals(600, d.get("values").size());
        assertEquals(7.0, d.get("values").get(599).asDouble());
        assertTrue(d.get("values").get(0).isNull());
    }

    @Test
    void theStatsListIsTheReferencesCatalogue() throws Exception {
        final JsonNode r = ask("{\"command\":\"show_stats_list\"}");
        // Names and scopes: operator.md §2.3; units: the reference's show_stats_list fixture.
        final StringBuilder metrics = new StringBuilder();
        for (final String[] m : new String[][] {{"mesh_size", "nodes", "node"}, {"tree_depth", "hops", "node"},
            {"peer_count", "peers", "node"}, {"parent_switches", "events/s", "node"},
            {"bytes_in", "bytes/s", "node"}, {"bytes_out", "bytes/s", "node"}, {"packets_in", "packets/s", "node"},
            {"packets_out", "packets/s", "node"}, {"loss_rate", "fraction", "node"},
            {"active_sessions", "sessions", "node"}, {"srtt_ms", "ms", "peer"}, {"loss_rate", "fraction", "peer"},
            {"bytes_in", "bytes/s", "peer"}, {"bytes_out", "bytes/s", "peer"}, {"packets_in", "packets/s", "peer"},
            {"packets_out", "packets/s", "peer"}, {"ecn_ce", "events/s", "peer"}}) {
            metrics.append(metrics.isEmpty() ? "" : ",").append("{\"name\":\"").append(m[0])
                    .append("\",\"unit\":\"").append(m[1]).append("\",\"scope\":\"").append(m[2]).append("\"}");
        }
        assertEquals(json("{\"status\":\"ok\",\"data\":{\"metrics\":[" + metrics + "],\"fast_ring_seconds\":3600,"
                + "\"slow_ring_minutes\":1440,\"peer_retention_seconds\":86400}}"), r);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "{\"command\":\"show_stats_history\"} | missing params for show_stats_history",
        "{\"command\":\"show_stats_history\",\"params\":{}} | missing 'metric' parameter",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":7}} | missing 'metric' parameter",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"srtt_ms\"}} | unknown metric: srtt_ms",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\",\"peer\":\"NPUB_A\"}}"
                + " | unknown peer metric: mesh_size",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"srtt_ms\",\"peer\":\"NPUB_B\"}}"
                + " | peer not tracked in stats history: test-us02",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\",\"window\":\"10d\"}}"
                + " | unknown duration unit: d (expected s, m, h)",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\",\"window\":\"\"}}"
                + " | empty duration",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\",\"window\":\"m\"}}"
                + " | invalid duration: m",
        "{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"mesh_size\",\"granularity\":\"1h\"}}"
                + " | unknown granularity: 1h (expected 1s or 1m)",
        "{\"command\":\"show_stats_history_all_peers\"} | missing params for show_stats_history_all_peers",
        "{\"command\":\"show_stats_history_all_peers\",\"params\":{\"metric\":\"mesh_size\"}}"
                + " | unknown peer metric: mesh_size",
        "{\"command\":\"show_stats_all_history\",\"params\":{\"peer\":\"NPUB_B\"}}"
                + " | peer not tracked in stats history: test-us02",
    })
    void errorsAreTheReferences(final String request, final String message) {
        final JsonNode r = ask(request);
        assertEquals("error", r.get("status").asText(), r::toString);
        assertEquals(message, r.get("message").asText());
    }

    @Test
    void anUntrackedPeerWithoutAliasIsNamedByItsShortNodeAddr() {
        final JsonNode r = ask("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"srtt_ms\","
                + "\"peer\":\"NPUB_C\"}}");
        assertEquals("peer not tracked in stats history: "
                + FakeControlApi.PEER_C.nodeAddr().toString().substring(0, 8) + "...", r.get("message").asText());
        final JsonNode bad = ask("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"srtt_ms\","
                + "\"peer\":\"npub1nope\"}}");
        assertTrue(bad.get("message").asText().startsWith("invalid peer npub: "), bad::toString);
    }

    @Test
    void statsPeersListsTrackedPeersActiveFirst() throws Exception {
        tick(NodeSample.NOTHING, peerA(10), new PeerSample(B.nodeAddr().toString(), B.npub(), 5, Double.NaN, 0, 0,
                0, 0, NodeSample.UNMEASURED));
        tick(NodeSample.NOTHING, new PeerSample(B.nodeAddr().toString(), B.npub(), 5, Double.NaN, 0, 0, 0, 0,
                NodeSample.UNMEASURED));
        tick(NodeSample.NOTHING, new PeerSample(B.nodeAddr().toString(), B.npub(), 5, Double.NaN, 0, 0, 0, 0,
                NodeSample.UNMEASURED));
        final JsonNode d = ask("{\"command\":\"show_stats_peers\"}").get("data");
        assertEquals(2, d.get("count").asInt());
        final JsonNode first = d.get("peers").get(0);
        assertEquals(Set.of("npub", "node_addr", "display_name", "is_active", "first_seen_secs_ago",
                "last_contact_secs_ago"), keys(first));
        assertEquals(B.npub(), first.get("npub").asText());
        assertTrue(first.get("is_active").asBoolean());
        final JsonNode second = d.get("peers").get(1);
        assertEquals("test-us01", second.get("display_name").asText());
        assertEquals(false, second.get("is_active").asBoolean());
        // The clock stands 1 s after the last sample; A's last contact was two samples before that one.
        assertEquals(3, second.get("first_seen_secs_ago").asLong());
        assertEquals(3, second.get("last_contact_secs_ago").asLong());
        assertEquals(json("{\"status\":\"ok\",\"data\":{\"peers\":[],\"count\":0}}").toString(),
                new ControlDispatcher(new FakeControlApi() {
                    @Override
                    public Optional<StatsView> stats() {
                        return Optional.of(new StatsView(new StatsHistory(), () -> 0, n -> null, n -> n));
                    }
                }).dispatch("{\"command\":\"show_stats_peers\"}").toString());
    }

    @Test
    void allHistoryCarriesTenNodeSeriesOrSevenPeerSeries() {
        tick(NodeSample.NOTHING, peerA(12));
        final JsonNode node = ask("{\"command\":\"show_stats_all_history\",\"params\":{\"window\":\"10s\"}}")
                .get("data");
        assertEquals(Set.of("granularity_seconds", "window_seconds", "peer", "series"), keys(node));
        assertTrue(node.get("peer").isNull());
        assertEquals(10, node.get("window_seconds").asLong());
        final List<String> names = new ArrayList<>();
        node.get("series").forEach(s -> names.add(s.get("metric").asText()));
        assertEquals(List.of("mesh_size", "tree_depth", "peer_count", "parent_switches", "bytes_in", "bytes_out",
                "packets_in", "packets_out", "loss_rate", "active_sessions"), names);
        node.get("series").forEach(s -> assertEquals(10, s.get("values").size()));
        // Without params at all, the defaults apply (the reference treats absent params as {}).
        assertEquals(600, ask("{\"command\":\"show_stats_all_history\"}").get("data").get("window_seconds")
                .asLong());
        final JsonNode peer = ask("{\"command\":\"show_stats_all_history\",\"params\":{\"peer\":\"NPUB_A\","
                + "\"window\":\"2s\"}}").get("data");
        assertEquals(A.npub(), peer.get("peer").asText());
        assertEquals(7, peer.get("series").size());
        assertEquals(12.0, peer.get("series").get(0).get("values").get(1).asDouble());
    }

    @Test
    void historyAllPeersHasOneRowPerTrackedPeer() throws Exception {
        tick(NodeSample.NOTHING, peerA(12));
        final JsonNode d = ask("{\"command\":\"show_stats_history_all_peers\",\"params\":{\"metric\":\"srtt_ms\","
                + "\"window\":\"3s\"}}").get("data");
        assertEquals(Set.of("metric", "unit", "granularity_seconds", "window_seconds", "peers"), keys(d));
        final JsonNode row = d.get("peers").get(0);
        assertEquals(Set.of("node_addr", "display_name", "is_active", "values"), keys(row));
        assertEquals(A.nodeAddr().toString(), row.get("node_addr").asText());
        assertEquals(json("[null,null,12.0]").toString(), row.get("values").toString());
    }

    @Test
    void anApiWithoutHistoryRefusesTheStatsCommands() {
        final ControlDispatcher plain = new ControlDispatcher(new FakeControlApi());
        assertEquals("unknown command: show_stats_history",
                plain.dispatch("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"x\"}}")
                        .get("message").asText());
        // The catalogue is static and served anyway.
        assertEquals("ok", plain.dispatch("{\"command\":\"show_stats_list\"}").get("status").asText());
    }

    private static Set<String> keys(final JsonNode o) {
        final Set<String> k = new TreeSet<>();
        o.fieldNames().forEachRemaining(k::add);
        return k;
    }

}
