package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import net.fips.dataplane.tor.TorAddress;
import net.fips.testing.FreePorts;

/**
 * The control-port client and directory mode against a real, offline {@code tor} (transports.md §8.5): a private
 * DataDirectory, {@code DisableNetwork 1}, a ControlPort on a free loopback port and a ControlSocket, cookie and
 * hashed-password authentication, and a HiddenServiceDir whose hostname file tor writes at startup. Nothing
 * leaves the machine. Skipped with the reason when tor is not installed or cannot start here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealTorTest {
    private static final Path TOR = Path.of("/usr/sbin/tor");
    private static final String PASSWORD = "fips \"test\" \\ pw";
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    @TempDir
    static Path dir;

    private Process tor;
    private String controlAddr;
    private Path controlSocket;
    private Path cookie;
    private Path hostname;
    private String startProblem;

    @BeforeAll
    void startTor() throws Exception {
        if (!Files.isExecutable(TOR)) {
            startProblem = "tor is not installed (apt-get install tor)";
            return;
        }
        final Path data = Files.createDirectory(dir.resolve("data"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        final Path ctl = Files.createDirectory(dir.resolve("ctl"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        final Path hs = dir.resolve("hs");
        controlSocket = ctl.resolve("control");
        cookie = dir.resolve("control.authcookie");
        hostname = hs.resolve("hostname");
        final int controlPort = FreePorts.tcp();
        controlAddr = "127.0.0.1:" + controlPort;
        final String hash = hashPassword();
        if (hash == null) {
            startProblem = "tor --hash-password gave no hash";
            return;
        }
        final Path torrc = Files.writeString(dir.resolve("torrc"), String.join("\n", List.of(
                "DataDirectory " + data,
                "DisableNetwork 1",
                "SocksPort 0",
                "ControlPort " + controlAddr,
                "ControlSocket " + controlSocket,
                "CookieAuthentication 1",
                "CookieAuthFile " + cookie,
                "HashedControlPassword " + hash,
                "HiddenServiceDir " + hs,
                "HiddenServicePort 443 127.0.0.1:" + FreePorts.tcp(),
                "Log notice stdout")) + "\n");
        final Path log = dir.resolve("tor.log");
        tor = new ProcessBuilder(TOR.toString(), "-f", torrc.toString(), "--defaults-torrc", "/dev/null")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!tor.isAlive()) {
                startProblem = "tor exited at startup: " + tail(log);
                return;
            }
            if (Files.exists(hostname) && Files.exists(cookie) && Files.exists(controlSocket) && accepts(controlPort)) {
                return;
            }
            tor.waitFor(50, TimeUnit.MILLISECONDS);
        }
        startProblem = "tor did not open its control port within 30 s: " + tail(log);
    }

    @AfterAll
    void stopTor() throws InterruptedException {
        if (tor != null) {
            tor.destroy();
            if (!tor.waitFor(10, TimeUnit.SECONDS)) {
                tor.destroyForcibly();
            }
        }
    }

    private void assumeTor() {
        assumeTrue(startProblem == null, () -> "skipped: " + startProblem);
    }

    @Test
    void cookieAuthOverTcpThenMonitoringOfAnOfflineTor() throws Exception {
        assumeTor();
        try (TorControlClient c = TorControlClient.connect(controlAddr, TIMEOUT, System::nanoTime)) {
            c.authenticate(ControlAuth.parse("cookie", cookie.toString()));
            final TorMonitoring m = c.monitoringSnapshot();
            assertEquals(0, m.bootstrap(), m.toString());
            assertEquals(Boolean.FALSE, m.circuitEstablished());
            assertEquals("down", m.networkLiveness());
            assertNotNull(m.trafficRead());
            assertNotNull(m.trafficWritten());
            assertNotNull(m.dormant());
            assertEquals(torVersion(), m.version());
            final TorMonitor monitor = new TorMonitor(0);
            assertTrue(monitor.onSnapshot(m, 1).isEmpty(), "nothing to log at 0%");
            assertTrue(monitor.onSnapshot(m, TorMonitor.STALL_NANOS + 2).get(0).warning());
            final TorControlException e = assertThrows(TorControlException.class, () -> c.getInfo("no/such/key"));
            assertEquals(TorControlException.Kind.PROTOCOL, e.kind());
            assertTrue(e.getMessage().contains("552"), e.getMessage());
        }
    }

    @Test
    void cookieAuthOverTheUnixControlSocketWithAnExplicitCookiePath() throws Exception {
        assumeTor();
        try (TorControlClient c = TorControlClient.connect(controlSocket.toString(), TIMEOUT, System::nanoTime)) {
            c.authenticate(ControlAuth.parse("cookie:" + cookie, "/nonexistent"));
            assertEquals("down", c.getInfo("network-liveness"));
        }
    }

    @Test
    void hashedPasswordAuthAcceptsTheRightPasswordOnly() throws Exception {
        assumeTor();
        try (TorControlClient c = TorControlClient.connect(controlAddr, TIMEOUT, System::nanoTime)) {
            c.authenticate(ControlAuth.parse("password:" + PASSWORD, "/unused"));
            assertEquals("0", c.getInfo("status/circuit-established"));
        }
        try (TorControlClient c = TorControlClient.connect(controlAddr, TIMEOUT, System::nanoTime)) {
            final TorControlException e = assertThrows(TorControlException.class,
                    () -> c.authenticate(ControlAuth.parse("password:wrong", "/unused")));
            assertEquals(TorControlException.Kind.AUTH_FAILED, e.kind());
            assertTrue(e.getMessage().contains("515"), e.getMessage());
        }
    }

    /** Directory mode: the node reads the name tor wrote into HiddenServiceDir/hostname (§6.5 step 1). */
    @Test
    void directoryModeReadsTheOnionNameTorWrote() throws Exception {
        assumeTor();
        final String onion = OnionHostname.read(hostname);
        assertEquals(62, onion.length(), onion);
        assertTrue(onion.matches("[a-z2-7]{56}\\.onion"), onion);
        assertEquals(onion + "\n", Files.readString(hostname, StandardCharsets.US_ASCII));
        final TorAddress a = TorAddress.parse(onion + ":443");
        assertEquals(TorAddress.Kind.ONION, a.kind());
        assertEquals(onion, a.host());
    }

    private static boolean accepts(final int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (final IOException e) {
            return false;
        }
    }

    private static String run(final String... cmd) throws Exception {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "";
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private static String hashPassword() throws Exception {
        for (final String line : run(TOR.toString(), "--quiet", "--hash-password", PASSWORD).split("\n")) {
            if (line.startsWith("16:")) {
                return line.strip();
            }
        }
        return null;
    }

    /** @return the version tor prints, e.g. {@code 0.4.9.11} ("Tor version 0.4.9.11.") */
    private static String torVersion() throws Exception {
        final String v = run(TOR.toString(), "--version").lines().findFirst().orElse("");
        return v.replaceFirst("^Tor version ", "").replaceFirst("\\.$", "").strip();
    }

    private static String tail(final Path log) throws IOException {
        final List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }
}
