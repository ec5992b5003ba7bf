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

/** {@code transports.ble} (operator.md §1.17): the reference's keys and defaults, strict types and ranges. */
class BleConfigTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void emptyBlockHasTheReferenceDefaults() throws ConfigException {
        for (final String yaml : List.of("transports: { ble: {} }", "transports:\n  ble:\n")) {
            final LoadedConfig c = load(yaml);
            assertEquals(List.of(BleConfig.DEFAULTS), c.config().ble(), yaml);
            assertEquals(List.of(), c.warnings());
        }
        final BleConfig d = BleConfig.DEFAULTS;
        assertEquals("hci0", d.adapter());
        assertEquals(0x85, d.psm());
        assertEquals(2048, d.mtu());
        assertEquals(7, d.maxConnections());
        assertEquals(10_000, d.connectTimeoutMs());
        assertTrue(d.advertise() && d.scan() && d.acceptConnections() && !d.autoConnect());
        assertEquals(30, d.probeCooldownSecs());
        assertEquals(List.of(), load("node: {}").config().ble());
    }

    @Test
    void everyKeyParsesAndOnlyAutoConnectWarns() throws ConfigException {
        final LoadedConfig c = load("""
                transports:
                  ble:
                    adapter: default
                    psm: 0x0081
                    mtu: 512
                    max_connections: 3
                    connect_timeout_ms: 2500
                    advertise: false
                    scan: false
                    auto_connect: true
                    accept_connections: false
                    probe_cooldown_secs: 5
                """);
        assertEquals(List.of(new BleConfig(Optional.empty(), "default", 0x81, 512, 3, 2500, false, false, true, false,
                5)), c.config().ble());
        assertEquals(List.of("transports.ble.auto_connect: accepted but not implemented (a reference v0.4.1 key);"
                + " ignored"), c.warnings());
    }

    @Test
    void blePeerAddressesAreCheckedAndNotWarnedAbout() throws ConfigException {
        final String peer = "transports: { ble: {} }\npeers:\n  - npub: \"" + ConfigTestSupport.TEST_US01
                + "\"\n    addresses: [ { transport: ble, addr: \"%s\" } ]\n";
        assertEquals(List.of(), load(peer.formatted("hci0/AA:bb:CC:00:11:22")).warnings());
        assertEquals(List.of(), load(peer.formatted("hci1/AA:BB:CC:00:11:22/random")).warnings());
        assertTrue(errors(peer.formatted("AA:BB:CC:00:11:22")).get(0)
                .startsWith("peers[0].addresses[0].addr: expected adapter/AA:BB:CC:DD:EE:FF for ble"));
    }

    @Test
    void namedInstances() throws ConfigException {
        final List<BleConfig> ble = load("transports: { ble: { a: { adapter: hci0 }, b: { adapter: hci1 } } }")
                .config().ble();
        assertEquals(2, ble.size());
        assertEquals("a", ble.get(0).displayName());
        assertEquals("hci1", ble.get(1).adapter());
    }

    @Test
    void badValuesAreErrorsNamingTheKey() {
        assertTrue(errors("transports: { ble: { adapter_name: hci0 } }").get(0)
                .startsWith("transports.ble.adapter_name"));
        assertTrue(errors("transports: { ble: { psm: 0 } }").get(0)
                .startsWith("transports.ble.psm: expected an integer in [1, 255]"));
        assertTrue(errors("transports: { ble: { psm: 0x1001 } }").get(0).startsWith("transports.ble.psm"));
        assertTrue(errors("transports: { ble: { mtu: 23 } }").get(0)
                .startsWith("transports.ble.mtu: expected an integer in [114,"));
        assertTrue(errors("transports: { ble: { max_connections: 0 } }").get(0)
                .startsWith("transports.ble.max_connections"));
        assertTrue(errors("transports: { ble: { scan: yes please } }").get(0)
                .startsWith("transports.ble.scan: expected true or false"));
        assertTrue(errors("transports: { ble: { adapter: \"/org/bluez/hci0\" } }").get(0)
                .startsWith("transports.ble.adapter"));
    }
}
