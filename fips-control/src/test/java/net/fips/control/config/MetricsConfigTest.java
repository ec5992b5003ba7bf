package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code node.metrics}: off by default, loopback only unless explicitly allowed, strict like every section. */
class MetricsConfigTest {
    @TempDir
    Path root;

    private NodeConfig.Metrics metrics(final String nodeYaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of()))
                .load("node:\n" + nodeYaml + "peers: []\n", "test.yaml").config().node().metrics();
    }

    private List<String> errors(final String nodeYaml) {
        return assertThrows(ConfigException.class, () -> metrics(nodeYaml)).problems();
    }

    @Test
    void offByDefault() throws ConfigException {
        assertEquals(NodeConfig.Metrics.DISABLED, metrics("  leaf_only: false\n"));
        assertEquals(Optional.empty(), metrics("  metrics: {}\n").bind());
    }

    @Test
    void loopbackBindsAreAccepted() throws ConfigException {
        assertEquals(Optional.of("127.0.0.1:9464"), metrics("  metrics: { bind: \"127.0.0.1:9464\" }\n").bind());
        assertEquals(Optional.of("[::1]:9464"), metrics("  metrics: { bind: \"[::1]:9464\" }\n").bind());
        assertEquals(Optional.of("127.0.0.1:0"), metrics("  metrics: { bind: \"127.0.0.1:0\" }\n").bind());
    }

    @Test
    void otherBindsNeedTheExplicitSwitch() throws ConfigException {
        final List<String> e = errors("  metrics: { bind: \"0.0.0.0:9464\" }\n");
        assertEquals(1, e.size(), e::toString);
        assertEquals(true, e.getFirst().startsWith("node.metrics.bind: \"0.0.0.0:9464\" is not a loopback address"),
                e::toString);
        final NodeConfig.Metrics m = metrics("  metrics: { bind: \"0.0.0.0:9464\", allow_non_loopback: true }\n");
        assertEquals(new NodeConfig.Metrics(Optional.of("0.0.0.0:9464"), true), m);
    }

    @Test
    void malformedBindsAndUnknownKeysAreErrors() {
        assertEquals(true, errors("  metrics: { bind: \"localhost:9464\" }\n").getFirst()
                .startsWith("node.metrics.bind: expected ip:port"));
        assertEquals(true, errors("  metrics: { bind: \"127.0.0.1\" }\n").getFirst()
                .startsWith("node.metrics.bind: expected ip:port"));
        assertEquals(true, errors("  metrics: { port: 9464 }\n").getFirst().startsWith("node.metrics.port"),
                () -> errors("  metrics: { port: 9464 }\n").toString());
    }
}
