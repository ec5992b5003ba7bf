package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Strict parsing: samples, unknown keys, types, ranges, warnings and cross-field checks. */
class ConfigLoaderTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void minimalFirstNodeConfigFromSpec() throws ConfigException {
        final String yaml = """
                node:
                  identity: { persistent: true }
                tun: { enabled: true, name: fips0, mtu: 1280 }
                dns: { enabled: true, port: 5354 }          # bind ::1 by default
                transports:
                  udp: { bind_addr: "0.0.0.0:2121" }
                peers:
                  - npub: "npub1qmc3cvfz0yu2hx96nq3gp55zdan2qclealn7xshgr448d3nh6lks7zel98"   # test-us01
                    alias: test-us01
                    addresses: [ { transport: udp, addr: "test-us01.fips.network:2121" } ]
                """;
        final LoadedConfig loaded = load(yaml);
        final FipsConfig c = loaded.config();
        assertTrue(c.node().identity().persistent());
        assertEquals(new TunConfig(true, "fips0", 1280), c.tun());
        assertEquals(new DnsConfig(true, "::1", 5354, 300), c.dns());
        assertEquals(List.of(UdpConfig.DEFAULTS), c.udp());
        final PeerConfig p = c.peers().get(0);
        assertEquals(ConfigTestSupport.TEST_US01, p.npub());
        assertEquals(ConfigTestSupport.TEST_US01, p.identity().npub());
        assertEquals(Optional.of("test-us01"), p.alias());
        assertEquals(List.of(new PeerConfig.Address("udp", "test-us01.fips.network:2121", 100)), p.addresses());
        // tun and dns are implemented: the spec's minimal config loads without a warning.
        assertEquals(List.of(), loaded.warnings());
    }

    @Test
    void largerConfigParsesEveryImplementedKey() throws ConfigException {
        final String nsec = ConfigTestSupport.identity(7).nsec();
        final String yaml = """
                node:
                  identity: { nsec: "%s", persistent: false }
                  leaf_only: true
                  log_level: DEBUG
                  tick_interval_secs: 2
                  base_rtt_ms: 150
                  heartbeat_interval_secs: 5
                  link_dead_timeout_secs: 20
                  limits: { max_connections: 10, max_peers: 11, max_links: 12, max_pending_inbound: 13 }
                  rate_limit: { handshake_burst: 7, handshake_rate: 2, handshake_timeout_secs: 9,
                                handshake_resend_interval_ms: 500, handshake_resend_backoff: 1.5,
                                handshake_max_resends: 3 }
                  retry: { max_retries: 2, base_interval_secs: 3, max_backoff_secs: 60 }
                  cache: { coord_size: 100, coord_ttl_secs: 60, identity_size: 200 }
                  discovery:
                    ttl: 32
                    attempt_timeouts_secs: [1, 3]
                    recent_expiry_secs: 5
                    backoff_base_secs: 1
                    backoff_max_secs: 8
                    forward_min_interval_secs: 4
                    nostr: { enabled: false, policy: open, advert_relays: ["wss://r.example"] }
                    lan: { enabled: false, scope: home }
                  tree: { announce_min_interval_ms: 250, parent_hysteresis: 0.3, hold_down_secs: 10,
                          reeval_interval_secs: 0, flap_threshold: 2, flap_window_secs: 30, flap_dampening_secs: 90 }
                  bloom: { update_debounce_ms: 100, max_inbound_fpr: 0.5 }
                  session: { default_ttl: 32, pending_packets_per_dest: 8, pending_max_destinations: 64,
                             idle_timeout_secs: 45, coords_warmup_packets: 3, coords_response_interval_ms: 1000 }
                  mmp: { mode: lightweight, log_interval_secs: 60, owd_window_size: 16 }
                  session_mmp: { mode: minimal }
                  ecn: { enabled: false, loss_threshold: 0.1, etx_threshold: 2.5 }
                  rekey: { enabled: true, after_secs: 600, after_messages: 1000000 }
                  buffers: { packet_channel: 2048, tun_channel: 512, dns_channel: 32 }
                  control: { enabled: true, socket_path: "/run/fips/control.sock" }
                tun: { enabled: false }
                dns: { enabled: false, bind_addr: "::", port: 53, ttl: 60 }
                transports:
                  udp:
                    main: { bind_addr: "[::]:2121", mtu: 1472, recv_buf_size: 4194304, send_buf_size: 1048576 }
                    out: { outbound_only: true, accept_connections: false, external_addr: "203.0.113.7" }
                peers:
                  - npub: "%s"
                    alias: peer-a
                    addresses:
                      - { transport: udp, addr: "[2001:db8::1]:2121", priority: 10 }
                      - { transport: udp, addr: "peer-a.example.org:2121" }
                    connect_policy: auto_connect
                    auto_reconnect: false
                """.formatted(nsec, ConfigTestSupport.npub(8));
        final LoadedConfig loaded = load(yaml);
        // Every key this node parses but does not act on warns once, in the order of the table's readers.
        final String v041 = ": accepted but not implemented (a reference v0.4.1 key); ignored";
        assertEquals(Stream.of("node.limits.max_links",
                "node.mmp.log_interval_secs", "node.mmp.owd_window_size", "node.ecn.enabled",
                "node.ecn.loss_threshold", "node.ecn.etx_threshold", "node.buffers.tun_channel",
                "node.buffers.dns_channel", "node.base_rtt_ms",
                "transports.udp.out.accept_connections")
                .map(k -> k + v041).toList(), loaded.warnings());
        final NodeConfig n = loaded.config().node();
        assertEquals(Optional.of(nsec), n.identity().nsec());
        assertFalse(n.identity().toString().contains(nsec), "toString must not leak the secret");
        assertTrue(n.leafOnly());
        assertEquals(NodeConfig.LogLevel.DEBUG, n.effectiveLogLevel());
        assertEquals(2, n.tickIntervalSecs());
        assertEquals(150, n.baseRttMs());
        assertEquals(5, n.heartbeatIntervalSecs());
        assertEquals(20, n.linkDeadTimeoutSecs());
        assertEquals(new NodeConfig.Limits(10, 11, 12, 13), n.limits());
        assertEquals(new NodeConfig.RateLimit(7, 2.0, 9, 500, 1.5, 3), n.rateLimit());
        assertEquals(new NodeConfig.Retry(2, 3, 60), n.retry());
        assertEquals(new NodeConfig.Cache(100, 60, 200), n.cache());
        assertEquals(new NodeConfig.Lookup(32, List.of(1L, 3L), 5, 1, 8, 4), n.lookup());
        assertEquals(new NodeConfig.Tree(250, 0.3, 10, 0, 2, 30, 90), n.tree());
        assertEquals(new NodeConfig.Bloom(100, 0.5), n.bloom());
        assertEquals(new NodeConfig.Session(32, 8, 64, 45, 3, 1000), n.session());
        assertEquals(new NodeConfig.Mmp(NodeConfig.MmpMode.LIGHTWEIGHT, 60, 16), n.mmp());
        assertEquals(new NodeConfig.Mmp(NodeConfig.MmpMode.MINIMAL, 30, 32), n.sessionMmp());
        assertEquals(new NodeConfig.Ecn(false, 0.1, 2.5), n.ecn());
        assertEquals(new NodeConfig.Rekey(true, 600, 1_000_000), n.rekey());
        assertEquals(new NodeConfig.Buffers(2048, 512, 32), n.buffers());
        assertEquals(new NodeConfig.Control(true, "/run/fips/control.sock"), n.control());
        assertEquals(new DnsConfig(false, "::", 53, 60), loaded.config().dns());

        final List<UdpConfig> udp = loaded.config().udp();
        assertEquals(2, udp.size());
        assertEquals(new UdpConfig(Optional.of("main"), "[::]:2121", 1472, 4_194_304, 1_048_576, false, false,
                Optional.empty(), false, true), udp.get(0));
        final UdpConfig out = udp.get(1);
        assertEquals("out", out.displayName());
        assertTrue(out.outboundOnly());
        assertEquals("0.0.0.0:0", out.effectiveBindAddr());
        assertFalse(out.acceptConnections());
        assertEquals(Optional.of("203.0.113.7"), out.externalAddr());

        final PeerConfig p = loaded.config().peers().get(0);
        assertFalse(p.autoReconnect());
        assertEquals(List.of(new PeerConfig.Address("udp", "[2001:db8::1]:2121", 10),
                new PeerConfig.Address("udp", "peer-a.example.org:2121", 100)), p.addressesByPriority());
    }

    @Test
    void unknownKeysAtEveryDepthNameTheirPath() {
        final List<String> e = errors("""
                nodes: {}
                node:
                  heartbeat_interval: 5
                  rekey: { after_sec: 5 }
                  discovery: { nostr: { enabeld: true } }
                transports:
                  udp: { bind_adress: "0.0.0.0:2121" }
                  quic: {}
                peers:
                  - npub: %s
                    addresses: [ { transport: udp, addr: "1.2.3.4:1", prio: 1 } ]
                    colour: blue
                """.formatted(ConfigTestSupport.TEST_US01));
        assertTrue(e.contains("nodes: unknown key (did you mean node?)"), e.toString());
        assertTrue(e.contains("node.heartbeat_interval: unknown key (did you mean heartbeat_interval_secs?)"),
                e.toString());
        assertTrue(e.contains("node.rekey.after_sec: unknown key (did you mean after_secs?)"), e.toString());
        assertTrue(e.contains("node.discovery.nostr.enabeld: unknown key (did you mean enabled?)"), e.toString());
        assertTrue(e.contains("transports.udp.bind_adress: unknown key (did you mean bind_addr?)"), e.toString());
        assertTrue(e.contains("transports.quic: unknown key"), e.toString());
        assertTrue(e.contains("peers[0].addresses[0].prio: unknown key (did you mean priority?)"), e.toString());
        assertTrue(e.contains("peers[0].colour: unknown key"), e.toString());
        assertEquals(8, e.size(), e.toString());
    }

    @Test
    void unknownKeysInUnsupportedSectionsAreErrorsToo() {
        final List<String> e = errors("""
                tun: { enabled: false, nmae: x }
                gateway: { enabled: false, pool: "fd01::/112", lan_interface: eth0, dns: { listne: x } }
                transports:
                  tcp: { bind_addr: "0.0.0.0:8443", nodelay: true, keepalive: 3 }
                  tor: { mode: directory, directory_service: { hostname: x } }
                """);
        assertTrue(e.contains("tun.nmae: unknown key (did you mean name?)"), e.toString());
        assertTrue(e.contains("gateway.dns.listne: unknown key (did you mean listen?)"), e.toString());
        assertTrue(e.contains("transports.tcp.keepalive: unknown key (did you mean keepalive_secs?)"), e.toString());
        assertTrue(e.contains("transports.tor.directory_service.hostname: unknown key (did you mean hostname_file?)"),
                e.toString());
        assertEquals(4, e.size(), e.toString());
    }

    @Test
    void wrongTypesAndRangesNameExpectedAndActual() {
        final List<String> e = errors("""
                node:
                  identity: { persistent: "yes" }
                  tick_interval_secs: 0
                  heartbeat_interval_secs: -1
                  limits: "lots"
                  bloom: { max_inbound_fpr: 1.0 }
                  mmp: { mode: fast }
                  session: { default_ttl: 300 }
                  ecn: { loss_threshold: abc }
                tun: { mtu: 99999 }
                transports:
                  udp: { mtu: 1280.5, bind_addr: "example.com:2121", recv_buf_size: 18446744073709551616 }
                peers: {}
                """);
        assertTrue(e.contains("node.identity.persistent: expected true or false, got string \"yes\""), e.toString());
        assertTrue(e.contains("node.tick_interval_secs: expected an integer in [1, 9223372036854775807], got 0"),
                e.toString());
        assertTrue(e.contains(
                "node.heartbeat_interval_secs: expected an integer in [0, 9223372036854775807], got -1"), e.toString());
        assertTrue(e.contains("node.limits: expected a mapping, got string \"lots\""), e.toString());
        assertTrue(e.contains("node.bloom.max_inbound_fpr: expected a number in (0, 1), got 1.0"), e.toString());
        assertTrue(e.contains("node.mmp.mode: expected one of full, lightweight, minimal, got string \"fast\""),
                e.toString());
        assertTrue(e.contains("node.session.default_ttl: expected an integer in [0, 255], got 300"), e.toString());
        assertTrue(e.contains("node.ecn.loss_threshold: expected a number in [0.0, 1.0], got string \"abc\""),
                e.toString());
        assertTrue(e.contains("tun.mtu: expected an integer in [1280, 65535], got 99999"), e.toString());
        assertTrue(e.contains("transports.udp.mtu: expected an integer in [1, 65535], got number 1280.5"),
                e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.udp.bind_addr: expected an IP address")),
                e.toString());
        assertTrue(e.contains("transports.udp.recv_buf_size: expected an integer in [1, 2147483647], got "
                + "18446744073709551616"), e.toString());
        assertTrue(e.contains("peers: expected a list, got a mapping"), e.toString());
    }

    @Test
    void yaml11BooleansAreNotBooleans() {
        // serde_yaml (YAML 1.2) reads "on" as a string, so the reference rejects it for a bool; so do we.
        assertTrue(errors("tun: { enabled: on }").contains("tun.enabled: expected true or false, got string \"on\""));
    }

    @Test
    void peerErrors() {
        final List<String> e = errors("""
                peers:
                  - alias: nokey
                    addresses: [ { transport: udp, addr: "1.2.3.4:1" } ]
                  - npub: "%s"
                    addresses: [ { transport: udp, addr: "1.2.3.4:1" } ]
                  - npub: "%s"
                  - npub: "%s"
                    addresses: [ { transport: carrier-pigeon, addr: x }, { transport: udp, addr: "no-port" },
                                 { addr: "1.2.3.4:5" } ]
                """.formatted(ConfigTestSupport.identity(3).toPeer().npub().replace('q', 'p'),
                ConfigTestSupport.npub(4), ConfigTestSupport.npub(5)));
        assertTrue(e.contains("peers[0].npub: required key is missing"), e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("peers[1].npub: expected a bech32 npub1...")), e.toString());
        assertTrue(e.contains("peers[2].addresses: a peer needs at least one address (or via_nostr: true)"),
                e.toString());
        assertTrue(e.contains("peers[3].addresses[0].transport: expected one of ble, ethernet, nym, tcp, tor, udp "
                + "(or udp/<instance>), got \"carrier-pigeon\""), e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("peers[3].addresses[1].addr: expected host:port")),
                e.toString());
        assertTrue(e.contains("peers[3].addresses[2].transport: required key is missing"), e.toString());
    }

    @Test
    void hexNpubIsRejectedForPeers() {
        final String hex = HexFormat.of().formatHex(ConfigTestSupport.identity(9).publicKey());
        final List<String> e = errors("peers: [ { npub: \"" + hex + "\", addresses: [{transport: udp, addr: "
                + "\"1.1.1.1:1\"}] } ]");
        assertTrue(e.get(0).startsWith("peers[0].npub: expected a bech32 npub1... public key (hex is not accepted"),
                e.toString());
    }

    @Test
    void badNsecIsReportedWithoutEchoingIt() {
        final List<String> e = errors("node: { identity: { nsec: \"nsec1notreallyasecretkeyatall\" } }");
        assertEquals(1, e.size());
        assertTrue(e.get(0).startsWith("node.identity.nsec: expected an nsec1... or 64 hex digit secret key"));
        assertFalse(e.get(0).contains("notreally"));
    }

    @Test
    void unsupportedFeaturesAreWarningsOncePerKey() throws ConfigException {
        final LoadedConfig c = load("""
                node: { discovery: { nostr: { enabled: true }, lan: { enabled: true } } }
                transports:
                  udp: { advertise_on_nostr: true, public: true }
                  tcp: { bind_addr: "0.0.0.0:8443" }
                  ethernet: { eth0: { interface: eth0 }, eth1: { interface: eth1, announce: true } }
                gateway: { enabled: true, pool: "fd01::/112", lan_interface: eth0,
                           port_forwards: [ { listen_port: 80, proto: tcp, target: "[fd00::1]:80" } ] }
                peers:
                  - npub: %s
                    via_nostr: true
                    connect_policy: manual
                    addresses: [ { transport: tcp, addr: "1.2.3.4:8443" }, { transport: udp, addr: nat } ]
                """.formatted(ConfigTestSupport.TEST_US01));
        // node.discovery.nostr and .lan, advertise_on_nostr, public, via_nostr and udp "nat" all act now: no key
        // warns.
        final List<String> expected = new ArrayList<>();
        // Values (not keys) this node cannot use are told apart:
        expected.add("peers[0].connect_policy: not implemented by the reference either; the peer is simply not"
                + " dialled");
        assertEquals(new TreeSet<>(expected), new TreeSet<>(c.warnings()));
        assertEquals(expected.size(), c.warnings().size(), "one warning per key: " + c.warnings());
        assertEquals(1, c.config().udp().size());
        assertEquals(1, c.config().tcp().size());
        assertEquals(Optional.of("0.0.0.0:8443"), c.config().tcp().getFirst().bindAddr());
    }

    @Test
    void tcpTransportSingleAndNamedInstances() throws ConfigException {
        final LoadedConfig one = load("""
                transports:
                  tcp: { bind_addr: "[::]:8443", mtu: 1300, connect_timeout_ms: 2000, nodelay: false,
                         keepalive_secs: 0, recv_buf_size: 65536, send_buf_size: 131072,
                         max_inbound_connections: 8 }
                """);
        final TcpConfig t = one.config().tcp().getFirst();
        assertEquals(Optional.empty(), t.name());
        assertEquals(Optional.of("[::]:8443"), t.bindAddr());
        assertEquals(1300, t.mtu());
        assertEquals(2000, t.connectTimeoutMs());
        assertEquals(false, t.nodelay());
        assertEquals(0, t.keepaliveSecs());
        assertEquals(65536, t.recvBufSize());
        assertEquals(131072, t.sendBufSize());
        assertEquals(OptionalInt.of(8), t.maxInboundConnections());
        assertEquals(List.of(), one.warnings());

        final LoadedConfig named = load("""
                transports:
                  tcp:
                    lan: { bind_addr: "10.0.0.1:8443" }
                    out: { mtu: 1400 }
                """);
        assertEquals(2, named.config().tcp().size());
        assertEquals(Optional.of("lan"), named.config().tcp().get(0).name());
        assertEquals(Optional.empty(), named.config().tcp().get(1).bindAddr(), "outbound only");
        assertEquals(TcpConfig.DEFAULT_CONNECT_TIMEOUT_MS, named.config().tcp().get(1).connectTimeoutMs());

        assertTrue(errors("transports: { tcp: { bind_addr: \"nowhere\" } }").stream()
                .anyMatch(e -> e.startsWith("transports.tcp.bind_addr: expected an IP address with port")));
        assertTrue(errors("transports: { tcp: { mtu: 576 } }").stream()
                .anyMatch(e -> e.startsWith("transports.tcp.mtu: must be at least 1280")));
    }

    @Test
    void unimplementedSectionsWarnEvenWhenDisabledButImplementedOnesAreSilent() throws ConfigException {
        final LoadedConfig c = load("""
                node: { discovery: { nostr: { enabled: false } }, ecn: { enabled: false }, leaf_only: false,
                        retry: { max_retries: 1 } }
                gateway: { enabled: false, pool: "fd01::/112", lan_interface: eth0 }
                """);
        final String v041 = ": accepted but not implemented (a reference v0.4.1 key); ignored";
        // gateway.* is fips-gateway's (GatewayConfig) and node.discovery.nostr runs: both silent; node.ecn warns
        assertEquals(List.of("node.ecn.enabled" + v041), c.warnings());
        assertEquals(List.of(), load("node: { leaf_only: false, retry: { max_retries: 1 } }").warnings());
    }

    @Test
    void referenceCrossFieldChecks() {
        assertTrue(errors("transports: { udp: { advertise_on_nostr: true } }").contains(
                "transports: a transport sets advertise_on_nostr: true but node.discovery.nostr.enabled is false"));
        assertTrue(errors("transports: { tcp: { advertise_on_nostr: true } }").contains(
                "transports: a transport sets advertise_on_nostr: true but node.discovery.nostr.enabled is false"));
        assertTrue(errors("peers: [ { npub: " + ConfigTestSupport.TEST_US01 + ", via_nostr: true } ]").contains(
                "peers[0].via_nostr: true requires node.discovery.nostr.enabled: true"));
        final List<String> loop = errors("""
                transports: { udp: { bind_addr: "127.0.0.1:2121" } }
                peers: [ { npub: %s, addresses: [ { transport: udp, addr: "198.51.100.1:2121" } ] } ]
                """.formatted(ConfigTestSupport.TEST_US01));
        assertTrue(loop.get(0).startsWith("transports.udp.bind_addr: is loopback (127.0.0.1:2121)"), loop.toString());
        final List<String> nat = errors("""
                node: { discovery: { nostr: { enabled: true, dm_relays: [], stun_servers: [] } } }
                transports: { udp: { advertise_on_nostr: true } }
                """);
        assertTrue(nat.contains("node.discovery.nostr.dm_relays: must not be empty when a UDP transport advertises"
                + " as NAT"), nat.toString());
        assertTrue(nat.contains("node.discovery.nostr.stun_servers: must not be empty when a UDP transport advertises"
                + " as NAT"), nat.toString());
    }

    @Test
    void loopbackBindIsFineWithLoopbackPeersOrOutboundOnly() throws ConfigException {
        load("""
                transports: { udp: { bind_addr: "127.0.0.1:2121" } }
                peers: [ { npub: %s, addresses: [ { transport: udp, addr: "127.0.0.1:2122" } ] } ]
                """.formatted(ConfigTestSupport.TEST_US01));
        load("""
                transports: { udp: { bind_addr: "127.0.0.1:2121", outbound_only: true } }
                peers: [ { npub: %s, addresses: [ { transport: udp, addr: "198.51.100.1:2121" } ] } ]
                """.formatted(ConfigTestSupport.TEST_US01));
    }

    @Test
    void malformedYamlAndDuplicatesAreConfigExceptions() {
        final List<String> dup = errors("node: {}\nnode: {}\n");
        assertTrue(dup.get(0).startsWith("malformed YAML"), dup.toString());
        assertTrue(errors("node: [\n").get(0).startsWith("malformed YAML at line"));
        assertEquals(List.of("(top level): expected a mapping, got a list"), errors("- a\n- b\n"));
        assertTrue(errors("node: !!java.io.File {}\n").get(0).startsWith("malformed YAML"));
        assertTrue(errors("a: &a [x]\nb: *a\n").contains("a: unknown key"));
    }

    @Test
    void namedInstanceValuesMustBeBlocks() {
        final List<String> e = errors("transports: { udp: { main: 5 } }");
        assertTrue(e.contains("transports.udp.main: unknown key"), e.toString());
    }

    /** Found by ConfigJazzerTest (input crash-5b369c65... committed): a null key leaked a NullPointerException. */
    @Test
    void transportKeysThatAreNotStringsAreRefusedByName() {
        for (final String type : List.of("udp", "tcp", "ethernet", "tor", "nym", "ble")) {
            for (final String key : List.of("&a", "~", "5")) {
                final List<String> e = errors("transports: { " + type + ": { " + key + ": { mtu: 1400 } } }");
                assertTrue(e.stream().anyMatch(p -> p.startsWith("transports." + type + ": keys must be strings")),
                        type + " " + key + ": " + e);
            }
        }
    }

    @Test
    void nullSectionsMeanDefaults() throws ConfigException {
        final FipsConfig c = load("node:\ntun:\ntransports:\n  udp:\n").config();
        assertEquals(TunConfig.DEFAULTS, c.tun());
        assertEquals(List.of(UdpConfig.DEFAULTS), c.udp());
    }

    @Test
    void exceptionMessageHasOneLinePerProblem() {
        final ConfigException e = assertThrows(ConfigException.class, () -> load("tun: { mtu: x, nmae: y }"));
        assertEquals("test.yaml", e.source());
        assertEquals(2, e.problems().size());
        assertEquals("invalid configuration in test.yaml:\n  " + e.problems().get(0) + "\n  " + e.problems().get(1),
                e.getMessage());
    }
}
