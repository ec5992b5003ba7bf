package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code node.discovery.lan} / {@code node.rendezvous.lan} (discovery-gateway.md §3.4): the reference's defaults,
 * both spellings (the v0.4.1 block wins, as for Nostr), no "not implemented" warning any more, and clear errors for
 * a service type or scope mDNS cannot carry.
 */
class LanConfigTest {
    @TempDir
    Path root;

    private LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(ConfigTestSupport.host(root, Map.of())).load(yaml, "test.yaml");
    }

    private List<String> errors(final String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void absentOrEmptyBlockHasTheReferenceDefaults() throws ConfigException {
        for (final String yaml : List.of("node: { leaf_only: false }", "node: { discovery: { lan: {} } }",
                "node: { rendezvous: { lan: {} } }")) {
            final LoadedConfig c = load(yaml);
            assertEquals(LanConfig.DEFAULTS, c.config().lan(), yaml);
            assertEquals(List.of(), c.warnings(), yaml);
        }
        assertEquals(new LanConfig(false, "_fips._udp.local.", Optional.empty()), LanConfig.DEFAULTS);
    }

    @Test
    void bothSpellingsAreReadWithoutWarningsAndTheV041BlockWins() throws ConfigException {
        final LoadedConfig old = load("node: { discovery: { lan: { enabled: true, service_type: _x._tcp.local.,"
                + " scope: \"  home  \" } } }");
        assertEquals(new LanConfig(true, "_x._tcp.local.", Optional.of("home")), old.config().lan());
        assertEquals(List.of(), old.warnings(), "implemented keys do not warn");
        final LoadedConfig master = load("node: { rendezvous: { lan: { enabled: true, scope: lab } } }");
        assertEquals(new LanConfig(true, "_fips._udp.local.", Optional.of("lab")), master.config().lan());
        assertEquals(List.of(), master.warnings());
        final LoadedConfig both = load("node: { discovery: { lan: { enabled: false } },"
                + " rendezvous: { lan: { enabled: true, scope: lab } } }");
        assertEquals(LanConfig.DEFAULTS, both.config().lan(), "the v0.4.1 block wins as a whole");
        assertEquals(Optional.empty(), load("node: { discovery: { lan: { scope: \"   \" } } }").config().lan()
                .scope(), "a blank scope is none");
    }

    @Test
    void badValuesAreErrorsNamingTheKey() {
        assertTrue(errors("node: { discovery: { lan: { service_type: _fips._udp.local } } }").getFirst()
                .startsWith("node.discovery.lan.service_type: expected a service type ending in ._udp.local. or"
                        + " ._tcp.local."));
        assertTrue(errors("node: { rendezvous: { lan: { service_type: fips._udp.local. } } }").getFirst()
                .startsWith("node.rendezvous.lan.service_type: expected one service label \"_<name>\""));
        assertTrue(errors("node: { discovery: { lan: { service_type: _a._b._udp.local. } } }").getFirst()
                .startsWith("node.discovery.lan.service_type: expected one service label"));
        assertTrue(errors("node: { discovery: { lan: { scope: \"" + "s".repeat(250) + "\" } } }").getFirst()
                .startsWith("node.discovery.lan.scope: too long for a TXT entry"));
        assertTrue(errors("node: { discovery: { lan: { enabled: yes please } } }").getFirst()
                .startsWith("node.discovery.lan.enabled: "));
        assertTrue(errors("node: { discovery: { lan: { enable: true } } }").getFirst()
                .startsWith("node.discovery.lan.enable: unknown key (did you mean enabled?)"));
    }

    @Test
    void serviceTypeRule() {
        assertNull(LanConfig.serviceTypeProblem("_fips._udp.local."));
        assertNull(LanConfig.serviceTypeProblem("_fipstest-0a1b2c3d._udp.local."));
        assertNull(LanConfig.serviceTypeProblem("_" + "x".repeat(62) + "._tcp.local."));
        assertTrue(LanConfig.serviceTypeProblem("_" + "x".repeat(63) + "._tcp.local.") != null, "64-byte label");
        assertTrue(LanConfig.serviceTypeProblem("._udp.local.") != null);
        assertTrue(LanConfig.serviceTypeProblem("_._udp.local.") != null);
        assertTrue(LanConfig.serviceTypeProblem("_fips._udp.example.") != null);
    }
}
