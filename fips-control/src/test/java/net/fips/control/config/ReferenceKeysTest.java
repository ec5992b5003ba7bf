package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Config compatibility with both reference lines: a key v0.4.1 or master knows but this node does not implement
 * loads with exactly one warning naming it; a key neither knows is an error with a hint; no message shows a Java
 * exception class name.
 */
class ReferenceKeysTest {
    private static final String V041 = ": accepted but not implemented (a reference v0.4.1 key); ignored";
    private static final String MASTER = ": accepted but not implemented (a reference master key); ignored";

    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    /** One YAML per family of unimplemented keys, with the one warning it must give. */
    static Stream<Arguments> families() {
        return Stream.of(
                Arguments.of("node: { base_rtt_ms: 50 }", "node.base_rtt_ms" + V041),
                Arguments.of("node: { drain_timeout_secs: 5 }", "node.drain_timeout_secs" + MASTER),
                Arguments.of("node: { limits: { max_links: 3 } }", "node.limits.max_links" + V041),
                Arguments.of("node: { rate_limit: { session_setup_burst: 8 } }",
                        "node.rate_limit.session_setup_burst" + MASTER),
                Arguments.of("node: { rate_limit: { session_setup_rate: 2.5 } }",
                        "node.rate_limit.session_setup_rate" + MASTER),
                Arguments.of("node: { rate_limit: { established_handshake_burst: 8 } }",
                        "node.rate_limit.established_handshake_burst" + MASTER),
                Arguments.of("node: { rate_limit: { established_handshake_rate: 1 } }",
                        "node.rate_limit.established_handshake_rate" + MASTER),
                Arguments.of("node: { mmp: { owd_window_size: 8 } }", "node.mmp.owd_window_size" + V041),
                Arguments.of("node: { session_mmp: { owd_window_size: 8 } }",
                        "node.session_mmp.owd_window_size" + V041),
                Arguments.of("node: { ecn: { enabled: false } }", "node.ecn.enabled" + V041),
                Arguments.of("node: { buffers: { tun_channel: 64 } }", "node.buffers.tun_channel" + V041),
                Arguments.of("node: { native_api: { enabled: true } }", "node.native_api.enabled" + MASTER),
                Arguments.of("node: { native_api: { socket_path: /run/fips/api.sock } }",
                        "node.native_api.socket_path" + MASTER),
                Arguments.of("transports: { udp: { a: { accept_connections: false } } }",
                        "transports.udp.a.accept_connections" + V041),
                Arguments.of("transports: { ble: { one: { auto_connect: true } } }",
                        "transports.ble.one.auto_connect" + V041),
                Arguments.of("gateway: { conntrack: { udp_timeout: 30 } }", "gateway.conntrack.udp_timeout" + V041));
    }

    @ParameterizedTest
    @MethodSource("families")
    void anUnimplementedReferenceKeyLoadsWithExactlyOneWarningNamingIt(final String yaml, final String warning)
            throws ConfigException {
        // gateway.* needs its two required keys; they warn too, so they are filtered out by path.
        final String full = yaml.startsWith("gateway:")
                ? yaml.replace("gateway: {", "gateway: { pool: \"fd01::/112\", lan_interface: eth0,") : yaml;
        final List<String> w = load(full).warnings().stream()
                .filter(s -> !s.startsWith("gateway.pool:") && !s.startsWith("gateway.lan_interface:")).toList();
        assertEquals(List.of(warning), w);
    }

