package net.fips.control.node;

import static net.fips.testing.Await.until;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Debian's {@code microsocks} on loopback, the SOCKS5 proxy the Tor and Nym node tests dial through. */
final class Microsocks {
    private static final Path BINARY = Path.of("/usr/bin/microsocks");

    private Microsocks() {
    }

    /**
     * Starts microsocks on {@code 127.0.0.1:port} and waits until it accepts; skips the test when not installed.
     *
     * @param port the TCP port
     * @return the process (the caller kills it)
     * @throws Exception when it cannot be started
     */
    static Process start(final int port) throws Exception {
        assumeTrue(Files.isExecutable(BINARY), "microsocks is not installed (apt-get install microsocks)");
        final Process p = new ProcessBuilder(BINARY.toString(), "-i", "127.0.0.1", "-p", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        until(Duration.ofSeconds(10), () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return true;
            } catch (final IOException e) {
                return false;
            }
        }, () -> "microsocks did not start on " + port);
        return p;
    }
}
