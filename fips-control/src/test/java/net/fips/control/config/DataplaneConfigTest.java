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

/** {@code node.dataplane.threading} and {@code udp_gro} (ours) and the override {@code FIPS_DATAPLANE_THREADING}. */
class DataplaneConfigTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String nodeYaml, final Map<String, String> env) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, env)).load("node:\n" + nodeYaml + "peers: []\n",
                "test.yaml");
    }

    private NodeConfig.Threading threading(final String nodeYaml) throws ConfigException {
        return load(nodeYaml, Map.of()).config().node().dataplane().threading();
    }

    @Test
    void autoByDefaultAndEachValueParses() throws ConfigException {
        assertEquals(NodeConfig.Threading.AUTO, threading("  leaf_only: false\n"));
        assertEquals(NodeConfig.Threading.AUTO, threading("  dataplane: {}\n"));
        assertEquals(NodeConfig.Threading.AUTO, threading("  dataplane: { threading: auto }\n"));
        assertEquals(NodeConfig.Threading.DEDICATED, threading("  dataplane: { threading: dedicated }\n"));
        assertEquals(NodeConfig.Threading.COMPACT, threading("  dataplane: { threading: compact }\n"));
    }

    @Test
    void badValuesAndUnknownKeysAreErrors() {
        final List<String> e = assertThrows(ConfigException.class,
                () -> threading("  dataplane: { threading: shared }\n")).problems();
        assertTrue(e.getFirst().startsWith("node.dataplane.threading: expected one of auto, dedicated, compact"),
                e::toString);
        final List<String> u = assertThrows(ConfigException.class,
                () -> threading("  dataplane: { threads: 1 }\n")).problems();
        assertTrue(u.getFirst().startsWith("node.dataplane.threads"), u::toString);
    }

    @Test
    void theEnvironmentOverridesAndABadValueIsAWarning() throws ConfigException {
        final LoadedConfig c = load("  dataplane: { threading: dedicated }\n",
                Map.of("FIPS_DATAPLANE_THREADING", "Compact"));
        assertEquals(Optional.of(NodeConfig.Threading.COMPACT), c.environment().threading());
        final LoadedConfig bad = load("  leaf_only: false\n", Map.of("FIPS_DATAPLANE_THREADING", "fast"));
        assertEquals(Optional.empty(), bad.environment().threading());
        assertEquals(List.of("env FIPS_DATAPLANE_THREADING: expected auto, dedicated or compact, got \"fast\";"
                + " ignored"), bad.warnings());
    }

    @Test
    void udpGroIsOnByDefaultAndCanBeTurnedOff() throws ConfigException {
        assertTrue(load("  leaf_only: false\n", Map.of()).config().node().dataplane().udpGro());
        assertTrue(load("  dataplane: { udp_gro: true }\n", Map.of()).config().node().dataplane().udpGro());
        assertFalse(load("  dataplane: { udp_gro: false }\n", Map.of()).config().node().dataplane().udpGro());
        final List<String> e = assertThrows(ConfigException.class,
                () -> load("  dataplane: { udp_gro: maybe }\n", Map.of())).problems();
        assertTrue(e.getFirst().startsWith("node.dataplane.udp_gro"), e::toString);
    }
}
