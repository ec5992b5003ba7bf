package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every key of discovery-gateway.md §1.13 under both spellings, defaults, and bad values named by path. */
class NostrConfigTest {
    @TempDir
    Path root;

    /** Every key with a non-default value, as one YAML block body. */
    private static final String ALL_KEYS = """
            enabled: true
            advertise: false
            advert_relays: ["ws://127.0.0.1:7777"]
            dm_relays: ["ws://127.0.0.1:7778", "wss://relay.example"]
            stun_servers: ["stun:127.0.0.1:3478"]
            share_local_candidates: true
            app: my-mesh
            signal_ttl_secs: 60
            policy: open
            open_discovery_max_pending: 7
            max_concurrent_incoming_offers: 8
            max_concurrent_offers_per_npub: 2
            advert_cache_max_entries: 9
            seen_sessions_max_entries: 10
            attempt_timeout_secs: 11
            replay_window_secs: 400
            punch_start_delay_ms: 12
            punch_interval_ms: 13
            punch_duration_ms: 14
            advert_ttl_secs: 15
            advert_refresh_secs: 16
            startup_sweep_delay_secs: 17
            startup_sweep_max_age_secs: 18
            failure_streak_threshold: 19
            extended_cooldown_secs: 20
            warn_log_interval_secs: 21
            failure_state_max_entries: 22
            protocol_mismatch_cooldown_secs: 23
            """;

    private static final NostrConfig ALL_KEYS_VALUES = new NostrConfig(true, false, List.of("ws://127.0.0.1:7777"),
            List.of("ws://127.0.0.1:7778", "wss://relay.example"), List.of("stun:127.0.0.1:3478"), true, "my-mesh", 60,
            NostrConfig.Policy.OPEN, 7, 8, 2, 9, 10, 11, 400, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23);

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }


    @Test
    void absentSectionGivesTheReferenceDefaults() throws ConfigException {
        final NostrConfig n = load("node: { identity: { persistent: false } }\n").config().nostr();
        assertEquals(NostrConfig.DEFAULTS, n);
        assertEquals(List.of("wss://relay.damus.io", "wss://nos.lol", "wss://offchain.pub"), n.advertRelays());
        assertEquals(120, n.signalTtlSecs());
        assertEquals(NostrConfig.Policy.CONFIGURED_ONLY, n.policy());
        assertEquals("fips-overlay-v1", n.app());
    }

    @Test
    void everyKeyUnderTheV041Spelling() throws ConfigException {
        final LoadedConfig c = load("node:\n  discovery:\n    nostr:\n" + ALL_KEYS.indent(6));
        assertEquals(ALL_KEYS_VALUES, c.config().nostr());
    }

    @Test
    void everyKeyUnderTheMasterSpelling() throws ConfigException {
        final LoadedConfig c = load("node:\n  rendezvous:\n    nostr:\n" + ALL_KEYS.indent(6));
        assertEquals(ALL_KEYS_VALUES, c.config().nostr());
    }

    @Test
    void theV041BlockWinsOverTheMasterBlock() throws ConfigException {
        final LoadedConfig c = load("""
                node:
                  discovery: { nostr: { app: old } }
                  rendezvous: { nostr: { app: new, signal_ttl_secs: 5 } }
                """);
        assertEquals("old", c.config().nostr().app());
        assertEquals(120, c.config().nostr().signalTtlSecs());
    }

    @Test
    void badValuesAreNamedByPath() {
        final List<String> e = assertThrows(ConfigException.class, () -> load("""
                node: { discovery: { nostr: { policy: everyone, signal_ttl_secs: -1, dm_relays: 5 } } }
                """)).problems();
        assertTrue(e.stream().anyMatch(p -> p.startsWith("node.discovery.nostr.policy")), e.toString());
        assertTrue(e.stream().anyMatch(p -> p.startsWith("node.discovery.nostr.signal_ttl_secs")), e.toString());
        assertTrue(e.stream().anyMatch(p -> p.startsWith("node.discovery.nostr.dm_relays")), e.toString());
    }

    @Test
    void aZeroPerSenderOfferAllowanceIsRefusedAsOnMaster() {
        final List<String> e = assertThrows(ConfigException.class, () -> load("""
                node: { rendezvous: { nostr: { max_concurrent_offers_per_npub: 0 } } }
                """)).problems();
        assertTrue(e.stream().anyMatch(p -> p.startsWith("node.discovery.nostr.max_concurrent_offers_per_npub")
                && p.contains("refuses every inbound traversal offer")), e.toString());
    }
}
