package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.ctl.ConnectResult;
import net.fips.control.ctl.ControlJson;

/**
 * fipsctl's peer commands ({@code connect}, {@code disconnect}) and how they resolve peer names (hosts file,
 * then the daemon's config aliases).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlPeerCommandsTest extends FipsCtlHarness {

    @Test
    void connectSendsTheReferenceParams() throws Exception {
        final String npub = PEER.npub();
        assertEquals(0, run("connect", npub, "192.0.2.7:2121").code());
        assertEquals(0, run("connect", npub, "192.0.2.7:8443", "tcp").code());
        assertEquals(0, run("connect", npub, "192.0.2.7:8443", "--transport", "tcp").code());
        assertEquals(List.of(new ConnectResult(npub, "192.0.2.7:2121", "udp"),
                new ConnectResult(npub, "192.0.2.7:8443", "tcp"),
                new ConnectResult(npub, "192.0.2.7:8443", "tcp")), connects);

        final Result json = run("connect", npub, "192.0.2.7:2121", "udp", "--json");
        assertEquals("192.0.2.7:2121", ControlJson.MAPPER.readTree(json.out()).get("address").asText());
    }

    @Test
    void connectRefusesMeshAddressesLocally() {
        for (final String addr : List.of("fd9d:abcd::1", "[fd00::1]:2121", "fd9d:abcd::1:2121")) {
            final Result r = run("connect", PEER.npub(), addr, "udp");
            assertEquals(1, r.code(), addr);
            assertTrue(r.err().contains("FIPS mesh address (fd00::/8)"), r.err());
        }
        assertTrue(connects.isEmpty());
        // Other transports are not checked, and non-mesh IPv6 is fine.
        assertEquals(0, run("connect", PEER.npub(), "fd9d::1:2121", "tor").code());
        assertEquals(0, run("connect", PEER.npub(), "[2001:db8::1]:2121").code());
        assertFalse(ConnectCommand.isMeshAddress("peer.example.com:2121"));
        assertFalse(ConnectCommand.isMeshAddress("fc00::1"));
    }

    @Test
    void peerNamesComeFromTheHostsFile() throws Exception {
        Files.writeString(dir.resolve("hosts"), "# test roster\nAlice " + PEER.npub() + "\nbroken line here\n");
        assertEquals(0, run("connect", "alice", "192.0.2.7:2121").code());
        assertEquals(PEER.npub(), connects.get(0).npub());
        final Result unknown = run("disconnect", "bob");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("error: unknown host 'bob'"), unknown.err());
        final Result ok = run("disconnect", "ALICE");
        assertEquals(0, ok.code(), ok.err());
        assertEquals("disconnected: " + PEER.npub(), ok.out().strip());
    }

    @Test
    void peerNamesFallBackToTheDaemonsConfigAliases() throws Exception {
        // Not an npub and not in the (missing) hosts file: the daemon resolves "carol" from its config.
        assertEquals(0, run("connect", "carol", "192.0.2.7:2121").code());
        assertEquals(PEER.npub(), connects.get(0).npub());
        final Result ok = run("disconnect", "Carol");
        assertEquals(0, ok.code(), ok.err());
        assertEquals("disconnected: " + PEER.npub(), ok.out().strip());
        final Result h = run("stats", "history", "srtt_ms", "--peer", "carol", "--window", "5s", "--json");
        assertEquals(0, h.code(), h.err());
        assertEquals(5, ControlJson.MAPPER.readTree(h.out()).get("values").size());
        // The hosts file wins over a daemon alias of the same name.
        Files.writeString(dir.resolve("hosts"), "carol " + SELF.npub() + "\n");
        assertEquals(1, run("disconnect", "carol").code(), "SELF is not a peer: the hosts entry was used");
        final Result unknown = run("stats", "history", "srtt_ms", "--peer", "dave");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("error: unknown host 'dave': not an npub, and not a peer alias"),
                unknown.err());
    }

    @Test
    void daemonErrorExitsOne() {
        final String other = SELF.npub();
        final Result r = run("disconnect", other);
        assertEquals(1, r.code());
        assertEquals("error: peer not found: " + other, r.err().strip());
        assertEquals("", r.out());
    }
}
