package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.ctl.ControlJson;

/**
 * fipsctl's {@code stats} commands: the history plot and tables, and the scope checks made before asking the
 * daemon.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlStatsTest extends FipsCtlHarness {

    @Test
    void statsHistoryPlotIsTheReferencesThreeLines() throws Exception {
        Files.writeString(dir.resolve("hosts"), "alice " + PEER.npub() + "\n");
        final Result plot = run("stats", "history", "srtt_ms", "--peer", "alice", "--window", "5s", "--plot");
        assertEquals(0, plot.code(), plot.err());
        // operator.md §3.2's three lines for the §2.4 example series [41.0, 41.3, null, 40.9, 41.2].
        assertEquals("srtt_ms (ms) — 5 samples @ 1s = 5s window (1 gaps)\n"
                + "  min=40.900 max=41.300 last=41.200\n"
                + "  ▃█ ▁▆\n", plot.out());
        // --plot wins over a pipe, as in the reference.
        FipsCtl.stdoutIsTerminal = () -> false;
        assertEquals(plot.out(), run("stats", "history", "srtt_ms", "--peer", PEER.npub(), "--window", "5s",
                "--plot").out());
        final JsonNode json = ControlJson.MAPPER.readTree(run("stats", "history", "srtt_ms", "--peer", "alice",
                "--window", "5s").out());
        assertEquals(ControlJson.MAPPER.readTree("{\"metric\":\"srtt_ms\",\"unit\":\"ms\","
                + "\"granularity_seconds\":1,\"values\":[41.0,41.3,null,40.9,41.2]}"), json);
        final Result unknown = run("stats", "history", "srtt_ms", "--peer", "bob");
        assertEquals(1, unknown.code());
        final Result untracked = run("stats", "history", "srtt_ms", "--peer", SELF.npub());
        assertEquals(1, untracked.code());
        assertTrue(untracked.err().startsWith("error: peer not tracked in stats history: "), untracked.err());
    }

    @Test
    void statsTablesOnATerminal() {
        final Result list = run("stats", "list");
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().matches("(?s)METRIC\\s+SCOPE\\s+UNIT\n.*ecn_ce\\s+peer\\s+events/s\n.*"), list.out());
        assertTrue(list.out().contains("rings: 3600 x 1 s, 1440 x 1 min"), list.out());
        final Result metrics = run("stats", "metrics");
        assertTrue(metrics.out().contains("forwarding: forwarded_packets=5 forwarded_bytes=-"), metrics.out());
        assertTrue(metrics.out().contains("tree: parent_switches=2"), metrics.out());
        final Result peers = run("stats", "peers");
        assertTrue(peers.out().matches("(?s)NAME\\s+NPUB\\s+ACTIVE.*\nalice\\s+" + PEER.npub()
                + "\\s+yes\\s+10\\s+6\n?"), peers.out());
        final Result history = run("stats", "history", "mesh_size", "--window", "3s");
        assertTrue(history.out().startsWith("mesh_size (nodes) — 3 samples @ 1s = 3s window\n  min=3.000 max=3.000"
                + " last=3.000\n  ▄▄▄\n\nAGE  VALUE\n-2s  3.000\n-1s  3.000\n-0s  3.000\n"), history.out());
        // A metric of the other scope says so, before asking the daemon (which only knows "unknown metric").
        final Result noPeer = run("stats", "history", "srtt_ms");
        assertEquals(64, noPeer.code());
        assertTrue(noPeer.err().startsWith("srtt_ms is a per-peer metric: add --peer PEER"), noPeer.err());
        final Result nodeWithPeer = run("stats", "history", "mesh_size", "--peer", PEER.npub());
        assertEquals(64, nodeWithPeer.code());
        assertTrue(nodeWithPeer.err().startsWith("mesh_size is a node metric: leave out --peer"), nodeWithPeer.err());
        assertEquals(0, run("stats", "history", "bytes_in", "--window", "3s").code(), "in both scopes: node");
        final Result bad = run("stats", "history", "mesh_size", "--granularity", "5m");
        assertEquals(1, bad.code());
        assertEquals("error: unknown granularity: 5m (expected 1s or 1m)", bad.err().strip());
    }
}
