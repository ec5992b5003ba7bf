package net.fips.control.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Each served command over a real Unix socket against {@link FakeControlApi}, compared as JSON trees with golden
 * files, plus the key sets the reference's code emits (operator spec §2.3), checked independently of the goldens.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ControlGoldenTest {

    @TempDir
    Path dir;

    private ControlSocketServer server;
    private FakeControlApi api;

    @BeforeEach
    void start() throws Exception {
        api = new FakeControlApi();
        server = ControlSocketServer.start(dir.resolve("control.sock"), api,
                ControlSocketServer.Options.DEFAULTS.withIoTimeout(Duration.ofSeconds(10)));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "show_status      | {\"command\":\"show_status\"}",
        "show_peers       | {\"command\":\"show_peers\"}",
        "show_links       | {\"command\":\"show_links\",\"params\":null}",
        "show_connections | {\"command\":\"show_connections\",\"extra\":true}",
        "show_transports  | {\"command\":\"show_transports\",\"params\":{\"ignored\":1}}",
        "show_acl         | {\"command\":\"show_acl\"}",
        "show_nostr       | {\"command\":\"show_nostr\"}",
        "connect          | {\"command\":\"connect\",\"params\":{\"npub\":\"" + "NPUB_C"
                + "\",\"address\":\"203.0.113.9:2121\",\"transport\":\"udp\"}}",
        "disconnect       | {\"command\":\"disconnect\",\"params\":{\"npub\":\"NPUB_A\"}}",
        "disconnect_unknown | {\"command\":\"disconnect\",\"params\":{\"npub\":\"NPUB_C\"}}",
    })
    void responseMatchesGolden(final String golden, final String request) throws Exception {
        final String line = request.replace("NPUB_A", FakeControlApi.PEER_A.npub())
                .replace("NPUB_C", FakeControlApi.PEER_C.npub());
        final JsonNode actual = ControlTestSupport.ask(server.path(), line);
        if (Boolean.getBoolean("fips.golden.update")) {
            // Regenerate after an intended schema change: -Dfips.golden.update=true, then review the diff.
            Files.writeString(Path.of("src/test/resources/net/fips/control/ctl/golden",
                    golden + ".json"), ControlJson.pretty(actual) + "\n");
        }
        assertEquals(ControlTestSupport.golden(golden), actual, () -> "actual: " + ControlJson.pretty(actual));
    }

    @Test
    void statusCarriesExactlyTheReferenceKeys() throws Exception {
        final JsonNode data = ControlTestSupport.ask(server.path(), "{\"command\":\"show_status\"}").get("data");
        assertEquals(Set.of("version", "npub", "node_addr", "ipv6_addr", "state", "is_leaf_only", "peer_count",
                "session_count", "link_count", "transport_count", "connection_count", "tun_state", "tun_name",
                "effective_ipv6_mtu", "control_socket", "pid", "exe_path", "uptime_secs", "estimated_mesh_size",
                "persistent", "root", "is_root", "transport_peer_counts", "forwarding", "sparklines"), keys(data));
        assertEquals(24, data.get("forwarding").size());
        assertEquals(Set.of("mesh_size", "tree_depth", "peer_count", "bytes_in", "bytes_out", "loss_rate"),
                keys(data.get("sparklines")));
        // The reference's snapshot identity: node_addr and address of secret 0xAB..AB.
        assertEquals("1b4788b7ab7a436a611fc59fb1e34c6e", data.get("node_addr").asText());
        assertEquals("fd1b:4788:b7ab:7a43:6a61:1fc5:9fb1:e34c", data.get("ipv6_addr").asText());
        assertTrue(data.get("sparklines").get("loss_rate").get(1).isNull(), "NaN must travel as null");
    }

    @Test
    void peerKeysFollowTheReferencePresenceRules() throws Exception {
        final JsonNode peers = ControlTestSupport.ask(server.path(), "{\"command\":\"show_peers\"}")
                .get("data").get("peers");
        final Set<String> always = Set.of("node_addr", "npub", "display_name", "ipv6_addr", "connectivity",
                "link_id", "authenticated_at_ms", "last_seen_ms", "has_tree_position", "has_bloom_filter",
                "filter_sequence", "is_parent", "is_child", "effective_depth", "stats", "replay_suppressed",
                "consecutive_decrypt_failures", "nostr_traversal", "current_k_bit");
        final Set<String> full = new TreeSet<>(always);
        full.addAll(Set.of("transport_addr", "direction", "transport_type", "tree_depth", "noise",
                "our_session_index", "mmp"));
        assertEquals(full, keys(peers.get(0)));
        final Set<String> second = new TreeSet<>(always);
        second.addAll(Set.of("transport_addr", "direction", "transport_type", "rekey_in_progress",
                "rekey_draining"));
        assertEquals(second, keys(peers.get(1)));
        assertTrue(peers.get(1).get("effective_depth").isNull());
        assertEquals(Set.of("consecutive_failures", "in_cooldown", "cooldown_until_ms", "last_observed_skew_ms"),
                keys(peers.get(0).get("nostr_traversal")));
        assertTrue(peers.get(0).get("nostr_traversal").get("cooldown_until_ms").isNull());
        assertEquals(Set.of("mode", "srtt_ms", "loss_rate", "etx", "goodput_bps", "delivery_ratio_forward",
                "delivery_ratio_reverse", "smoothed_loss", "smoothed_etx", "lqi"), keys(peers.get(0).get("mmp")));
    }

    @Test
    void connectIsQueuedWithTheGivenValues() throws Exception {
        final String npub = FakeControlApi.PEER_C.npub();
        ControlTestSupport.ask(server.path(), "{\"command\":\"connect\",\"params\":{\"npub\":\"" + npub
                + "\",\"address\":\"[2001:db8::1]:2121\",\"transport\":\"tcp\"}}");
        assertEquals(1, api.connects.size());
        assertEquals(new ConnectResult(npub, "[2001:db8::1]:2121", "tcp"), api.connects.get(0));
    }

    /**
     * The routing commands, rendered by the production {@code MeshJson} for a lone node, carry exactly the key sets
     * of the reference's {@code show_tree}, {@code show_bloom}, {@code show_cache} and {@code show_routing}
     * (operator spec §2.3; {@code show_routing}'s node-level keys such as {@code retries} and {@code forwarding}
     * are added by the node and checked in {@code NodeMeshTest}).
     */
    @Test
    void routingCommandsCarryTheReferenceKeys() throws Exception {
        final JsonNode tree = ControlTestSupport.ask(server.path(), "{\"command\":\"show_tree\"}").get("data");
        assertEquals(Set.of("my_node_addr", "root", "root_npub", "is_root", "depth", "my_coords", "parent",
                "parent_display_name", "declaration_sequence", "declaration_signed", "peer_tree_count", "peers",
                "stats"), keys(tree));
        assertEquals(Set.of("accepted", "addr_mismatch", "ancestry_changed", "ancestry_invalid", "decode_error",
                "flap_dampened", "loop_detected", "outbound_sign_failed", "parent_losses", "parent_switches",
                "rate_limited", "received", "send_failed", "sent", "sig_failed", "stale", "unknown_peer"),
                keys(tree.get("stats")));
        assertEquals(FakeControlApi.SELF.nodeAddr().toString(), tree.get("root").asText());
        assertTrue(tree.get("is_root").asBoolean());
        assertEquals(FakeControlApi.SELF.npub(), tree.get("root_npub").asText());
        assertEquals(1, tree.get("my_coords").size());
        assertTrue(tree.get("declaration_signed").asBoolean());
        final JsonNode bloom = ControlTestSupport.ask(server.path(), "{\"command\":\"show_bloom\"}").get("data");
        assertEquals(Set.of("own_node_addr", "is_leaf_only", "sequence", "leaf_dependent_count", "leaf_dependents",
                "peer_filters", "uptree_fill_ratio", "uptree_estimated_count", "stats"), keys(bloom));
        assertEquals(Set.of("accepted", "debounce_suppressed", "decode_error", "fill_exceeded", "invalid", "non_v1",
                "received", "send_failed", "sent", "stale", "unknown_peer"), keys(bloom.get("stats")));
        assertTrue(bloom.get("uptree_fill_ratio").isNull(), "a root has no uptree filter");
        final JsonNode cache = ControlTestSupport.ask(server.path(), "{\"command\":\"show_cache\"}").get("data");
        assertEquals(Set.of("count", "max_entries", "fill_ratio", "default_ttl_ms", "expired", "avg_age_ms",
                "entries"), keys(cache));
        assertEquals(50_000, cache.get("max_entries").asInt());
        assertEquals(300_000, cache.get("default_ttl_ms").asLong());
        final JsonNode routing = ControlTestSupport.ask(server.path(), "{\"command\":\"show_routing\"}")
                .get("data");
        assertTrue(keys(routing).containsAll(Set.of("coord_cache_entries", "identity_cache_entries",
                "pending_lookups", "recent_requests", "discovery", "error_signals")), keys(routing)::toString);
        assertEquals(Set.of("req_backoff_suppressed", "req_bloom_miss", "req_decode_error", "req_dedup_cache_full",
                "req_deduplicated", "req_duplicate", "req_fallback_forwarded", "req_forward_rate_limited",
                "req_forwarded", "req_initiated", "req_no_tree_peer", "req_received", "req_target_is_us",
                "req_ttl_exhausted", "resp_accepted", "resp_decode_error", "resp_forwarded", "resp_identity_miss",
                "resp_no_route", "resp_proof_failed", "resp_received", "resp_timed_out"),
                keys(routing.get("discovery")));
        assertEquals(Set.of("coords_required", "mtu_exceeded", "path_broken"), keys(routing.get("error_signals")));
        final JsonNode ids = ControlTestSupport.ask(server.path(), "{\"command\":\"show_identity_cache\"}")
                .get("data");
        assertEquals(Set.of("entries", "count", "max_entries"), keys(ids));
        assertEquals(10_000, ids.get("max_entries").asInt());
    }

    private static Set<String> keys(final JsonNode obj) {
        final Set<String> s = new TreeSet<>();
        for (final Iterator<String> it = obj.fieldNames(); it.hasNext();) {
            s.add(it.next());
        }
        return s;
    }
}
