package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.testing.FreePorts;

/** {@link Node#reload}: what SIGHUP does, without signals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeReloadTest {
    @TempDir
    Path dir;

    private final NodeIdentity self = NodeIdentity.generate();
    private final NodeIdentity stranger = NodeIdentity.generate();
    private final List<NodeConfig.LogLevel> levels = new ArrayList<>();
    private Node node;

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private String applyLevel(final NodeConfig.LogLevel l) {
        levels.add(l);
        return "log level now " + l;
    }

    private Node start(final String yaml) throws Exception {
        node = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl")));
        return node;
    }

    @Test
    void reloadRereadsTheAclAndHostsFilesAtOnceAndAppliesTheLogLevel() throws Exception {
        Files.createDirectories(dir.resolve("acl"));
        final int port = FreePorts.udp();
        final String base = yaml(self, port, dir.resolve("n.sock"), "");
        start(base);
        assertTrue(node.acl().decide(stranger.toPeer()).allowed(), "no ACL files: everyone is allowed");

        Files.writeString(dir.resolve("acl").resolve("peers.deny"), stranger.npub() + "\n");
        final Node.Reload r = node.reload(load(base), this::applyLevel);
        assertFalse(node.acl().decide(stranger.toPeer()).allowed(), "the deny file applies right after the reload");
        assertTrue(r.reloaded().get(0).startsWith("peer ACL and hosts files re-read ("), r.toString());
        assertEquals("log level now INFO", r.reloaded().get(1));
        assertEquals(List.of(NodeConfig.LogLevel.INFO), levels);
        assertEquals(List.of(), r.restartNeeded());
        assertEquals("reloaded: " + r.reloaded().get(0) + "; log level now INFO; no changed setting needs a restart",
                r.summary());

        // The hosts file names an alias the deny file then uses.
        Files.writeString(dir.resolve("acl").resolve("hosts"), "pal " + stranger.npub() + "\n");
        Files.writeString(dir.resolve("acl").resolve("peers.deny"), "# nobody\n");
        node.reload(load(base), this::applyLevel);
        assertTrue(node.acl().decide(stranger.toPeer()).allowed());
        Files.writeString(dir.resolve("acl").resolve("peers.deny"), "pal\n");
        node.reload(load(base), this::applyLevel);
        assertFalse(node.acl().decide(stranger.toPeer()).allowed(), "the alias from the hosts file resolves");
    }

    @Test
    void aMalformedAclKeepsThePreviousOneAndSaysSo() throws Exception {
        Files.createDirectories(dir.resolve("acl"));
        Files.writeString(dir.resolve("acl").resolve("peers.deny"), stranger.npub() + "\n");
        final String base = yaml(self, FreePorts.udp(), dir.resolve("n.sock"), "");
        start(base);
        Files.writeString(dir.resolve("acl").resolve("peers.deny"), "npub1-this-is-not-a-key\n");
        final Node.Reload r = node.reload(load(base), this::applyLevel);
        assertEquals("peer ACL change rejected (malformed file; the previous ACL stays in force)", r.reloaded().get(0));
        assertFalse(node.acl().decide(stranger.toPeer()).allowed(), "the previous deny list is still in force");
    }

    @Test
    void changedStartOnlySettingsAreNamedAsNeedingARestart() throws Exception {
        final int port = FreePorts.udp();
        final Path sock = dir.resolve("n.sock");
        start(yaml(self, port, sock, ""));
        final LoadedConfig fresh = load(yaml(self, FreePorts.udp(), sock,
                "  log_level: debug\n  limits:\n    max_peers: 3\n"
                + "  heartbeat_interval_secs: 4\n", new Peer(stranger, "s", 9, true)));
        final Node.Reload r = node.reload(fresh, this::applyLevel);
        assertEquals(List.of(NodeConfig.LogLevel.DEBUG), levels, "the new level is handed over");
        assertEquals(List.of("node.heartbeat_interval_secs", "node.limits", "transports.udp", "peers"),
                r.restartNeeded());
        assertTrue(r.summary().endsWith("; changed settings that need a restart: node.heartbeat_interval_secs,"
                + " node.limits, transports.udp, peers"), r.summary());
        // The node keeps running with what it started with.
        assertEquals(port, node.transportAddresses().get(0).getPort());
        assertEquals(128, node.config().config().node().limits().maxPeers());
    }

    @Test
    void aChangedNostrSectionNeedsARestart() throws Exception {
        final int port = FreePorts.udp();
        final LoadedConfig running = load(yaml(self, port, dir.resolve("a.sock"), ""));
        final LoadedConfig fresh = load(yaml(self, port, dir.resolve("a.sock"),
                "  discovery:\n    nostr:\n      enabled: true\n      advert_relays: [\"ws://127.0.0.1:1\"]\n"));
        assertEquals(List.of("node.discovery.nostr"), ConfigDiff.restartNeeded(running.config(), fresh.config()));
    }

    @Test
    void snakeCaseOfComponentNames() {
        assertEquals("rate_limit", ConfigDiff.snake("rateLimit"));
        assertEquals("link_dead_timeout_secs", ConfigDiff.snake("linkDeadTimeoutSecs"));
        assertEquals("tree", ConfigDiff.snake("tree"));
    }
}
