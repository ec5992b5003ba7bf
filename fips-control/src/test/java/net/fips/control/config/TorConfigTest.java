package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code transports.tor} (operator.md §1.15): defaults, every key, named instances, errors, peer addresses. */
class TorConfigTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void anEmptyBlockIsSocks5ModeWithTheReferenceDefaults() throws ConfigException {
        final LoadedConfig l = load("transports: { tor: {} }");
        assertEquals(List.of(TorConfig.DEFAULTS), l.config().tor());
        final TorConfig d = TorConfig.DEFAULTS;
        assertEquals("127.0.0.1:9050", d.socks5Addr());
        assertEquals(120_000, d.connectTimeoutMs());
        assertEquals(1400, d.mtu());
        assertEquals("/run/tor/control", d.effectiveControlAddr());
        assertEquals("/var/run/tor/control.authcookie", d.cookiePath());
        assertEquals(64, d.maxInboundConnections());
        assertEquals("/var/lib/tor/fips_onion_service/hostname", d.directoryService().hostnameFile());
        assertEquals("127.0.0.1:8443", d.directoryService().bindAddr());
        assertEquals(443, d.advertisedPort());
        assertFalse(d.usesControlPort());
        assertEquals(List.of(), load("transports: { udp: {} }").config().tor());
    }

    @Test
    void everyKeyParses() throws ConfigException {
        final TorConfig t = load("""
                node: { discovery: { nostr: { enabled: true } } }
                transports:
                  tor:
                    mode: directory
                    socks5_addr: "tor.internal:9150"
                    connect_timeout_ms: 30000
                    mtu: 1300
                    control_addr: "127.0.0.1:9051"
                    control_auth: "password:s3cret"
                    cookie_path: /tmp/cookie
                    max_inbound_connections: 8
                    advertise_on_nostr: true
                    advertised_port: 8443
                    directory_service: { hostname_file: /var/lib/tor/x/hostname, bind_addr: "127.0.0.1:9443" }
                """).config().tor().get(0);
        assertEquals(new TorConfig(Optional.empty(), TorConfig.Mode.DIRECTORY, "tor.internal:9150", 30_000, 1300,
                Optional.of("127.0.0.1:9051"), "password:s3cret", "/tmp/cookie", 8,
                new TorConfig.DirectoryService("/var/lib/tor/x/hostname", "127.0.0.1:9443"), true, 8443), t);
        assertTrue(t.usesControlPort());
    }

    @Test
    void namedInstancesAndControlPortUse() throws ConfigException {
        final List<TorConfig> t = load("""
                transports:
                  tor:
                    main: { mode: control_port, control_auth: "cookie:/run/tor/cookie" }
                    onion: { mode: directory }
                """).config().tor();
        assertEquals(2, t.size());
        assertEquals(Optional.of("main"), t.get(0).name());
        assertEquals("main", t.get(0).displayName());
        assertTrue(t.get(0).usesControlPort(), "control_port mode always authenticates");
        assertFalse(t.get(1).usesControlPort(), "directory mode monitors only with an explicit control_addr");
    }

    @Test
    void badValuesAreErrorsNamingTheKey() {
        final List<String> e = errors("""
                transports:
                  tor:
                    mode: onion
                    socks5_addr: "9050"
                    control_addr: "tor-control"
                    control_auth: "hmac:x"
                    connect_timeout_ms: 0
                    directory_service: { bind_addr: "localhost:8443", hostname: x }
                """);
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.mode: expected one of socks5, control_port,"
                + " directory")), e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.socks5_addr: expected host:port")),
                e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.control_addr: expected a Unix socket path")),
                e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.control_auth: expected cookie, cookie:/path"
                + " or password:secret")), e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.connect_timeout_ms:")), e.toString());
        assertTrue(e.stream().anyMatch(s -> s.startsWith("transports.tor.directory_service.bind_addr: expected an IP"
                + " address with port")), e.toString());
        assertTrue(e.contains("transports.tor.directory_service.hostname: unknown key (did you mean hostname_file?)"),
                e.toString());
        assertTrue(e.contains("transports.tor.directory_service: requires mode: directory, not socks5"), e.toString());
        assertTrue(errors("transports: { tor: { socks5: 1 } }").toString()
                .contains("transports.tor.socks5: unknown key"));
    }

    @Test
    void aDirectoryServiceInControlPortModeWarnsThatItIsIgnored() throws ConfigException {
        final List<String> w = load("transports: { tor: { mode: control_port, directory_service: {} } }").warnings();
        assertTrue(w.contains("transports.tor.directory_service: only directory mode uses it; ignored in control_port"
                + " mode"), w.toString());
    }

    @Test
    void torPeerAddressesMustBeAValidForm() throws ConfigException {
        final String peer = "peers: [ { npub: " + ConfigTestSupport.TEST_US01
                + ", addresses: [ { transport: tor, addr: ";
        load(peer + "\"" + "a".repeat(56) + ".onion:443\" } ] } ]");
        load(peer + "\"192.0.2.1:8443\" } ] } ]");
        load(peer + "\"peer.example.com:8443\" } ] } ]");
        final List<String> e = errors(peer + "\"localhost:8443\" } ] } ]");
        assertEquals(1, e.size(), e.toString());
        assertTrue(e.get(0).startsWith("peers[0].addresses[0].addr: host name must be fully qualified"), e.get(0));
        assertTrue(errors(peer + "\"x.onion:0\" } ] } ]").get(0).contains("invalid port"));
    }

    @Test
    void advertisingOnNostrNeedsNostrAsForTheOtherTransports() {
        assertTrue(errors("transports: { tor: { advertise_on_nostr: true } }").stream()
                .anyMatch(s -> s.contains("advertise_on_nostr: true but node.discovery.nostr.enabled is false")));
    }
}
