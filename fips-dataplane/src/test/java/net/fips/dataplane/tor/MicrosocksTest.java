package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.net.StandardSocketOptions;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Assertions;

import net.fips.testing.FreePorts;

/**
 * The dial through a real SOCKS5 server: Debian's {@code microsocks} on a free loopback port, relaying to a TCP
 * echo listener in this test (transports.md §8.5). Skipped when microsocks is not installed.
 */
class MicrosocksTest {
    private static final Path MICROSOCKS = Path.of("/usr/bin/microsocks");
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    private final List<Process> processes = new ArrayList<>();
    private ServerSocket echo;

    @AfterEach
    void stop() throws IOException {
        for (final Process p : processes) {
            p.destroyForcibly();
        }
        if (echo != null) {
            echo.close();
        }
    }

    @Test
    void noAuthProxyRelaysToALoopbackListener() throws Exception {
        final InetSocketAddress proxy = startMicrosocks();
        final int port = startEcho();
        roundTrip(proxy, Socks5Handshake.tor(TorAddress.parse("127.0.0.1:" + port)));
        roundTrip(proxy, Socks5Handshake.noAuth(TorAddress.parse("127.0.0.1:" + port)));
    }

    /** microsocks with -u/-P picks method 02, and only our exact credentials (fips, the address text) pass. */
    @Test
    void passwordProxyAcceptsTheIsolationCredentials() throws Exception {
        final int port = startEcho();
        final String dest = "127.0.0.1:" + port;
        final InetSocketAddress proxy = startMicrosocks("-u", Socks5Handshake.USERNAME, "-P", dest);
        roundTrip(proxy, Socks5Handshake.tor(TorAddress.parse(dest)));
        // Nym offers only no-auth: this proxy accepts none of it.
        final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                Socks5Dialer.dial(proxy, Socks5Handshake.noAuth(TorAddress.parse(dest)), TIMEOUT, System::nanoTime));
        assertEquals(Socks5Failure.NO_ACCEPTABLE_METHOD, f.failure());
        // Another destination's text is another password: rejected.
        final InetSocketAddress proxy2 = startMicrosocks("-u", Socks5Handshake.USERNAME, "-P", "other.example:1");
        final Socks5Dialer.Failed g = assertInstanceOf(Socks5Dialer.Failed.class,
                Socks5Dialer.dial(proxy2, Socks5Handshake.tor(TorAddress.parse(dest)), TIMEOUT, System::nanoTime));
        assertEquals(Socks5Failure.AUTH_FAILED, g.failure());
    }

    @Test
    void aClosedDestinationPortIsConnectRefused() throws Exception {
        final InetSocketAddress proxy = startMicrosocks();
        final int closed = FreePorts.tcp();
        final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class, Socks5Dialer.dial(proxy,
                Socks5Handshake.tor(TorAddress.parse("127.0.0.1:" + closed)), TIMEOUT, System::nanoTime));
        assertEquals(Socks5Failure.CONNECTION_REFUSED, f.failure());
        assertEquals(Socks5Failure.Counter.CONNECT_REFUSED, f.failure().counter());
    }

    /** The connect step: counts failures, sets the fixed stream options on success. */
    @Test
    void theConnectorConfiguresTheStreamAndCountsFailures() throws Exception {
        final InetSocketAddress proxy = startMicrosocks();
        final int port = startEcho();
        final TorCounters counters = new TorCounters();
        final TorConnector connector = new TorConnector("127.0.0.1:" + proxy.getPort(), TIMEOUT, true, counters,
                System::nanoTime);
        final Socks5Dialer.Connected c = assertInstanceOf(Socks5Dialer.Connected.class,
                connector.connect(("127.0.0.1:" + port).getBytes(StandardCharsets.UTF_8)));
        try (SocketChannel ch = c.channel()) {
            assertEquals(Boolean.TRUE, ch.getOption(StandardSocketOptions.TCP_NODELAY));
            assertEquals(Boolean.TRUE, ch.getOption(StandardSocketOptions.SO_KEEPALIVE));
            assertEquals(TorConnector.KEEPIDLE_SECS, ch.getOption(ExtendedSocketOptions.TCP_KEEPIDLE));
        }
        final int closed = FreePorts.tcp();
        connector.connect(("127.0.0.1:" + closed).getBytes(StandardCharsets.UTF_8));
        assertEquals(1, counters.connectRefused());
        new TorConnector("127.0.0.1:" + closed, TIMEOUT, true, counters, System::nanoTime)
                .connect(("127.0.0.1:" + port).getBytes(StandardCharsets.UTF_8));
        assertEquals(1, counters.socks5Errors(), "an unreachable proxy is a socks5 error");
        assertEquals(0, counters.connectTimeouts());
        Assertions.assertThrows(TorAddressException.class,
                () -> connector.connect("localhost:1".getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, counters.connectRefused() + counters.socks5Errors(), "a bad address is not counted");
    }

    private static void roundTrip(final InetSocketAddress proxy, final Socks5Handshake hs) throws IOException {
        final Socks5Dialer.Outcome o = Socks5Dialer.dial(proxy, hs, TIMEOUT, System::nanoTime);
        final Socks5Dialer.Connected c = assertInstanceOf(Socks5Dialer.Connected.class, o, o::toString);
        try (SocketChannel ch = c.channel()) {
            final byte[] msg = "through microsocks".getBytes(StandardCharsets.US_ASCII);
            ch.write(ByteBuffer.wrap(msg));
            final ByteBuffer back = ByteBuffer.allocate(msg.length);
            back.put(c.early());
            while (back.hasRemaining()) {
                assertTrue(ch.read(back) > 0, "echo closed early");
            }
            assertEquals("through microsocks", new String(back.array(), StandardCharsets.US_ASCII));
        }
    }

    private int startEcho() throws IOException {
        echo = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        final ServerSocket ss = echo;
        Thread.ofVirtual().name("echo").start(() -> {
            while (!ss.isClosed()) {
                try {
                    final Socket s = ss.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (final IOException ignored) {
                            // the test closed it
                        }
                    });
                } catch (final IOException e) {
                    return;
                }
            }
        });
        return ss.getLocalPort();
    }

    /** Starts microsocks on a free loopback port and waits (bounded) until it accepts connections. */
    private InetSocketAddress startMicrosocks(final String... extra) throws Exception {
        assumeTrue(Files.isExecutable(MICROSOCKS), "microsocks is not installed (apt-get install microsocks)");
        for (int attempt = 0; attempt < 5; attempt++) {
            final int port = FreePorts.tcp();
            final List<String> cmd = new ArrayList<>(List.of(MICROSOCKS.toString(), "-i", "127.0.0.1", "-p",
                    Integer.toString(port)));
            cmd.addAll(List.of(extra));
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            processes.add(p);
            final InetSocketAddress addr = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (p.isAlive() && System.nanoTime() < deadline) {
                try (Socket probe = new Socket()) {
                    probe.connect(addr, 200);
                    return addr;
                } catch (final IOException notYet) {
                    p.waitFor(20, TimeUnit.MILLISECONDS);
                }
            }
            p.destroyForcibly();
        }
        throw new AssertionError("microsocks did not start listening");
    }
}
