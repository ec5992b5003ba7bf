package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static net.fips.testing.Await.until;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;
import org.junit.jupiter.api.Assumptions;

import net.fips.control.identity.NodeIdentity;
import net.fips.testing.FreePorts;

/**
 * The {@code fips} daemon end to end: two daemons as separate processes link up over loopback, fipsctl inspects
 * them through their control sockets, and SIGTERM stops both cleanly. Also the config-error exit status.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FipsDaemonTest {
    /** The pause between two polls of a daemon or a file (each poll may start a process). */
    private static final Duration POLL = Duration.ofMillis(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Keys every {@code show_status} carries (operator.md §2.3). */
    private static final Set<String> STATUS_KEYS = Set.of("version", "npub", "node_addr", "ipv6_addr", "state",
            "is_leaf_only", "peer_count", "session_count", "link_count", "transport_count", "connection_count",
            "tun_state", "tun_name", "effective_ipv6_mtu", "control_socket", "pid", "exe_path", "uptime_secs",
            "estimated_mesh_size", "persistent", "root", "is_root", "transport_peer_counts", "forwarding",
            "sparklines");
    private static final Set<String> PEER_KEYS = Set.of("node_addr", "npub", "display_name", "ipv6_addr",
            "connectivity", "link_id", "authenticated_at_ms", "last_seen_ms", "has_tree_position", "has_bloom_filter",
            "filter_sequence", "is_parent", "is_child", "effective_depth", "stats", "replay_suppressed",
            "consecutive_decrypt_failures", "nostr_traversal", "current_k_bit");
    private static final Set<String> PEER_OPTIONAL_KEYS = Set.of("transport_addr", "direction", "transport_type",
            "tree_depth", "noise", "our_session_index", "rekey_in_progress", "rekey_draining", "mmp");
    /** Our per-peer / per-link event totals beside the reference's keys (docs/metrics.md); nothing else extra. */
    private static final Set<String> PEER_EXTENSION_KEYS = Set.of("decrypt_failures", "rekeys", "restarts");
    private static final Set<String> LINK_EXTENSION_KEYS = Set.of("replay_suppressed", "decrypt_failures", "rekeys");
    private static final Set<String> LINK_KEYS = Set.of("link_id", "transport_id", "remote_addr", "direction",
            "state", "created_at_ms", "stats");
    private static final Set<String> LINK_STATS_KEYS = Set.of("packets_sent", "packets_recv", "bytes_sent",
            "bytes_recv", "last_recv_ms");
    private static final Set<String> TRANSPORT_KEYS = Set.of("transport_id", "type", "state", "mtu", "stats");
    private static final Set<String> TRANSPORT_OPTIONAL_KEYS = Set.of("name", "local_addr", "tor_mode",
            "onion_address", "tor_monitoring");
    private static final Set<String> UDP_STATS_KEYS = Set.of("packets_sent", "bytes_sent", "packets_recv",
            "bytes_recv", "send_errors", "recv_errors", "mtu_exceeded", "kernel_drops");

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (final Process p : processes) {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private Process daemon(final String name, final String... args) throws IOException {
        return daemon(name, List.of(), args);
    }

    private Process daemon(final String name, final List<String> jvmOptions, final String... args)
            throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=net.fips.ffm"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-p", System.getProperty("jdk.module.path"), "-m", "net.fips.cli/net.fips.cli.FipsDaemon"));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    private String log(final String name) throws IOException {
        return Files.readString(dir.resolve(name + ".log"), StandardCharsets.UTF_8);
    }

    /** Runs fipsctl in process. */
    private static JsonNode ctl(final Path socket, final String... args) throws IOException {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final List<String> all = new ArrayList<>(List.of("--socket", socket.toString(), "--json"));
        all.addAll(List.of(args));
        final int code = FipsCtl.run(all.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err));
        if (code != 0) {
            return null;
        }
        return JSON.readTree(out.toString());
    }

    /** Waits until daemon {@code name}'s log holds {@code text}; the failure names {@code what} and shows the log. */
    private void untilLogged(final String name, final String text, final Duration timeout, final String what) {
        until(timeout, POLL, () -> {
            try {
                return log(name).contains(text);
            } catch (final IOException e) {
                return false;
            }
        }, () -> what + "; daemon log:\n" + logOrProblem(name));
    }

    private String logOrProblem(final String name) {
        try {
            return log(name);
        } catch (final IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static int peerCount(final Path socket) {
        try {
            final JsonNode peers = ctl(socket, "show", "peers");
            return peers == null ? -1 : peers.path("peers").size();
        } catch (final IOException e) {
            return -1;
        }
    }

    private static Set<String> keys(final JsonNode node) {
        final Set<String> out = new TreeSet<>();
        for (final Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    private static void assertKeys(final Set<String> required, final Set<String> optional, final JsonNode node,
                                   final String what) {
        final Set<String> got = keys(node);
        assertTrue(got.containsAll(required), what + ": missing " + diff(required, got) + " in " + got);
        final Set<String> allowed = new TreeSet<>(required);
        allowed.addAll(optional);
        assertTrue(allowed.containsAll(got), what + ": unexpected " + diff(got, allowed));
    }

    private static Set<String> union(final Set<String> a, final Set<String> b) {
        final Set<String> u = new TreeSet<>(a);
        u.addAll(b);
        return u;
    }

    private static Set<String> diff(final Set<String> a, final Set<String> b) {
        final Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    @Test
    void twoDaemonsLinkUpAnswerFipsctlAndStopCleanlyOnSigterm() throws Exception {
        final NodeIdentity a = NodeIdentity.generate();
        final NodeIdentity b = NodeIdentity.generate();
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final Path sa = dir.resolve("a.sock");
        final Path sb = dir.resolve("b.sock");
        final Process da = daemon("a", "-c", DaemonConfig.write(dir, "a", a, pa, b, "bob", pb).toString());
        final Process db = daemon("b", "--config", DaemonConfig.write(dir, "b", b, pb, a, "alice", pa).toString(),
                "--log-level", "debug");

        until(Duration.ofSeconds(30), POLL, () -> peerCount(sa) == 1 && peerCount(sb) == 1,
                () -> "both daemons to show one peer");

        final JsonNode status = ctl(sa, "show", "status");
        assertKeys(STATUS_KEYS, Set.of(), status, "show status");
        assertEquals(a.npub(), status.path("npub").asText());
        assertEquals(a.nodeAddr().toString(), status.path("node_addr").asText());
        assertEquals("running", status.path("state").asText());
        assertEquals(sa.toString(), status.path("control_socket").asText());
        assertEquals(da.pid(), status.path("pid").asLong());
        assertEquals(1, status.path("peer_count").asInt());
        assertEquals(1203, status.path("effective_ipv6_mtu").asInt());

        final JsonNode peer = ctl(sa, "show", "peers").path("peers").get(0);
        assertKeys(PEER_KEYS, union(PEER_OPTIONAL_KEYS, PEER_EXTENSION_KEYS), peer, "show peers");
        assertEquals(b.npub(), peer.path("npub").asText());
        assertEquals("bob", peer.path("display_name").asText(), "alias from config");
        assertEquals("connected", peer.path("connectivity").asText());
        assertEquals("127.0.0.1:" + pb, peer.path("transport_addr").asText());
        assertKeys(Set.of("packets_sent", "packets_recv", "bytes_sent", "bytes_recv"), Set.of(),
                peer.path("stats"), "peer stats");

        final JsonNode link = ctl(sb, "show", "links").path("links").get(0);
        assertKeys(LINK_KEYS, LINK_EXTENSION_KEYS, link, "show links");
        assertKeys(LINK_STATS_KEYS, Set.of(), link.path("stats"), "link stats");
        assertEquals("connected", link.path("state").asText());
        assertEquals("127.0.0.1:" + pa, link.path("remote_addr").asText());

        final JsonNode transports = ctl(sb, "show", "transports").path("transports");
        assertEquals(1, transports.size());
        assertKeys(TRANSPORT_KEYS, TRANSPORT_OPTIONAL_KEYS, transports.get(0), "show transports");
        assertKeys(UDP_STATS_KEYS, Set.of(), transports.get(0).path("stats"), "udp stats");
        assertEquals("127.0.0.1:" + pb, transports.get(0).path("local_addr").asText());
        assertEquals("up", transports.get(0).path("state").asText());
        assertTrue(transports.get(0).path("stats").path("packets_recv").asLong() > 0);

        // SIGTERM (Process.destroy on Unix): Disconnect to the peer, socket removed, exit 0.
        da.destroy();
        assertTrue(da.waitFor(20, TimeUnit.SECONDS), "a exits");
        assertEquals(0, da.exitValue(), log("a"));
        assertFalse(Files.exists(sa), "a's socket removed");
        until(Duration.ofSeconds(5), POLL, () -> peerCount(sb) == 0, () -> "b to drop a after its Disconnect");
        db.destroy();
        assertTrue(db.waitFor(20, TimeUnit.SECONDS), "b exits");
        assertEquals(0, db.exitValue(), log("b"));
        assertFalse(Files.exists(sb), "b's socket removed");

        final String logA = log("a");
        assertTrue(logA.contains("identity: " + a.npub()), logA);
        assertTrue(logA.contains("control socket: " + sa), logA);
        assertTrue(logA.contains("sent Disconnect to 1 peer(s)"), logA);
        assertTrue(logA.contains("stopping (SIGTERM)"), logA);
        assertTrue(log("b").contains("DEBUG"), "--log-level debug took effect");
    }

    @Test
    void invalidConfigListsEveryProblemAndExitsWithExConfig() throws Exception {
        final Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "node:\n  heartbeat_interval_secs: soon\n  bogus_key: 1\n"
                + "transports:\n  udp:\n    bind_adress: \"127.0.0.1:1\"\n");
        final StringWriter err = new StringWriter();
        final CommandLine cl = FipsDaemon.commandLine();
        cl.setErr(new PrintWriter(err));
        final int code = cl.execute("-c", bad.toString());
        assertEquals(FipsDaemon.EXIT_CONFIG, code);
        final String text = err.toString();
        assertTrue(text.contains("heartbeat_interval_secs"), text);
        assertTrue(text.contains("bogus_key"), text);
        assertTrue(text.contains("bind_adress"), text);
    }

    @Test
    void aPortInUseIsNamedAndExitsOne() throws Exception {
        try (DatagramChannel taken = DatagramChannel.open()) {
            // Without SO_REUSEPORT on this socket the daemon's bind fails even though it sets the option itself.
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            final int port = ((InetSocketAddress) taken.getLocalAddress()).getPort();
            final Path cfg = DaemonConfig.write(dir, "busy", NodeIdentity.generate(), port, NodeIdentity.generate(),
                    "x", 9);
            final Process p = daemon("busy", "-c", cfg.toString());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(FipsDaemon.EXIT_START_FAILED, p.exitValue(), log("busy"));
            final String text = log("busy");
            final String message = "UDP address 127.0.0.1:" + port + " of transports.udp is already in use";
            assertTrue(text.contains("fips: " + message), text);
            assertEquals(text.indexOf(message), text.lastIndexOf(message), "printed exactly once: " + text);
            assertFalse(text.contains("Exception"), text);
        }
    }

    @Test
    void sighupReloadsTheLogLevelAndNamesSettingsThatNeedARestart() throws Exception {
        final NodeIdentity a = NodeIdentity.generate();
        final Path cfg = DaemonConfig.write(dir, "hup", a, FreePorts.udp(), NodeIdentity.generate(), "x",
                FreePorts.udp());
        final Path sock = dir.resolve("hup.sock");
        final Process p = daemon("hup", "-c", cfg.toString());
        until(Duration.ofSeconds(30), POLL, () -> peerCount(sock) >= 0, () -> "the daemon to answer on its socket");
        // A test JVM started with SIGHUP ignored (under nohup) passes that on to the daemon, which then cannot
        // hear the signal at all and says so; nothing here could be checked then.
        Assumptions.assumeFalse(log("hup").contains("SIGHUP is ignored by this process"),
                "SIGHUP is ignored in this environment (inherited)");
        Files.writeString(cfg, Files.readString(cfg).replace("node:\n", "node:\n  log_level: debug\n")
                .replace("heartbeat_interval_secs: 1", "heartbeat_interval_secs: 2"));
        assertEquals(0, new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor());
        untilLogged("hup", "reloaded: ", Duration.ofSeconds(20), "the reload line");
        final String line = log("hup").lines().filter(l -> l.contains("reloaded: ")).findFirst().orElseThrow();
        assertTrue(line.contains(" INFO "), line);
        assertTrue(line.contains("peer ACL and hosts files"), line);
        assertTrue(line.contains("log level info -> debug"), line);
        assertTrue(line.endsWith("changed settings that need a restart: node.heartbeat_interval_secs"), line);
        assertTrue(p.isAlive(), "SIGHUP does not stop the daemon");
        p.destroy();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), log("hup"));
    }

    @Test
    void aStopSignalDuringTheStartUpWarmUpEndsItAndTheNodeNeverStarts() throws Exception {
        final Path cfg = DaemonConfig.write(dir, "wu", NodeIdentity.generate(), FreePorts.udp(),
                NodeIdentity.generate(), "x", FreePorts.udp());
        // a cap far beyond the test's wait: only the signal can end the warm-up in time
        final Process p = daemon("wu", List.of("-D" + StartupWarmup.PROPERTY + "=300"), "-c", cfg.toString());
        untilLogged("wu", "start-up warm-up: compiling the packet path", Duration.ofSeconds(30),
                "the warm-up's first line");
        p.destroy();
        // the current slice (100 ms) or a pair's link wait (at most 5 s) ends first
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), () -> "still running 20 s after SIGTERM:\n" + logOrProblem("wu"));
        final String text = log("wu");
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("start-up warm-up ended after"), text);
        assertTrue(text.contains("the daemon was asked to stop"), text);
        assertTrue(text.contains("stopped (SIGTERM) before the node started"), text);
        assertFalse(text.contains("running; stop with"), text);
        assertFalse(Files.exists(dir.resolve("wu.sock")), "no control socket was opened");
        // the backend choices are logged at the daemon's level, not swallowed by the warm-up's WARN-only log
        assertTrue(text.contains("AEAD backend: "), text);
        assertTrue(text.contains("secp256k1 backend: "), text);
    }
}