    @Test
    void tableEntriesAreSchemaPathsOfBothLines() {
        assertEquals(ReferenceKeys.Line.MASTER, ReferenceKeys.unimplemented("node.native_api.max_flows"));
        assertEquals(ReferenceKeys.Line.V041, ReferenceKeys.unimplemented("transports.udp.accept_connections"));
        assertNull(ReferenceKeys.unimplemented("transports.tor.directory_service.bind_addr"));
        assertNull(ReferenceKeys.unimplemented("gateway.port_forwards"));
        assertEquals(ReferenceKeys.Line.V041, ReferenceKeys.unimplemented("gateway.conntrack.udp_timeout"));
        // Inside a list element the list itself has already warned.
        assertNull(ReferenceKeys.unimplemented("gateway.port_forwards[].proto"));
        // Implemented keys are not in the table.
        for (final String implemented : List.of("node.leaf_only", "node.tick_interval_secs", "node.lookup.ttl",
                "node.discovery.ttl", "node.retry.max_retries", "node.rekey.after_secs", "node.mmp.mode",
                "node.session.default_ttl", "node.session.idle_timeout_secs", "node.session.coords_warmup_packets",
                "node.limits.max_peers", "node.buffers.packet_channel",
                "transports.udp.bind_addr",
                "transports.udp.outbound_only", "peers[].alias", "node.control.socket_path",
                "transports.ble.adapter", "transports.ble.psm", "transports.ble.probe_cooldown_secs",
                "transports.nym.socks5_addr", "transports.nym.startup_timeout_secs",
                "node.discovery.lan.enabled", "node.discovery.lan.service_type", "node.rendezvous.lan.scope",
                "node.discovery.nostr.punch_interval_ms", "node.discovery.nostr.attempt_timeout_secs",
                "node.rendezvous.nostr.max_concurrent_incoming_offers", "node.discovery.nostr.stun_servers",
                "node.discovery.nostr.startup_sweep_delay_secs", "node.rendezvous.nostr.startup_sweep_max_age_secs",
                "node.discovery.nostr.protocol_mismatch_cooldown_secs",
                "node.rendezvous.nostr.max_concurrent_offers_per_npub",
                "node.discovery.nostr.share_local_candidates", "node.rendezvous.nostr.share_local_candidates",
                "transports.tor.advertise_on_nostr", "transports.tor.advertised_port")) {
            assertNull(ReferenceKeys.unimplemented(implemented), implemented);
        }
        assertFalse(ReferenceKeys.entries().isEmpty());
    }

    @Test
    void masterLookupSpellingIsImplementedAndTheLegacyBlockWins() throws ConfigException {
        final LoadedConfig master = load("node: { lookup: { ttl: 20, attempt_timeouts_secs: [2, 4] } }");
        assertEquals(List.of(), master.warnings());
        assertEquals(20, master.config().node().lookup().ttl());
        assertEquals(List.of(2L, 4L), master.config().node().lookup().attemptTimeoutsSecs());
        final LoadedConfig both = load("node: { lookup: { ttl: 20, recent_expiry_secs: 7 }, discovery: { ttl: 9 } }");
        assertEquals(9, both.config().node().lookup().ttl(), "as on master, a key of node.discovery wins");
        assertEquals(7, both.config().node().lookup().recentExpirySecs());
    }

    @Test
    void masterRendezvousNostrFeedsTheCrossChecks() {
        final String peer = "peers: [ { npub: " + ConfigTestSupport.TEST_US01 + ", via_nostr: true } ]";
        assertTrue(errors(peer).contains("peers[0].via_nostr: true requires node.discovery.nostr.enabled: true"));
        // The master spelling enables Nostr discovery, which the node runs: no warning.
        assertEquals(List.of(), assertDoesNotThrowLoad("node: { rendezvous: { nostr: { enabled: true } } }\n" + peer)
                .warnings());
    }

    private LoadedConfig assertDoesNotThrowLoad(final String yaml) {
        try {
            return load(yaml);
        } catch (final ConfigException e) {
            throw new AssertionError(e.problems().toString(), e);
        }
    }

