package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gateway.*} (operator.md §1.19, discovery-gateway.md §4.7): the reference's defaults, its load-time
 * rejection of non-IPv6 port-forward targets, and its start-up checks ({@link GatewayConfig#validate}).
 */
class GatewayConfigTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private GatewayConfig gateway(final String yaml) throws ConfigException {
        return load(yaml).gateway().orElseThrow();
    }

    @Test
    void absentBlockIsEmpty() throws ConfigException {
        assertEquals(Optional.empty(), load("").gateway());
        assertEquals(Optional.empty(), load("gateway: {}").gateway());
    }

    @Test
    void defaultsAreTheReferences() throws ConfigException {
        final GatewayConfig g = gateway("gateway: { pool: \"fd01::/112\", lan_interface: eth0 }");
        assertEquals(false, g.enabled());
        assertEquals("fd01::/112", g.pool());
        assertEquals("eth0", g.lanInterface());
        assertEquals(60, g.poolGracePeriod());
        assertEquals("[::1]:5353", g.dnsListen());
        assertEquals("[::1]:5354", g.dnsUpstream());
        assertEquals(60, g.dnsTtl());
        assertEquals(new GatewayConfig.Conntrack(432_000, 30, 180, 30), g.conntrack());
        assertEquals(List.of(), g.portForwards());
        assertEquals(new InetSocketAddress("::1", 5353), g.dnsListenAddress());
        assertEquals(new InetSocketAddress("::1", 5354), g.dnsUpstreamAddress());
    }

    @Test
    void customValuesAndPortForwards() throws ConfigException {
        final GatewayConfig g = gateway("""
                gateway:
                  enabled: true
                  pool: "fd01::/120"
                  lan_interface: br-lan
                  pool_grace_period: 5
                  dns: { listen: "[::]:53", upstream: "127.0.0.1:5354", ttl: 2147483647 }
                  conntrack: { tcp_established: 1, udp_timeout: 2, udp_assured: 3, icmp_timeout: 4 }
                  port_forwards:
                    - { listen_port: 8080, proto: tcp, target: "[fd02::20]:80" }
                    - { listen_port: 8080, proto: udp, target: "[2001:db8::1]:53" }
                """);
        assertEquals(true, g.enabled());
        assertEquals(5, g.poolGracePeriod());
        assertEquals(2_147_483_647L, g.dnsTtl());
        assertEquals(new GatewayConfig.Conntrack(1, 2, 3, 4), g.conntrack());
        assertEquals(List.of(
                new GatewayConfig.PortForward(8080, GatewayConfig.Proto.TCP, new InetSocketAddress("fd02::20", 80)),
                new GatewayConfig.PortForward(8080, GatewayConfig.Proto.UDP,
                        new InetSocketAddress("2001:db8::1", 53))), g.portForwards());
        g.validate("test.yaml"); // same port, different proto: allowed
        assertEquals(new InetSocketAddress("127.0.0.1", 5354), g.dnsUpstreamAddress());
        assertEquals(List.of(), load("gateway: { pool: \"fd01::/112\", lan_interface: eth0, dns: { ttl: 5 } }")
                .warnings());
    }

    @Test
    void anIpv4OrMalformedTargetIsRejectedAtLoad() {
        for (final String target : List.of("192.0.2.1:80", "[fd02::20]", "fd02::20:80", "[nope]:80", "x")) {
            final ConfigException e = assertThrows(ConfigException.class, () -> load("""
                    gateway:
                      pool: "fd01::/112"
                      lan_interface: eth0
                      port_forwards: [ { listen_port: 80, proto: tcp, target: "%s" } ]
                    """.formatted(target)));
            assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("gateway.port_forwards[0].target:")
                    && p.contains("IPv6")), target + ": " + e.problems());
        }
    }

    @Test
    void badProtoAndMissingFieldsNameTheirPath() {
        final ConfigException e = assertThrows(ConfigException.class, () -> load("""
                gateway:
                  pool: "fd01::/112"
                  lan_interface: eth0
                  port_forwards: [ { listen_port: 80, proto: sctp, target: "[fd02::1]:80" }, { proto: udp,
                                   target: "[fd02::1]:80" } ]
                """));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("gateway.port_forwards[0].proto:")),
                e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("gateway.port_forwards[1].listen_port:")),
                e.problems().toString());
    }

    @Test
    void startUpChecksNameEachProblem() throws ConfigException {
        final GatewayConfig g = gateway("""
                gateway:
                  pool: "fd01::/112"
                  lan_interface: eth0
                  dns: { listen: "localhost:53", upstream: "[::1]" }
                  port_forwards:
                    - { listen_port: 0, proto: tcp, target: "[fd02::20]:80" }
                    - { listen_port: 81, proto: tcp, target: "[fd02::20]:80" }
                    - { listen_port: 81, proto: tcp, target: "[fd02::21]:80" }
                """);
        final ConfigException e = assertThrows(ConfigException.class, () -> g.validate("test.yaml"));
        assertEquals(List.of("gateway.enabled: must be true for fips-gateway to start",
                "gateway.dns.listen: expected an IP socket address such as [::1]:5353, got \"localhost:53\"",
                "gateway.dns.upstream: expected an IP socket address such as [::1]:5353, got \"[::1]\"",
                "gateway.port_forwards[0].listen_port: must be non-zero",
                "gateway.port_forwards[2]: duplicate (tcp 81); each (listen_port, proto) must be unique"),
                e.problems());
    }

    @Test
    void requiredKeysAreRequired() {
        final ConfigException e = assertThrows(ConfigException.class, () -> load("gateway: { enabled: true }"));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("gateway.pool:")), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("gateway.lan_interface:")),
                e.problems().toString());
    }
}
