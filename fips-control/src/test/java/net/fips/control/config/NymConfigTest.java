package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transports.nym} (operator.md §1.16, transports.md §6.7): the reference's defaults, every key, named
 * instances, what the reference's start refuses (a {@code socks5_addr} that is not {@code host:port}), our
 * transport's bounds, unknown keys, and {@code nym} peer addresses; none of it warns as not implemented.
 */
class NymConfigTest {
    private static final String PEER = "peers: [ { npub: " + ConfigTestSupport.TEST_US01
            + ", addresses: [ { transport: nym, addr: \"%s\" } ] } ]";

    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void anEmptyBlockHasTheReferenceDefaultsAndNoWarning() throws ConfigException {
        final LoadedConfig l = load("transports: { nym: {} }");
        assertEquals(List.of(NymConfig.DEFAULTS), l.config().nym());
        assertEquals(List.of(), l.warnings());
        final NymConfig d = NymConfig.DEFAULTS;
        assertEquals("127.0.0.1:1080", d.socks5Addr());
        assertEquals(300_000, d.connectTimeoutMs());
        assertEquals(1400, d.mtu());
        assertEquals(120, d.startupTimeoutSecs());
        assertEquals(List.of(), load("transports: { udp: {} }").config().nym());
    }

    @Test
    void everyKeyAndNamedInstancesParse() throws ConfigException {
        final LoadedConfig l = load("""
                transports:
                  nym:
                    a: { socks5_addr: "nym.internal:1081", connect_timeout_ms: 60000, mtu: 1300,
                         startup_timeout_secs: 0 }
                    b: { socks5_addr: "[::1]:1080" }
                """);
        assertEquals(List.of(new NymConfig(Optional.of("a"), "nym.internal:1081", 60_000, 1300, 0),
                new NymConfig(Optional.of("b"), "[::1]:1080", 300_000, 1400, 120)), l.config().nym());
        assertEquals(List.of(), l.warnings());
    }

    @Test
    void badValuesAreErrorsNamingTheKey() {
        assertTrue(errors("transports: { nym: { socks5_addr: \"127.0.0.1\" } }").stream()
                .anyMatch(e -> e.startsWith("transports.nym.socks5_addr: expected host:port")), "no port");
        assertTrue(errors("transports: { nym: { socks5_addr: \"127.0.0.1:abc\" } }").stream()
                .anyMatch(e -> e.startsWith("transports.nym.socks5_addr:")), "port not a number");
        assertTrue(errors("transports: { nym: { x: { mtu: 1000 } } }").stream()
                .anyMatch(e -> e.startsWith("transports.nym.x.mtu: must be at least 1280")));
        assertTrue(errors("transports: { nym: { connect_timeout_ms: 0 } }").stream()
                .anyMatch(e -> e.startsWith("transports.nym.connect_timeout_ms: must be positive")));
        assertTrue(errors("transports: { nym: { mtu: 70000 } }").stream()
                .anyMatch(e -> e.startsWith("transports.nym.mtu:")), "u16");
        assertTrue(errors("transports: { nym: { bind_addr: \"0.0.0.0:1\" } }").stream()
                .anyMatch(e -> e.contains("bind_addr")), "outbound only: no such key");
    }

    @Test
    void nymPeerAddressesTakeAnyHostButNeedAPort() throws ConfigException {
        final LoadedConfig ok = load("transports: { nym: {} }\n" + PEER.formatted("peer:8443"));
        assertEquals("peer:8443", ok.config().peers().getFirst().addresses().getFirst().addr());
        assertEquals(List.of(), ok.warnings());
        load("transports: { nym: {} }\n" + PEER.formatted("192.0.2.7:8443"));
        assertTrue(errors("transports: { nym: {} }\n" + PEER.formatted("peer")).stream()
                .anyMatch(e -> e.startsWith("peers[0].addresses[0].addr:")));
        assertTrue(errors("transports: { nym: {} }\n" + PEER.formatted("peer:0")).stream()
                .anyMatch(e -> e.startsWith("peers[0].addresses[0].addr:")));
    }
}
