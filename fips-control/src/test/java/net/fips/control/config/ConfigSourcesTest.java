package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Search path, merge order, explicit files and environment variables (operator.md §1.1, §1.21). */
class ConfigSourcesTest {
    @TempDir
    Path root;

    private Path write(final String absolute, final String text) throws Exception {
        final Path p = root.resolve(absolute.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private ConfigSources sources(final Map<String, String> env) {
        return new ConfigSources(ConfigTestSupport.host(root, env));
    }

    @Test
    void searchPathOrder() {
        assertEquals(List.of(root.resolve("etc/fips/fips.yaml"), root.resolve("home/u/.config/fips/fips.yaml"),
                root.resolve("home/u/.fips.yaml"), root.resolve("work/fips.yaml")),
                sources(Map.of("HOME", "/home/u")).searchPaths());
        assertEquals(root.resolve("xdg/fips/fips.yaml"),
                sources(Map.of("HOME", "/home/u", "XDG_CONFIG_HOME", "/xdg")).searchPaths().get(1));
    }

    @Test
    void laterFilesOverrideEarlierOnesDeeply() throws Exception {
        final Path etc = write("/etc/fips/fips.yaml", """
                node: { rekey: { after_secs: 300, after_messages: 10 }, heartbeat_interval_secs: 4 }
                transports: { udp: { bind_addr: "0.0.0.0:2121", mtu: 1400 } }
                peers: [ { npub: %s, addresses: [ { transport: udp, addr: "1.1.1.1:1" } ] } ]
                """.formatted(ConfigTestSupport.npub(1)));
        final Path home = write("/home/u/.fips.yaml", """
                node: { rekey: { after_secs: 600 } }
                transports: { udp: { bind_addr: "0.0.0.0:3000" } }
                """);
        final Path cwd = write("/work/fips.yaml", "node:\n");
        final LoadedConfig c = sources(Map.of("HOME", "/home/u")).load(Optional.empty());
        assertEquals(List.of(etc, home, cwd), c.files());
        // A real deep merge: the reference would drop node.* of search-path files entirely.
        assertEquals(new NodeConfig.Rekey(true, 600, 10), c.config().node().rekey());
        assertEquals(4, c.config().node().heartbeatIntervalSecs());
        // transports.<type> is replaced whole, as in the reference: mtu 1400 does not carry over.
        assertEquals(1, c.config().udp().size());
        assertEquals("0.0.0.0:3000", c.config().udp().get(0).bindAddr());
        assertEquals(1280, c.config().udp().get(0).mtu());
        assertEquals(ConfigTestSupport.npub(1), c.config().peers().get(0).npub());
    }

    @Test
    void explicitFileIsTheOnlyOneRead() throws Exception {
        write("/etc/fips/fips.yaml", "tun: { nmae: broken }\n");
        final Path mine = write("/srv/mine.yaml", "node: { log_level: error }\n");
        final LoadedConfig c = sources(Map.of()).load(Optional.of(mine));
        assertEquals(List.of(mine), c.files());
        assertEquals(NodeConfig.LogLevel.ERROR, c.effectiveLogLevel());
        final ConfigException missing = assertThrows(ConfigException.class,
                () -> sources(Map.of()).load(Optional.of(root.resolve("nope.yaml"))));
        assertTrue(missing.problems().get(0).startsWith("cannot read file"), missing.problems().toString());
    }

    @Test
    void errorsNameTheFile() throws Exception {
        final Path etc = write("/etc/fips/fips.yaml", "tun: { nmae: broken }\n");
        final ConfigException e = assertThrows(ConfigException.class, () -> sources(Map.of()).load(Optional.empty()));
        assertEquals(etc.toString(), e.source());
        assertEquals(List.of("tun.nmae: unknown key (did you mean name?)"), e.problems());
        write("/etc/fips/fips.yaml", "\u0000bad");
        assertThrows(ConfigException.class, () -> sources(Map.of()).load(Optional.empty()));
        Files.write(etc, new byte[] {(byte) 0xff, (byte) 0xfe});
        assertEquals(List.of("file is not valid UTF-8"),
                assertThrows(ConfigException.class, () -> sources(Map.of()).load(Optional.empty())).problems());
    }

    @Test
    void noFileMeansTheEmbeddedDefault() throws Exception {
        final LoadedConfig c = sources(Map.of("HOME", "/home/u")).load(Optional.empty());
        assertEquals(List.of(), c.files());
        assertEquals(List.of(UdpConfig.DEFAULTS), c.config().udp());
        assertEquals(root.resolve("tmp/fips-control.sock").toString(), c.config().node().control().socketPath());
    }

    @Test
    void fipsConfigEnvActsLikeDashC() throws Exception {
        write("/etc/fips/fips.yaml", "node: { log_level: debug }\n");
        final Path f = write("/opt/fips.yaml", "node: { log_level: warn }\n");
        final LoadedConfig c = sources(Map.of("FIPS_CONFIG", "/opt/fips.yaml")).load(Optional.empty());
        assertEquals(List.of(f), c.files());
        assertEquals(NodeConfig.LogLevel.WARN, c.effectiveLogLevel());
        assertEquals(Optional.of(f), c.environment().configFile());
    }

    @Test
    void rustLogOverridesTheConfiguredLevel() throws Exception {
        final Path f = write("/etc/fips/fips.yaml", "node: { log_level: error }\n");
        assertEquals(NodeConfig.LogLevel.TRACE,
                sources(Map.of("RUST_LOG", "TRACE")).load(Optional.of(f)).effectiveLogLevel());
        assertEquals(NodeConfig.LogLevel.DEBUG,
                sources(Map.of("RUST_LOG", "nostr=info,debug")).load(Optional.of(f)).effectiveLogLevel());
        final LoadedConfig odd = sources(Map.of("RUST_LOG", "fips=debug")).load(Optional.of(f));
        assertEquals(NodeConfig.LogLevel.ERROR, odd.effectiveLogLevel());
        assertTrue(odd.warnings().get(0).startsWith("env RUST_LOG: no plain level"), odd.warnings().toString());
    }

    @Test
    void workerCountsAndXdgRuntimeDir() throws Exception {
        Files.createDirectories(root.resolve("run/user/1000"));
        final LoadedConfig c = sources(Map.of("FIPS_ENCRYPT_WORKERS", "0", "FIPS_DECRYPT_WORKERS", "0",
                "XDG_RUNTIME_DIR", "/run/user/1000")).load(Optional.empty());
        // The reference clamps encrypt workers to at least 1 and lets 0 decrypt workers mean "inline".
        assertEquals(OptionalInt.of(1), c.environment().encryptWorkers());
        assertEquals(OptionalInt.of(0), c.environment().decryptWorkers());
        assertEquals(root.resolve("run/user/1000/fips/control.sock").toString(),
                c.config().node().control().socketPath());
        final LoadedConfig bad = sources(Map.of("FIPS_ENCRYPT_WORKERS", "many")).load(Optional.empty());
        assertEquals(OptionalInt.empty(), bad.environment().encryptWorkers());
        assertEquals(List.of("env FIPS_ENCRYPT_WORKERS: expected a non-negative integer, got \"many\"; ignored"),
                bad.warnings());
    }
}