    @Test
    void ethernetListenIsTheMasterSpellingOfDiscovery() throws ConfigException {
        // Ethernet is implemented: no warnings, and either spelling sets the same flag.
        assertEquals(List.of(), load("transports: { ethernet: { interface: eth0, listen: true } }").warnings());
        assertEquals(List.of(), load("transports: { ethernet: { interface: eth0, discovery: true } }").warnings());
        assertTrue(errors("transports: { ethernet: { interface: eth0, listen: true, discovery: true } }")
                .contains("transports.ethernet.discovery: is the old spelling of listen; set only one of them"));
    }

    @Test
    void udpInstancePeerTransportMustNameAConfiguredInstance() throws ConfigException {
        final String peer = "peers: [ { npub: " + ConfigTestSupport.TEST_US01
                + ", addresses: [ { transport: \"udp/%s\", addr: \"1.2.3.4:2121\" } ] } ]";
        final LoadedConfig ok = load("transports: { udp: { wan: { bind_addr: \"0.0.0.0:2121\" } } }\n"
                + peer.formatted("wan"));
        assertEquals(List.of(), ok.warnings());
        final PeerConfig.Address a = ok.config().peers().get(0).addresses().get(0);
        assertEquals("udp", a.kind());
        assertEquals(Optional.of("wan"), a.instance());
        assertEquals(List.of("peers[0].addresses[0].transport: \"udp/lan\" names no transports.udp instance "
                + "(configured: wan)"), errors("transports: { udp: { wan: { bind_addr: \"0.0.0.0:2121\" } } }\n"
                + peer.formatted("lan")));
        assertEquals(List.of("peers[0].addresses[0].transport: only udp can name an instance (udp/<instance>), got "
                + "\"tcp/x\""), errors(peer.replace("udp/%s", "tcp/x")));
    }

    @Test
    void keysNoReferenceKnowsAreErrorsWithAHint() {
        assertEquals(List.of("node.rendezvous.nostr.advert_relay: unknown key (did you mean advert_relays?)"),
                errors("node: { rendezvous: { nostr: { advert_relay: [] } } }"));
        assertEquals(List.of("node.lookup.tll: unknown key (did you mean ttl?)"),
                errors("node: { lookup: { tll: 3 } }"));
        assertEquals(List.of("node.drain_timeout: unknown key (did you mean drain_timeout_secs?)"),
                errors("node: { drain_timeout: 3 }"));
        assertEquals(List.of("transports.tcp.bind_adress: unknown key (did you mean bind_addr?)"),
                errors("transports: { tcp: { bind_addr: \"0.0.0.0:1\", bind_adress: x } }"));
        assertEquals(List.of("node.native_api.max_flow: unknown key (did you mean max_flows?)"),
                errors("node: { native_api: { max_flow: 3 } }"));
        final List<String> wrongType = errors("node: { native_api: { enabled: yes please } }");
        assertEquals(1, wrongType.size(), wrongType.toString());
        assertTrue(wrongType.get(0).startsWith("node.native_api.enabled: expected true or false"), wrongType.get(0));
    }

    @Test
    void noMessageShowsAJavaExceptionClassName() throws Exception {
        final List<String> bad = List.of("node: [", "node: { a: !!custom.Tag {} }", "a: !!binary AAAA",
                "node: { tick_interval_secs: 2026-01-01 }", "\tnode: 1", "node: { base_rtt_ms: 1e999999 }",
                "node: { limits: !!set { a, b } }", "peers: [ { npub: [1] } ]", "x: &a [*a]");
        for (final String yaml : bad) {
            final ConfigException e = assertThrows(ConfigException.class, () -> load(yaml), yaml);
            for (final String p : e.problems()) {
                assertFalse(p.matches("(?s).*(Exception|Error:|java\\.|org\\.yaml).*"), yaml + " -> " + p);
            }
        }
        final ConfigException missing = assertThrows(ConfigException.class,
                () -> new ConfigSources(ConfigTestSupport.host(root, Map.of())).load(
                        Optional.of(root.resolve("nope.yaml"))));
        assertEquals(List.of("cannot read file: no such file"), missing.problems());
        assertNotNull(missing.source());
    }
}
