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

/** {@code transports.ethernet} (operator.md §1.14): defaults, both spellings of listen, named instances, errors. */
class EthernetConfigTest {
    @TempDir
    Path root;

    private FipsConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml").config();
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void defaultsAreTheReferences() throws ConfigException {
        final List<EthernetConfig> e = load("transports: { ethernet: { interface: eth0 } }").ethernet();
        assertEquals(List.of(EthernetConfig.defaults("eth0")), e);
        final EthernetConfig c = e.get(0);
        assertEquals(0x2121, c.etherType());
        assertEquals(Optional.empty(), c.mtu());
        assertEquals(2 * 1024 * 1024, c.recvBufSize());
        assertTrue(c.listen());
        assertFalse(c.announce());
        assertFalse(c.autoConnect());
        assertFalse(c.acceptConnections(), "Ethernet refuses strangers by default");
        assertEquals(30, c.effectiveBeaconIntervalSecs());
        assertEquals("ethernet", c.displayName());
        assertEquals(List.of(), load("node: {}").ethernet());
    }

    @Test
    void everyKeyIsRead() throws ConfigException {
        final EthernetConfig c = load("""
                transports:
                  ethernet:
                    interface: enp3s0
                    ethertype: 0x88b5
                    mtu: 1400
                    recv_buf_size: 1048576
                    send_buf_size: 524288
                    listen: false
                    announce: true
                    auto_connect: true
                    accept_connections: true
                    beacon_interval_secs: 3
                """).ethernet().get(0);
        assertEquals(new EthernetConfig(Optional.empty(), "enp3s0", 0x88b5, Optional.of(1400), 1048576, 524288,
                false, true, true, true, 3), c);
        assertEquals(10, c.effectiveBeaconIntervalSecs(), "raised to the minimum");
    }

    @Test
    void discoveryIsTheOldSpellingOfListen() throws ConfigException {
        assertFalse(load("transports: { ethernet: { interface: eth0, discovery: false } }").ethernet().get(0)
                .listen());
        assertFalse(load("transports: { ethernet: { interface: eth0, listen: false } }").ethernet().get(0)
                .listen());
        assertTrue(errors("transports: { ethernet: { interface: eth0, listen: true, discovery: true } }")
                .contains("transports.ethernet.discovery: is the old spelling of listen; set only one of them"));
    }

    @Test
    void namedInstancesOnePerInterface() throws ConfigException {
        final List<EthernetConfig> e = load("""
                transports:
                  ethernet:
                    lan: { interface: eth0, announce: true }
                    wan: { interface: eth1 }
                """).ethernet();
        assertEquals(2, e.size());
        assertEquals(Optional.of("lan"), e.get(0).name());
        assertEquals("eth1", e.get(1).interfaceName());
        assertEquals("lan", e.get(0).displayName());
        assertTrue(errors("transports: { ethernet: { a: { interface: eth0 }, b: { interface: eth0 } } }")
                .contains("transports.ethernet.b.interface: interface eth0 already has an Ethernet instance (one"
                        + " instance per interface)"));
    }

    @Test
    void badValuesNameTheirPath() {
        assertTrue(errors("transports: { ethernet: { announce: true } }").stream()
                .anyMatch(s -> s.startsWith("transports.ethernet.interface")), "interface is required");
        assertTrue(errors("transports: { ethernet: { interface: eth0, ethertype: 0x0100 } }").stream()
                .anyMatch(s -> s.startsWith("transports.ethernet.ethertype")));
        assertTrue(errors("transports: { ethernet: { interface: eth0, mtu: 50 } }").stream()
                .anyMatch(s -> s.startsWith("transports.ethernet.mtu")));
        assertTrue(errors("transports: { ethernet: { interface: eth0, announce: yes-please } }").stream()
                .anyMatch(s -> s.startsWith("transports.ethernet.announce")));
        assertTrue(errors("transports: { ethernet: { interface: \"a/b\" } }").stream()
                .anyMatch(s -> s.startsWith("transports.ethernet.interface")));
        assertTrue(errors("transports: { ethernet: { interface: eth0, anounce: true } }").stream()
                .anyMatch(s -> s.contains("transports.ethernet.anounce: unknown key (did you mean announce?)")));
    }
}
