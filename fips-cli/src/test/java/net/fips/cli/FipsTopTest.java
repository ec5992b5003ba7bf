package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static net.fips.testing.Await.until;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.ctl.ControlJson;
import net.fips.control.identity.NodeIdentity;
import net.fips.testing.FreePorts;

/**
 * {@code fipsctl top} in a real pseudo-terminal (a private tmux server, 120x40) against two real daemons linked
 * over loopback; on the same daemons, peers named by config alias and {@code show listening-sockets}. Skipped
 * when tmux is not installed. Every wait polls with a deadline.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FipsTopTest {
    /** The pause between two polls of a daemon or a file (each poll may start a process). */
    private static final Duration POLL = Duration.ofMillis(50);

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private final String tmuxSocket = "fipstop-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    private boolean tmuxStarted;

    @AfterEach
    void cleanUp() throws Exception {
        if (tmuxStarted) {
            tmux("kill-server");
        }
        for (final Process p : processes) {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static boolean tmuxInstalled() {
        for (final String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "tmux"))) {
                return true;
            }
        }
        return false;
    }

    private String tmux(final String... args) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>(List.of("tmux", "-L", tmuxSocket, "-f", "/dev/null"));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("tmux " + args[0] + " did not finish");
        }
        return out;
    }

    private List<String> java(final String mainClass) {
        return new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=net.fips.ffm", "-p", System.getProperty("jdk.module.path"), "-m",
                "net.fips.cli/" + mainClass));
    }

    private void daemon(final String name, final Path config) throws IOException {
        final List<String> cmd = java("net.fips.cli.FipsDaemon");
        cmd.addAll(List.of("-c", config.toString()));
        processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile()).start());
    }

    record Ctl(int code, String out, String err) {
    }

    /** fipsctl in process, with a hosts file that does not exist (so names go to the daemon). */
    private Ctl ctl(final Path socket, final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final List<String> all = new ArrayList<>(List.of("--socket", socket.toString(), "--hosts-file",
                dir.resolve("no-hosts").toString()));
        all.addAll(List.of(args));
        return new Ctl(FipsCtl.run(all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err)),
                out.toString(), err.toString());
    }

    private int peerCount(final Path socket) {
        final Ctl r = ctl(socket, "--json", "show", "peers");
        try {
            return r.code() != 0 ? -1 : ControlJson.MAPPER.readTree(r.out()).path("peers").size();
        } catch (final IOException e) {
            return -1;
        }
    }

    /** Polls the pane until it satisfies {@code ok}; fails with the last screen. */
    private String awaitScreen(final String session, final long timeoutMs, final Predicate<String> ok,
                               final String what) throws Exception {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        String screen = "";
        while (System.nanoTime() - deadline < 0) {
            screen = tmux("capture-pane", "-p", "-t", session);
            if (ok.test(screen)) {
                return screen;
            }
            LockSupport.parkNanos(100_000_000L);
        }
        fail("timed out after " + timeoutMs + " ms waiting for " + what + "; screen:\n" + screen);
        return screen;
    }

    /** Starts {@code fipsctl top} in a detached 120x40 tmux session; its exit status lands in {@code exitFile}. */
    private void startTop(final String session, final Path socket, final Path exitFile) throws Exception {
        final List<String> cmd = java("net.fips.cli.FipsCtl");
        cmd.addAll(List.of("--socket", socket.toString(), "top"));
        final StringBuilder sh = new StringBuilder();
        for (final String c : cmd) {
            sh.append('\'').append(c.replace("'", "'\\''")).append("' ");
        }
        sh.append("; echo $? > '").append(exitFile).append("'; exec sleep 600");
        tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", sh.toString());
        tmuxStarted = true;
    }

    private static int awaitExit(final Path exitFile, final long timeoutMs) throws Exception {
        until(Duration.ofMillis(timeoutMs), POLL, () -> {
            try {
                return Files.exists(exitFile) && !Files.readString(exitFile).isBlank();
            } catch (final IOException e) {
                return false;
            }
        }, () -> "fipsctl top to exit");
        return Integer.parseInt(Files.readString(exitFile).strip());
    }

    @Test
    void topShowsTheLiveNodeSwitchesTabsAndQuits_aliasesAndListeningSocketsOnARealDaemon() throws Exception {
        Assumptions.assumeTrue(tmuxInstalled(), "tmux is not installed: skipping the pseudo-terminal test");
        final NodeIdentity a = NodeIdentity.generate();
        final NodeIdentity b = NodeIdentity.generate();
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final Path sa = dir.resolve("a.sock");
        final Path sb = dir.resolve("b.sock");
        daemon("a", DaemonConfig.write(dir, "a", a, pa, b, "bob", pb));
        daemon("b", DaemonConfig.write(dir, "b", b, pb, a, "alice", pa));
        until(Duration.ofSeconds(45), POLL, () -> peerCount(sa) == 1 && peerCount(sb) == 1,
                () -> "both daemons to show one peer");

        // The live view: identity and peer count on the Node tab, the alias on the Peers tab.
        final Path exitA = dir.resolve("top-a.exit");
        startTop("a", sa, exitA);
        final String node = awaitScreen("a", 30_000, s -> s.contains(a.npub()) && s.contains("peers: 1"),
                "the Node tab with a's npub and one peer");
        assertTrue(node.contains("[Node]"), node);
        assertTrue(node.contains("mesh_size"), "sparkline rows from the stats history:\n" + node);
        assertTrue(node.contains("Listening on fips0 (" + a.address() + ")"), node);
        tmux("send-keys", "-t", "a", "Tab");
        // bob's row: RTT and loss measured (loss from the link's ReceiverReports), byte
        // rates once two polls have been taken.
        final Pattern bobRow = Pattern.compile("\\s*bob\\s+connected\\s+127\\.0\\.0"
                + "\\.1:" + pb + "\\s+\\S+\\s+\\S+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+[kM]?\\s+[0-9.]+[kM]?\\s+"
                + b.nodeAddr());
        awaitScreen("a", 15_000, s -> s.contains("[Peers]") && s.contains("Peers: 1")
                && s.lines().anyMatch(l -> bobRow.matcher(l).matches()), "the Peers tab with bob's measured row");
        // Down selects bob: the detail block names his npub.
        tmux("send-keys", "-t", "a", "Down");
        awaitScreen("a", 10_000, s -> s.lines().anyMatch(l -> l.startsWith(">") && l.contains("bob"))
                && s.contains("bob  " + b.npub()), "bob selected, with his detail");
        // Del asks before it disconnects; n keeps the peer.
        tmux("send-keys", "-t", "a", "DC");
        awaitScreen("a", 10_000, s -> s.contains("Disconnect bob (" + b.npub() + ")? y/N"), "the y/N question");
        tmux("send-keys", "-t", "a", "n");
        awaitScreen("a", 10_000, s -> !s.contains("? y/N") && s.contains("Peers: 1"), "the question gone, bob kept");
        tmux("send-keys", "-t", "a", "BTab");
        awaitScreen("a", 10_000, s -> s.contains("[Node]"), "Shift-Tab back to the Node tab");

        // Transports (key 3): a's UDP transport with the link to b underneath, b's alias on it.
        tmux("send-keys", "-t", "a", "3");
        final Pattern link = Pattern.compile("\\s+└─ (out|in ) 127\\.0\\.0\\.1:"
                + pb + "\\s+connected\\s+bob\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+");
        awaitScreen("a", 15_000, s -> s.contains("[Transports]") && s.contains("Transports: 1   Links: 1")
                && s.lines().anyMatch(l -> l.matches(".*udp 127\\.0\\.0\\.1:" + pa + " #\\d+\\s+up\\s+\\d+.*"))
                && s.lines().anyMatch(l -> link.matcher(l).matches()), "the Transports tab with the link to bob");
        // Sessions, Tree, Filters, Performance by number.
        tmux("send-keys", "-t", "a", "4");
        awaitScreen("a", 10_000, s -> s.contains("[Sessions]") && s.contains("Sessions: "), "the Sessions tab");
        tmux("send-keys", "-t", "a", "6");
        awaitScreen("a", 10_000, s -> s.contains("[Filters]") && s.contains("own_node_addr:"), "the Filters tab");
        tmux("send-keys", "-t", "a", "7");
        awaitScreen("a", 10_000, s -> s.contains("[Performance]") && s.contains("> Link MMP: 1")
                && s.lines().anyMatch(l -> l.matches("  bob\\s+\\S+\\s+[0-9.]+\\s.*")),
                "the Performance tab with bob's measured link SRTT");
        tmux("send-keys", "-t", "a", "s");
        awaitScreen("a", 10_000, s -> s.contains("sort: MODE ascending"), "s sorting by the next column");
        // Routing (key 8): the real daemon's counters; bytes it does not count show as '-'.
        tmux("send-keys", "-t", "a", "8");
        awaitScreen("a", 15_000, s -> s.contains("[Routing]") && s.contains("Routing state")
                && s.contains("Coordinate cache") && s.lines().anyMatch(l -> l.matches(
                "local stack tx \\(originated\\)\\s+\\d+\\s+-\\s*")), "the Routing tab");
        // Graphs (g): node metrics plotted, then the window and the two by-peer modes.
        tmux("send-keys", "-t", "a", "g");
        awaitScreen("a", 15_000, s -> s.contains("[Graphs]") && s.contains("mode: node   window: 10m @ 1s")
                && s.contains("mesh_size [nodes]") && s.contains("peer_count [peers]"), "the Graphs tab");
        tmux("send-keys", "-t", "a", "Right");
        awaitScreen("a", 15_000, s -> s.contains("window: 1h @ 1s") && s.contains("samples 3600"),
                "the one-hour window");
        tmux("send-keys", "-t", "a", "m");
        awaitScreen("a", 15_000, s -> s.contains("mode: metric-by-peer [srtt_ms]")
                && s.lines().anyMatch(l -> l.matches("> bob\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+3600\\s.*")),
                "srtt_ms for bob, measured");
        tmux("send-keys", "-t", "a", "m");
        awaitScreen("a", 15_000, s -> s.contains("mode: peer-by-metric [bob]") && s.contains("srtt_ms [ms]")
                && s.contains("bytes_in [bytes/s]"), "every metric of bob");
        // Back on Peers, Del and y disconnect the selected peer: b sees a go.
        tmux("send-keys", "-t", "a", "2");
        awaitScreen("a", 10_000, s -> s.lines().anyMatch(l -> l.startsWith(">") && l.contains("bob")),
                "bob still selected");
        tmux("send-keys", "-t", "a", "DC");
        awaitScreen("a", 10_000, s -> s.contains("? y/N"), "the y/N question");
        tmux("send-keys", "-t", "a", "y");
        awaitScreen("a", 10_000, s -> s.contains("disconnected bob"), "the disconnect's outcome");
        until(Duration.ofSeconds(10), POLL, () -> peerCount(sb) == 0,
                () -> "b to drop a after the disconnect from top");
        tmux("send-keys", "-t", "a", "q");
        assertEquals(0, awaitExit(exitA, 10_000));

        // An unreachable daemon: the view says so and keeps running until q.
        final Path exitNone = dir.resolve("top-none.exit");
        startTop("none", dir.resolve("absent.sock"), exitNone);
        awaitScreen("none", 30_000, s -> s.contains("Disconnected: "), "the Disconnected line");
        assertTrue(!Files.exists(exitNone), "still running while the daemon is unreachable");
        tmux("send-keys", "-t", "none", "q");
        assertEquals(0, awaitExit(exitNone, 10_000));

        // show_listening_sockets on the real daemon: its fips0 address, the reference's keys.
        final Ctl ls = ctl(sa, "--json", "show", "listening-sockets");
        assertEquals(0, ls.code(), ls.err());
        final JsonNode l = ControlJson.MAPPER.readTree(ls.out());
        assertEquals(a.address().toString(), l.path("fips0_addr").asText());
        assertTrue(l.path("sockets").isArray() && l.has("firewall_active"), ls.out());

        // Peers by config alias, resolved by the daemon (a's config names b "bob").
        final Ctl hist = ctl(sa, "--json", "stats", "history", "srtt_ms", "--peer", "BOB", "--window", "5s");
        assertEquals(0, hist.code(), hist.err());
        assertEquals(5, ControlJson.MAPPER.readTree(hist.out()).path("values").size());
        final Ctl unknown = ctl(sa, "disconnect", "carol");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("error: unknown host 'carol'"), unknown.err());
        // b reconnects after a Disconnect (it keeps a in its config), so bob may be back or not yet: either way
        // the alias reaches the daemon as b's npub.
        final Ctl gone = ctl(sa, "--json", "disconnect", "bob");
        if (gone.code() == 0) {
            assertEquals(b.npub(), ControlJson.MAPPER.readTree(gone.out()).path("npub").asText());
            until(Duration.ofSeconds(10), POLL, () -> peerCount(sb) == 0,
                    () -> "b to drop a after the disconnect by alias");
        } else {
            assertEquals(1, gone.code());
            assertTrue(gone.err().startsWith("error: peer not found: " + b.npub()), gone.err());
        }
    }

    @Test
    void withoutATerminalTopExits64() {
        final var saved = TopCommand.isTerminal;
        TopCommand.isTerminal = () -> false;
        try {
            final Ctl r = ctl(dir.resolve("x.sock"), "top");
            assertEquals(FipsCtl.EXIT_USAGE, r.code());
            assertTrue(r.err().startsWith("error: fipsctl top needs a terminal"), r.err());
        } finally {
            TopCommand.isTerminal = saved;
        }
    }
}
