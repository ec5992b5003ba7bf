package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every default equals the reference v0.4.1 value (operator.md §1, crypto-link.md §5.11-§5.16, §8). */
class ConfigDefaultsTest {
    @TempDir
    Path root;

    private FipsConfig empty() throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load("", "test").config();
    }

    @Test
    void nodeGeneralDefaults() throws ConfigException {
        final NodeConfig n = empty().node();
        assertEquals(Optional.empty(), n.identity().nsec());
        assertFalse(n.identity().persistent());
        assertFalse(n.leafOnly());
        assertEquals(Optional.empty(), n.logLevel());
        assertEquals(NodeConfig.LogLevel.INFO, n.effectiveLogLevel());
        assertEquals(1, n.tickIntervalSecs());
        assertEquals(100, n.baseRttMs());
        assertEquals(10, n.heartbeatIntervalSecs());
        assertEquals(30, n.linkDeadTimeoutSecs());
    }

    @Test
    void limitsRateLimitRetryCacheDefaults() throws ConfigException {
        final NodeConfig n = empty().node();
        assertEquals(new NodeConfig.Limits(256, 128, 256, 1000), n.limits());
        assertEquals(new NodeConfig.RateLimit(100, 10.0, 30, 1000, 2.0, 5), n.rateLimit());
        assertEquals(new NodeConfig.Retry(5, 5, 300), n.retry());
        assertEquals(new NodeConfig.Cache(50_000, 300, 10_000), n.cache());
    }

    @Test
    void routingAndSessionDefaults() throws ConfigException {
        final NodeConfig n = empty().node();
        assertEquals(new NodeConfig.Lookup(64, List.of(1L, 2L, 4L, 8L), 10, 0, 0, 2), n.lookup());
        assertEquals(new NodeConfig.Tree(500, 0.2, 30, 60, 4, 60, 120), n.tree());
        assertEquals(new NodeConfig.Bloom(500, 0.20), n.bloom());
        assertEquals(new NodeConfig.Session(64, 16, 256, 90, 5, 2000), n.session());
        assertEquals(new NodeConfig.Mmp(NodeConfig.MmpMode.FULL, 30, 32), n.mmp());
        assertEquals(new NodeConfig.Mmp(NodeConfig.MmpMode.FULL, 30, 32), n.sessionMmp());
        assertEquals(new NodeConfig.Ecn(true, 0.05, 3.0), n.ecn());
        assertEquals(new NodeConfig.Rekey(true, 120, 65_536), n.rekey());
        assertEquals(new NodeConfig.Buffers(1024, 1024, 64), n.buffers());
    }

    @Test
    void tunDnsTransportsPeersDefaults() throws ConfigException {
        final FipsConfig c = empty();
        assertEquals(new TunConfig(false, "fips0", 1280), c.tun());
        assertEquals(new DnsConfig(true, "::1", 5354, 300), c.dns());
        // As in the reference, a file without transports has none.
        assertEquals(List.of(), c.udp());
        assertEquals(List.of(), c.peers());
    }

    @Test
    void udpDefaultsApplyToAnEmptyBlock() throws ConfigException {
        final FipsConfig c = new ConfigLoader(ConfigTestSupport.host(root, Map.of()))
                .load("transports:\n  udp: {}\n", "test").config();
        assertEquals(1, c.udp().size());
        final UdpConfig u = c.udp().get(0);
        assertEquals(UdpConfig.DEFAULTS, u);
        assertEquals("0.0.0.0:2121", u.bindAddr());
        assertEquals(1280, u.mtu());
        assertEquals(2 * 1024 * 1024, u.recvBufSize());
        assertEquals(2 * 1024 * 1024, u.sendBufSize());
        assertFalse(u.advertiseOnNostr());
        assertFalse(u.isPublic());
        assertEquals(Optional.empty(), u.externalAddr());
        assertFalse(u.outboundOnly());
        assertTrue(u.acceptConnections());
        assertEquals("udp", u.displayName());
    }

    @Test
    void peerDefaults() throws ConfigException {
        final FipsConfig c = new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(
                "peers:\n  - npub: " + ConfigTestSupport.TEST_US01
                        + "\n    addresses: [{transport: udp, addr: \"1.2.3.4:2121\"}]\n", "test").config();
        final PeerConfig p = c.peers().get(0);
        assertEquals(Optional.empty(), p.alias());
        assertEquals(PeerConfig.ConnectPolicy.AUTO_CONNECT, p.connectPolicy());
        assertTrue(p.autoReconnect());
        assertFalse(p.viaNostr());
        assertEquals(100, p.addresses().get(0).priority());
        assertEquals(List.of(p), c.autoConnectPeers());
    }

    @Test
    void controlSocketDefaultFollowsRunFipsThenXdgThenTmp() throws Exception {
        final Path xdg = Files.createDirectories(root.resolve("xdg"));
        final Map<String, String> env = Map.of("XDG_RUNTIME_DIR", "/xdg");
        final ConfigLoader loader = new ConfigLoader(ConfigTestSupport.host(root, env));

        assertEquals(xdg.resolve("fips/control.sock").toString(), loader.load("", "t").config().node().control()
                .socketPath());
        Files.createDirectories(root.resolve("run/fips"));
        assertEquals(root.resolve("run/fips/control.sock").toString(),
                loader.load("", "t").config().node().control().socketPath());
        assertTrue(loader.load("", "t").config().node().control().enabled());

        final Path bare = Files.createDirectories(root.resolve("bare"));
        final HostEnvironment noXdg = ConfigTestSupport.host(bare, Map.of("XDG_RUNTIME_DIR", "/gone"));
        assertEquals(bare.resolve("tmp/fips-control.sock"),
                ControlSocketPaths.resolveDefault(noXdg, ControlSocketPaths.CONTROL_SOCKET));
        assertEquals(bare.resolve("tmp/fips-gateway.sock"),
                ControlSocketPaths.resolveDefault(noXdg, ControlSocketPaths.GATEWAY_SOCKET));
    }

    @Test
    void explicitSocketPathWins() throws ConfigException {
        final FipsConfig c = new ConfigLoader(ConfigTestSupport.host(root, Map.of()))
                .load("node: {control: {enabled: false, socket_path: /srv/x.sock}}", "t").config();
        assertEquals(new NodeConfig.Control(false, "/srv/x.sock"), c.node().control());
    }

    @Test
    void embeddedDefaultIsEphemeralUdp2121WithAutoSocket() throws Exception {
        Files.createDirectories(root.resolve("run/fips"));
        final LoadedConfig d = new ConfigLoader(ConfigTestSupport.host(root, Map.of())).loadDefault();
        assertEquals(List.of(), d.warnings());
        assertEquals(List.of(UdpConfig.DEFAULTS), d.config().udp());
        assertEquals(NodeConfig.Identity.DEFAULTS, d.config().node().identity());
        assertEquals(root.resolve("run/fips/control.sock").toString(), d.config().node().control().socketPath());
        assertTrue(d.config().node().control().enabled());
        assertEquals(List.of(), d.config().peers());
        // And the real-host entry point parses the same resource.
        assertEquals(List.of(UdpConfig.DEFAULTS), FipsConfig.defaults().udp());
    }

    @Test
    void logLevelParsingMatchesReference() {
        assertEquals(NodeConfig.LogLevel.TRACE, NodeConfig.parseLogLevel("TRACE"));
        assertEquals(NodeConfig.LogLevel.DEBUG, NodeConfig.parseLogLevel("Debug"));
        assertEquals(NodeConfig.LogLevel.WARN, NodeConfig.parseLogLevel("warning"));
        assertEquals(NodeConfig.LogLevel.WARN, NodeConfig.parseLogLevel("WARN"));
        assertEquals(NodeConfig.LogLevel.ERROR, NodeConfig.parseLogLevel("error"));
        assertEquals(NodeConfig.LogLevel.INFO, NodeConfig.parseLogLevel("verbose"));
        assertEquals(NodeConfig.LogLevel.INFO, NodeConfig.parseLogLevel(""));
        assertEquals(NodeConfig.LogLevel.INFO, NodeConfig.parseLogLevel(null));
    }
}
