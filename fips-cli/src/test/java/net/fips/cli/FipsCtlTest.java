package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.ctl.ControlJson;

/**
 * fipsctl's queries end to end, in process ({@code show ...}, {@code acl show}): tables on a terminal, the
 * reference's pretty JSON on a pipe or with {@code --json}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlTest extends FipsCtlHarness {

    @Test
    void pipesGetTheReferencesPrettyJsonAndTableForcesATable() throws Exception {
        FipsCtl.stdoutIsTerminal = () -> false;
        final Result piped = run("show", "status");
        assertEquals(0, piped.code(), piped.err());
        assertEquals(run("show", "status", "--json").out(), piped.out());
        assertEquals("running", ControlJson.MAPPER.readTree(piped.out()).get("state").asText());
        final Result forced = run("show", "status", "--table");
        assertTrue(forced.out().matches("(?s).*state:\\s+running.*"), forced.out());
        final Result both = run("show", "status", "--table", "--json");
        assertEquals(FipsCtl.EXIT_USAGE, both.code(), both.out() + both.err());
        final JsonNode tree = ControlJson.MAPPER.readTree(run("show", "tree").out());
        assertTrue(tree.get("is_root").asBoolean());
    }

    @Test
    void routingTables() throws Exception {
        final Result tree = run("show", "tree");
        assertEquals(0, tree.code(), tree.err());
        assertTrue(tree.out().matches("(?s).*is_root:\\s+true.*"), tree.out());
        assertTrue(tree.out().contains("(no peer has a tree position)"), tree.out());
        assertTrue(run("show", "bloom").out().contains("own_node_addr:"));
        assertTrue(run("show", "cache").out().contains("(no cached coordinates)"));
        final Result routing = run("show", "routing");
        assertTrue(routing.out().contains("(no lookups pending)") && routing.out().contains("discovery: req_"),
                routing.out());
        final Result ids = run("show", "identity-cache");
        assertTrue(ids.out().contains("(no known identities)") && ids.out().contains("max_entries:"), ids.out());
    }

    @Test
    void showStatusTableAndJson() throws Exception {
        final Result table = run("show", "status");
        assertEquals(0, table.code(), table.err());
        assertTrue(table.out().contains("state:"), table.out());
        assertTrue(table.out().matches("(?s).*state:\\s+running.*"), table.out());
        assertTrue(table.out().contains(SELF.npub()));
        assertTrue(table.out().contains("udp=1"));

        final Result before = run("--json", "show", "status");
        final Result after = run("show", "status", "--json");
        assertEquals(0, before.code());
        assertEquals(before.out(), after.out());
        final JsonNode data = ControlJson.MAPPER.readTree(before.out());
        assertEquals("running", data.get("state").asText());
        assertTrue(data.get("estimated_mesh_size").isNull());
        // Pretty JSON in the reference client's layout.
        assertTrue(before.out().startsWith("{\n  \"version\": \"0.1.0-test\",\n"), before.out());
        assertTrue(before.out().contains("\"bytes_in\": []"), before.out());
    }

    @Test
    void listTables() throws Exception {
        final Result peers = run("show", "peers");
        assertEquals(0, peers.code(), peers.err());
        final String[] lines = peers.out().split("\n");
        assertTrue(lines[0].startsWith("NAME") && lines[0].contains("NPUB") && lines[0].contains("SRTT_MS"));
        assertTrue(lines[1].startsWith("alice") && lines[1].contains(PEER.npub()) && lines[1].contains("child"),
                lines[1]);
        // Configured peers that are down are listed too, with their state (issue 19).
        assertTrue(lines[2].matches("bob\\s+" + DOWN.npub() + "\\s+retry in 12s\\s+udp\\s+192\\.0\\.2\\.7:2121\\s+-.*"),
                lines[2]);
        assertTrue(lines[3].matches("carol\\s+\\S+\\s+connecting\\s+tcp\\s+192\\.0\\.2\\.8:443\\s+-.*"), lines[3]);

        assertTrue(run("show", "links").out().contains("192.0.2.1:2121"));
        final Result conns = run("show", "connections");
        assertTrue(conns.out().contains("sent_msg1") && conns.out().contains("250"), conns.out());
        final Result tr = run("show", "transports");
        assertTrue(tr.out().contains("kernel_drops=0") && tr.out().contains("0.0.0.0:2121"), tr.out());
        final Result acl = run("acl", "show");
        assertTrue(acl.out().matches("(?s).*effective_mode:\\s+default_open.*"), acl.out());

        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "peers", "--json").out());
        assertEquals("alice", json.get("peers").get(0).get("display_name").asText());
        assertEquals(1, json.get("peers").size(), "the reference's list keeps established peers only");
        final JsonNode bob = json.get("not_connected").get(0);
        assertEquals("retrying", bob.get("state").asText());
        assertEquals(11_200, bob.get("retry_in_ms").asLong());
        assertEquals(3, bob.get("failed_attempts").asInt());
        assertFalse(json.get("not_connected").get(1).has("retry_in_ms"));
    }

    @Test
    void listeningSocketsTableAndJson() throws Exception {
        final Result t = run("show", "listening-sockets");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("fips0 fd12::1, firewall (inet fips): not active", lines[0]);
        assertTrue(lines[1].startsWith("PROTO") && lines[1].contains("FILTER") && lines[1].contains("PROCESS"),
                lines[1]);
        assertTrue(lines[2].matches("tcp\\s+::\\s+22\\s+wildcard\\s+no_firewall\\s+812\\s+sshd"), lines[2]);
        assertTrue(lines[3].matches("udp\\s+fd12::1\\s+5354\\s+fips0\\s+no_firewall\\s+-\\s+-"), lines[3]);
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "listening-sockets", "--json").out());
        assertEquals(2, json.get("sockets").size());
        assertTrue(json.get("sockets").get(1).get("pid").isNull());
    }

    @Test
    void nostrTableAndJson() throws Exception {
        final Result t = run("show", "nostr");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("policy configured_only, app fips-overlay-v1, advertise true", lines[0]);
        assertEquals("our advert: udp 198.18.0.2:2121; last publish 1700000000000 ms, expires 1700003600000 ms",
                lines[1]);
        assertTrue(t.out().contains("wss://relay.example"), t.out());
        assertTrue(Arrays.stream(lines).anyMatch(l -> l.matches(
                "bob\\s+udp 198.18.0.3:2121\\s+linked\\s+0\\s+-")), t.out());
        assertTrue(Arrays.stream(lines).anyMatch(l -> l.matches(
                "npub1nat\\s+no\\s+2\\s+0\\s+1\\s+1\\s+established\\s+-\\s+198.18.0.3:40000")), t.out());
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "nostr", "--json").out());
        assertEquals("connected", json.get("relays").get(0).get("state").asText());
    }

    @Test
    void lanTableAndJson() throws Exception {
        final Result t = run("show", "lan");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("LAN discovery: _fips._udp.local. as fips-npub1abcdefghijk, port 2121, scope fips-overlay-v1,"
                + " 2 interface address(es)", lines[0]);
        assertEquals("announcements seen 7, refused 1, dropped 0, dials started 1", lines[1]);
        assertTrue(lines[2].startsWith("NPUB") && lines[2].contains("LAST_SEEN_MS_AGO"), lines[2]);
        assertTrue(lines[3].matches("npub1peer\\s+10\\.1\\.0\\.2:2121\\s+fips-overlay-v1\\s+yes\\s+1200\\s+1"
                + "\\s+linked"), lines[3]);
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "lan", "--json").out());
        assertEquals("npub1peer", json.get("peers").get(0).get("npub").asText());
    }
}
