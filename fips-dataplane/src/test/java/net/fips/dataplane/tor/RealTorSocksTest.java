package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SOCKS5 exchange against a real tor (transports.md §8.5). Tor closes its SocksPort under
 * {@code DisableNetwork 1}, so it runs with the network enabled inside its own network namespace that has only
 * {@code lo} (nothing can leave the machine), and listens on a Unix-socket SocksPort ({@code IsolateSOCKSAuth})
 * that this test reaches through the file system. Tor picks username/password for our greeting, accepts the
 * isolation credentials, rejects what it cannot route, and never completes a CONNECT to an onion service (no
 * circuits): that dial times out and counts as {@code connect_timeouts}. Needs root for the namespace; skipped
 * with the reason otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealTorSocksTest {
    private static final Path TOR = Path.of("/usr/sbin/tor");
    private static final Path IP = Path.of("/usr/sbin/ip");

    @TempDir
    static Path dir;

    private final String netns = "fips-tor-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    private boolean netnsCreated;
    private Process tor;
    private UnixDomainSocketAddress socks;
    private String onion;
    private String startProblem;

    @BeforeAll
    void start() throws Exception {
        if (!Files.isExecutable(TOR) || !Files.isExecutable(IP)) {
            startProblem = "tor or ip is not installed";
            return;
        }
        if (!"0".equals(run("id", "-u").strip())) {
            startProblem = "needs root for a network namespace";
            return;
        }
        if (!run(IP.toString(), "netns", "add", netns).isEmpty()) {
            startProblem = "cannot create a network namespace";
            return;
        }
        netnsCreated = true;
        run(IP.toString(), "-n", netns, "link", "set", "lo", "up");
        final var priv = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
        final Path data = Files.createDirectory(dir.resolve("data"), priv);
        final Path sockDir = Files.createDirectory(dir.resolve("s"), priv);
        final Path hs = dir.resolve("hs");
        final Path sock = sockDir.resolve("socks");
        socks = UnixDomainSocketAddress.of(sock);
        final Path torrc = Files.writeString(dir.resolve("torrc"), String.join("\n", List.of(
                "DataDirectory " + data,
                "SocksPort unix:" + sock + " IsolateSOCKSAuth",
                "HiddenServiceDir " + hs,
                "HiddenServicePort 443 127.0.0.1:8443",
                "Log notice stdout")) + "\n");
        final Path log = dir.resolve("tor.log");
        tor = new ProcessBuilder(IP.toString(), "netns", "exec", netns, TOR.toString(), "-f", torrc.toString(),
                "--defaults-torrc", "/dev/null").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        final Path hostname = hs.resolve("hostname");
        while (System.nanoTime() < deadline) {
            if (!tor.isAlive()) {
                startProblem = "tor exited at startup: " + String.join(" | ", Files.readAllLines(log));
                return;
            }
            if (Files.exists(sock) && Files.exists(hostname) && Files.size(hostname) > 0) {
                onion = Files.readString(hostname, StandardCharsets.US_ASCII).strip();
                return;
            }
            tor.waitFor(50, TimeUnit.MILLISECONDS);
        }
        startProblem = "tor did not open its SocksPort within 30 s";
    }

    @AfterAll
    void stop() throws Exception {
        if (tor != null) {
            tor.destroy();
            if (!tor.waitFor(10, TimeUnit.SECONDS)) {
                tor.destroyForcibly();
                tor.waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (netnsCreated) {
            run(IP.toString(), "netns", "del", netns);
        }
    }

    private void assumeTor() {
        assumeTrue(startProblem == null, () -> "skipped: " + startProblem);
    }

    @Test
    void torPicksPasswordAuthAcceptsTheIsolationKeyAndNeverCompletesAnOnionConnect() throws Exception {
        assumeTor();
        final Socks5Handshake hs = Socks5Handshake.tor(TorAddress.parse(onion + ":443"));
        final TorCounters counters = new TorCounters();
        final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                Socks5Dialer.dial(socks, hs, TimeUnit.MILLISECONDS.toNanos(1500), System::nanoTime));
        assertTrue(hs.connectSent(), "greeting and auth were accepted: " + f);
        assertEquals(Socks5Failure.TIMEOUT, f.failure(), f.detail());
        counters.record(f.failure());
        assertEquals(1, counters.connectTimeouts());
    }

    @Test
    void torRefusesWhatItCannotRouteWithAReplyCode() throws Exception {
        assumeTor();
        // A malformed onion name and a private address: tor answers at once with reply 01.
        for (final String dest : List.of("x".repeat(56) + ".onion:443", "127.0.0.1:80")) {
            final Socks5Handshake hs = Socks5Handshake.tor(TorAddress.parse(dest));
            final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                    Socks5Dialer.dial(socks, hs, TimeUnit.SECONDS.toNanos(10), System::nanoTime));
            assertTrue(hs.connectSent(), dest);
            assertEquals(Socks5Failure.GENERAL_FAILURE, f.failure(), dest + ": " + f.detail());
            assertEquals(Socks5Failure.Counter.SOCKS5_ERRORS, f.failure().counter());
        }
        // Nym's no-auth greeting is accepted as well (tor offers both methods).
        final Socks5Handshake nym = Socks5Handshake.noAuth(TorAddress.parse("127.0.0.1:80"));
        final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                Socks5Dialer.dial(socks, nym, TimeUnit.SECONDS.toNanos(10), System::nanoTime));
        assertTrue(nym.connectSent());
        assertEquals(Socks5Failure.GENERAL_FAILURE, f.failure());
    }

    private static String run(final String... cmd) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return out;
    }
}
