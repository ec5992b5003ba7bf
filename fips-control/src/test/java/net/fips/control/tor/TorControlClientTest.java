package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.testing.FreePorts;

/** The control-port client's bytes on the wire and its error kinds, against a scripted fake control port. */
class TorControlClientTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    @TempDir
    Path dir;

    private static TorControlClient connect(final ScriptedControlPort s) throws TorControlException {
        return TorControlClient.connect(s.address(), TIMEOUT, System::nanoTime);
    }

    @Test
    void cookieAuthSendsTheFileAsLowercaseHex() throws Exception {
        final byte[] cookie = new byte[32];
        for (int i = 0; i < 32; i++) {
            cookie[i] = (byte) (0xA0 + i);
        }
        final Path file = Files.write(dir.resolve("control.authcookie"), cookie);
        try (ScriptedControlPort s = new ScriptedControlPort()
                .expect("AUTHENTICATE " + HexFormat.of().formatHex(cookie) + "\r\n").send("250 OK\r\n").start();
             TorControlClient c = connect(s)) {
            c.authenticate(ControlAuth.parse("cookie", file.toString()));
            assertEquals("ok", s.outcome());
        }
        assertTrue(HexFormat.of().formatHex(cookie).startsWith("a0a1a2"));
    }

    @Test
    void passwordAuthQuotesAndEscapesBackslashAndQuote() throws Exception {
        try (ScriptedControlPort s = new ScriptedControlPort()
                .expect("AUTHENTICATE \"s3cr\\\"t\\\\x\"\r\n").send("250 OK\r\n").start();
             TorControlClient c = connect(s)) {
            c.authenticate(ControlAuth.parse("password:s3cr\"t\\x", "/unused"));
            assertEquals("ok", s.outcome());
        }
    }

    @Test
    void aRefusedAuthenticationIsAuthFailedWithTorsAnswer() throws Exception {
        try (ScriptedControlPort s = new ScriptedControlPort().expect("AUTHENTICATE \"nope\"\r\n")
                .send("515 Authentication failed: Password did not match\r\n").hangUp().start();
             TorControlClient c = connect(s)) {
            final TorControlException e = assertThrows(TorControlException.class,
                    () -> c.authenticate(new ControlAuth.Password("nope")));
            assertEquals(TorControlException.Kind.AUTH_FAILED, e.kind());
            assertTrue(e.getMessage().contains("515 Authentication failed"), e.getMessage());
        }
    }

    @Test
    void anUnusableCookieFileFailsBeforeAnythingIsSent() throws Exception {
        final Path shortCookie = Files.write(dir.resolve("short"), new byte[31]);
        try (ScriptedControlPort s = new ScriptedControlPort().expect("X").start(); TorControlClient c = connect(s)) {
            TorControlException e = assertThrows(TorControlException.class,
                    () -> c.authenticate(new ControlAuth.Cookie(shortCookie)));
            assertEquals(TorControlException.Kind.AUTH_FAILED, e.kind());
            assertTrue(e.getMessage().contains("31 bytes, expected 32"), e.getMessage());
            e = assertThrows(TorControlException.class,
                    () -> c.authenticate(new ControlAuth.Cookie(dir.resolve("missing"))));
            assertEquals(TorControlException.Kind.AUTH_FAILED, e.kind());
        }
    }

    @Test
    void monitoringAsksTheSevenKeysInOrderAndAFailedKeyIsNull() throws Exception {
        try (ScriptedControlPort s = new ScriptedControlPort()
                .getinfo("status/bootstrap-phase",
                        "250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=85 TAG=ap_conn SUMMARY=\"x\"\r\n"
                                + "250 OK\r\n")
                .getinfo("status/circuit-established", "250-status/circuit-established=1\r\n250 OK\r\n")
                .getinfo("traffic/read", "250-traffic/read=18446744073709551615\r\n250 OK\r\n")
                .getinfo("traffic/written", "250-traffic/written=12345\r\n250 OK\r\n")
                .getinfo("network-liveness", "552 Unrecognized key \"network-liveness\"\r\n")
                .getinfo("version", "250+version=\r\n0.4.9.11\r\n.\r\n250 OK\r\n")
                .getinfo("dormant", "250-other=1\r\n250 OK\r\n")
                .start(); TorControlClient c = connect(s)) {
            final TorMonitoring m = c.monitoringSnapshot();
            assertEquals(85, m.bootstrap());
            assertEquals(Boolean.TRUE, m.circuitEstablished());
            assertNull(m.trafficRead(), "above i64: not a value we can show");
            assertEquals(12345L, m.trafficWritten());
            assertNull(m.networkLiveness());
            assertEquals("0.4.9.11", m.version());
            assertNull(m.dormant());
            assertEquals("ok", s.outcome());
            assertEquals("{\"bootstrap\":85,\"circuit_established\":true,\"traffic_read\":null,"
                    + "\"traffic_written\":12345,\"network_liveness\":null,\"version\":\"0.4.9.11\",\"dormant\":null}",
                    m.toJson().toString());
        }
    }

    @Test
    void aClosedOrSilentControlPortIsAnIoError() throws Exception {
        try (ScriptedControlPort s = new ScriptedControlPort().expect("GETINFO version\r\n").hangUp().start();
             TorControlClient c = connect(s)) {
            final TorControlException e = assertThrows(TorControlException.class, c::monitoringSnapshot);
            assertEquals(TorControlException.Kind.IO, e.kind());
        }
        try (ScriptedControlPort s = new ScriptedControlPort().hold().start();
             TorControlClient c = TorControlClient.connect(s.address(), TimeUnit.MILLISECONDS.toNanos(200),
                     System::nanoTime)) {
            final TorControlException e = assertThrows(TorControlException.class, () -> c.getInfo("version"));
            assertEquals(TorControlException.Kind.IO, e.kind());
            assertTrue(e.getMessage().contains("within 200 ms"), e.getMessage());
        }
        try (ScriptedControlPort s = new ScriptedControlPort().expect("GETINFO version\r\n").send("2x0 OK\r\n")
                .start(); TorControlClient c = connect(s)) {
            assertEquals(TorControlException.Kind.PROTOCOL,
                    assertThrows(TorControlException.class, () -> c.getInfo("version")).kind());
        }
    }

    @Test
    void unreachableOrMalformedAddressesAreConnectFailed() throws Exception {
        final int closed = FreePorts.tcp();
        for (final String addr : new String[] {"127.0.0.1:" + closed, dir.resolve("no.sock").toString(),
            "127.0.0.1", "127.0.0.1:0", "127.0.0.1:x", ":9051"}) {
            final TorControlException e = assertThrows(TorControlException.class,
                    () -> TorControlClient.connect(addr, TIMEOUT, System::nanoTime), addr);
            assertEquals(TorControlException.Kind.CONNECT_FAILED, e.kind(), addr);
        }
    }

    @Test
    void aUnixSocketPathConnectsOverAfUnix() throws Exception {
        final Path sock = dir.resolve("control");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            Thread.ofVirtual().start(() -> {
                try (SocketChannel ch = server.accept()) {
                    final ByteBuffer cmd = ByteBuffer.allocate("GETINFO dormant\r\n".length());
                    while (cmd.hasRemaining() && ch.read(cmd) > 0) {
                        // read the whole command
                    }
                    if ("GETINFO dormant\r\n".equals(new String(cmd.array(), StandardCharsets.US_ASCII))) {
                        ch.write(ByteBuffer.wrap("250-dormant=1\r\n250 OK\r\n".getBytes(StandardCharsets.US_ASCII)));
                    }
                } catch (final IOException ignored) {
                    // the test fails on its own
                }
            });
            try (TorControlClient c = TorControlClient.connect(sock.toString(), TIMEOUT, System::nanoTime)) {
                assertEquals("1", c.getInfo("dormant"));
            }
        }
    }
}
