package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.ctl.ControlDispatcher;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.metrics.Granularity;
import net.fips.control.metrics.NodeMetric;
import net.fips.control.metrics.PeerMetric;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.node.NodeTestSupport.Sender;
import net.fips.control.node.NodeTestSupport.SequenceCheck;
import net.fips.testing.FreePorts;

/**
 * Two real nodes over loopback: the stats history fills from the live link, {@code show_metrics} carries the
 * reference's six families, and the Prometheus endpoint ({@code node.metrics.bind}) exports values that move with
 * the traffic.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeMetricsTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
              rekey:
                enabled: false
            """;
    private static final String METRICS = NODE + """
              metrics:
                bind: "127.0.0.1:0"
            """;

    @TempDir
    Path dir;

    private final NodeIdentity idA = NodeIdentity.generate();
    private final NodeIdentity idB = NodeIdentity.generate();
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node[] pair(final String extraA, final SequenceCheck atB) throws Exception {
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final Node a = Node.start(load(yaml(idA, pa, dir.resolve("a.sock"), extraA, new Peer(idB, "bee", pb, true))),
                new NodeOptions().aclDirectory(dir.resolve("acl")));
        nodes.add(a);
        final Node b = Node.start(load(yaml(idB, pb, dir.resolve("b.sock"), NODE, new Peer(idA, "a", pa, true))),
                new NodeOptions().aclDirectory(dir.resolve("acl")).localDelivery(atB));
        nodes.add(b);
        until(Duration.ofSeconds(5), () -> linked(a, b), () -> "link up");
        until(Duration.ofSeconds(5),
                () -> a.linkSnapshot().pendingOutbound() == 0 && b.linkSnapshot().pendingOutbound() == 0,
                () -> "dials settled");
        return new Node[] {a, b};
    }

    private static double newest(final double[] values) {
        for (int i = values.length - 1; i >= 0; i--) {
            if (Double.isFinite(values[i])) {
                return values[i];
            }
        }
        return Double.NaN;
    }

    @Test
    void historyFillsFromTheLiveLinkAndShowMetricsHasTheSixFamilies() throws Exception {
        final SequenceCheck atB = new SequenceCheck();
        final Node[] n = pair(NODE, atB);
        final Node a = n[0];
        final Node b = n[1];
        final Sender sender = new Sender(a, b, atB);
        final long link = peerOf(a, b).linkId();
        final String bAddr = b.identity().nodeAddr().toString();
        final var h = a.stats().history();

        // Traffic until a 1 s sample of a's history shows it in the per-peer and node series.
        sender.run(link, 64, () -> !(newest(h.peerSeries(bAddr, PeerMetric.BYTES_OUT, 5, Granularity.FAST)
                .map(s -> s.values()).orElse(new double[0])) > 0
                && newest(h.series(NodeMetric.PACKETS_OUT, 5, Granularity.FAST).values()) > 0));
        assertEquals(1.0, newest(h.series(NodeMetric.PEER_COUNT, 5, Granularity.FAST).values()));
        // Not measured yet: gaps, not zeros.
        assertTrue(Double.isNaN(h.latest(NodeMetric.LOSS_RATE)));
        // a runs the session layer, which feeds the real count of established sessions: none yet.
        assertEquals(0.0, h.latest(NodeMetric.ACTIVE_SESSIONS));
        final long before = h.samples();
        a.stats().activeSessions(() -> 3);
        until(Duration.ofSeconds(3), () -> h.latest(NodeMetric.ACTIVE_SESSIONS) == 3.0,
                () -> "active_sessions from the supplier");
        assertTrue(h.samples() > before);

        // The same through the control socket's dispatcher.
        final ControlDispatcher d = new ControlDispatcher(a.controlApi());
        final JsonNode r = d.dispatch("{\"command\":\"show_stats_history\",\"params\":{\"metric\":\"bytes_out\","
                + "\"peer\":\"" + b.identity().npub() + "\",\"window\":\"1m\"}}");
        assertEquals("ok", r.get("status").asText(), r::toString);
        assertEquals(60, r.get("data").get("values").size());
        final JsonNode peers = d.dispatch("{\"command\":\"show_stats_peers\"}").get("data");
        assertEquals("bee", peers.get("peers").get(0).get("display_name").asText());
        assertTrue(peers.get("peers").get(0).get("is_active").asBoolean());
        final JsonNode status = d.dispatch("{\"command\":\"show_status\"}").get("data").get("sparklines");
        assertFalse(status.get("peer_count").isEmpty());

        final JsonNode m = d.dispatch("{\"command\":\"show_metrics\"}").get("data");
        assertEquals(Set.of("forwarding", "discovery", "tree", "bloom", "congestion", "errors"), keys(m));
        assertEquals(24, m.get("forwarding").size());
        assertTrue(m.get("tree").has("parent_switches"), m::toString);
        assertTrue(m.get("tree").get("sent").asLong() >= 1, "a sent its TreeAnnounce: " + m);
        assertEquals(Set.of("coords_required", "mtu_exceeded", "path_broken"), keys(m.get("errors")));
        assertEquals(Set.of("ce_forwarded", "ce_received", "congestion_detected", "kernel_drop_events"),
                keys(m.get("congestion")));
        // Counted by the data plane now: no CE on this uncongested loopback link.
        for (final String k : List.of("ce_forwarded", "ce_received", "congestion_detected", "kernel_drop_events")) {
            assertTrue(m.get("congestion").get(k).isIntegralNumber(), k + " measured: " + m);
        }
        assertEquals(0, m.get("congestion").get("ce_received").asLong());
        assertTrue(a.metricsAddress().isEmpty(), "the endpoint is off by default");
    }

    private static JsonNode mmpPeer(final ControlDispatcher d) {
        final JsonNode peers = d.dispatch("{\"command\":\"show_mmp\"}").get("data").get("peers");
        return peers.isEmpty() ? null : peers.get(0);
    }

    /**
     * MMP over the live link (routing-session §6.3): after traffic from a, b's data plane has measured the jitter
     * of a's frames (show_mmp receiver{}), b's ReceiverReports carry it, and a shows it as peer_report{} with the
     * reference's jitter_trend and the reported CE count (0: nothing is congested here) instead of nulls.
     */
    @Test
    void showMmpCarriesMeasuredJitterAfterTraffic() throws Exception {
        final SequenceCheck atB = new SequenceCheck();
        final Node[] n = pair(NODE, atB);
        final Node a = n[0];
        final Node b = n[1];
        final Sender sender = new Sender(a, b, atB);
        final ControlDispatcher da = new ControlDispatcher(a.controlApi());
        final ControlDispatcher db = new ControlDispatcher(b.controlApi());
        final long link = peerOf(a, b).linkId();
        sender.run(link, 64, () -> sender.sent() < 2000);
        until(Duration.ofSeconds(10),
                () -> mmpPeer(db) != null && mmpPeer(db).get("receiver").get("jitter_us").isIntegralNumber()
                        && mmpPeer(da) != null && mmpPeer(da).get("peer_report").get("jitter_us").isIntegralNumber(),
                () -> "measured jitter at b and reported to a: " + mmpPeer(db) + " / " + mmpPeer(da));
        final JsonNode atBPeer = mmpPeer(db);
        assertTrue(atBPeer.get("receiver").get("jitter_us").asLong() > 0,
                "real arrival times against millisecond timestamps: " + atBPeer);
        assertTrue(atBPeer.get("receiver").get("owd_trend").isIntegralNumber());
        assertTrue(atBPeer.get("receiver").get("reorder_count").isIntegralNumber());
        final JsonNode atAPeer = mmpPeer(da);
        assertEquals(0, atAPeer.get("link_layer").get("ecn_ce_count").asLong(), atAPeer::toString);
        assertTrue(atAPeer.get("link_layer").get("ecn_ce_count").isIntegralNumber(), "measured, not null");
        assertTrue(Set.of("rising", "falling", "stable").contains(
                atAPeer.get("link_layer").get("jitter_trend").asText()), atAPeer::toString);
        assertTrue(atAPeer.get("peer_report").get("max_burst_loss").isIntegralNumber());
    }

    @Test
    void prometheusEndpointExportsValuesThatMoveWithTraffic() throws Exception {
        final SequenceCheck atB = new SequenceCheck();
        final Node[] n = pair(METRICS, atB);
        final Node a = n[0];
        final Node b = n[1];
        final var at = a.metricsAddress().orElseThrow();
        assertTrue(at.getPort() > 0);
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        final URI uri = URI.create("http://127.0.0.1:" + at.getPort() + "/metrics");

        final String first = scrape(http, uri);
        final String peer = "peer=\"" + b.identity().npub() + "\"";
        for (final String name : List.of("fips_info", "fips_uptime_seconds", "fips_peers", "fips_tree_depth",
                "fips_link_links_established_total", "fips_dataplane_frames_out_total",
                "fips_transport_packets_sent_total", "fips_forwarding_forwarded_packets_total",
                "fips_tree_parent_switches_total", "fips_bloom_sent_total", "fips_discovery_req_received_total",
                "fips_errors_coords_required_total", "fips_congestion_kernel_drop_events_total",
                "fips_peer_bytes_sent_total", "fips_peer_restarts_total", "fips_peer_decrypt_failures_total")) {
            assertTrue(Pattern.compile("(?m)^" + name + "[ {]").matcher(first).find(), name + " in:\n" + first);
        }
        assertEquals(1.0, value(first, "fips_peers", ""));
        assertTrue(first.contains("name=\"bee\""), "the alias labels the peer");
        // Not measured: no sample at all (and never a made-up 0).
        assertFalse(first.contains("fips_forwarding_received_bytes"), "unmeasured byte counter left out");
        // The session layer's count (none established), once the history has its first sample.
        assertTrue(!first.contains("fips_active_sessions ") || value(first, "fips_active_sessions", "") == 0.0,
                "no session is counted that does not exist");

        final double sentBefore = value(first, "fips_peer_packets_sent_total", peer);
        final double framesBefore = value(first, "fips_dataplane_frames_out_total", "");
        final Sender sender = new Sender(a, b, atB);
        final long sent = sender.run(peerOf(a, b).linkId(), 64, () -> sender.sent() < 500);
        until(Duration.ofSeconds(5), () -> atB.delivered() >= sent, () -> "delivered");
        // The link snapshot behind the per-peer series is published once per tick.
        until(Duration.ofSeconds(5),
                () -> value(scrape(http, uri), "fips_peer_packets_sent_total", peer) >= sentBefore + sent,
                () -> "peer counter moved");
        final String after = scrape(http, uri);
        assertTrue(value(after, "fips_dataplane_frames_out_total", "") >= framesBefore + sent);
        assertTrue(value(after, "fips_peer_bytes_sent_total", peer) > value(first, "fips_peer_bytes_sent_total",
                peer));
        // OpenMetrics on request, from the same client library.
        final HttpResponse<String> om = http.send(HttpRequest.newBuilder(uri)
                .header("Accept", "application/openmetrics-text; version=1.0.0").build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(om.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"));
        assertTrue(om.body().strip().endsWith("# EOF"));
    }

    private static String scrape(final HttpClient http, final URI uri) {
        try {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            return r.body();
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The value of the sample {@code name{...labelPart...}}; labelPart empty means a sample without labels. */
    private static double value(final String text, final String name, final String labelPart) {
        final Pattern p = labelPart.isEmpty()
                ? Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)")
                : Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{[^}]*" + Pattern.quote(labelPart)
                        + "[^}]*\\} (\\S+)");
        final Matcher m = p.matcher(text);
        if (!m.find()) {
            throw new AssertionError("no sample " + name + " " + labelPart + " in:\n" + text);
        }
        return Double.parseDouble(m.group(1));
    }

    private static Set<String> keys(final JsonNode o) {
        final Set<String> k = new TreeSet<>();
        o.fieldNames().forEachRemaining(k::add);
        return k;
    }

}
