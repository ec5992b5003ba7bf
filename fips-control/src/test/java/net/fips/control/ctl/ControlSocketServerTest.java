package net.fips.control.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

/** Framing, error strings, limits, slow clients and socket-file lifecycle of {@link ControlSocketServer}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ControlSocketServerTest {

    private static final String STATUS = "{\"command\":\"show_status\"}";

    @TempDir
    Path dir;

    private ControlSocketServer start(final Duration ioTimeout) throws Exception {
        return ControlSocketServer.start(dir.resolve("control.sock"), new FakeControlApi(),
                ControlSocketServer.Options.DEFAULTS.withIoTimeout(ioTimeout));
    }

    private static String message(final JsonNode response) {
        assertEquals("error", response.get("status").asText(), () -> "expected an error: " + response);
        assertFalse(response.has("data"));
        return response.get("message").asText();
    }

    @Test
    void errorStringsMatchTheReference() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(10))) {
            final Path p = s.path();
            assertEquals("unknown command: frobnicate", message(ControlTestSupport.ask(p,
                    "{\"command\":\"frobnicate\"}")));
            assertEquals("missing params for connect", message(ControlTestSupport.ask(p,
                    "{\"command\":\"connect\"}")));
            assertEquals("missing params for disconnect", message(ControlTestSupport.ask(p,
                    "{\"command\":\"disconnect\",\"params\":null}")));
            assertEquals("missing 'address' parameter", message(ControlTestSupport.ask(p,
                    "{\"command\":\"connect\",\"params\":{\"npub\":\"npub1x\",\"transport\":\"udp\"}}")));
            assertEquals("missing 'npub' parameter", message(ControlTestSupport.ask(p,
                    "{\"command\":\"disconnect\",\"params\":{\"npub\":7}}")));
            assertEquals("missing 'npub' parameter", message(ControlTestSupport.ask(p,
                    "{\"command\":\"disconnect\",\"params\":\"npub1x\"}")));
            assertTrue(message(ControlTestSupport.ask(p, "{\"command\":\"disconnect\",\"params\":{\"npub\":"
                    + "\"npub1zzz\"}}")).startsWith("invalid npub 'npub1zzz': "));
            assertEquals("invalid request: missing field `command`", message(ControlTestSupport.ask(p,
                    "{\"not_command\":\"foo\"}")));
        }
    }

    @Test
    void malformedJsonIsAnInvalidRequest() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(10))) {
            for (final String bad : List.of("{\"command\":", "not json", "[1,2]", "\"show_status\"",
                    STATUS + " trailing", "{\"command\":42}")) {
                assertTrue(message(ControlTestSupport.ask(s.path(), bad)).startsWith("invalid request: "), bad);
            }
            final byte[] notUtf8 = {'{', (byte) 0xC3, (byte) 0x28, '}', '\n'};
            assertEquals("read error: stream did not contain valid UTF-8",
                    message(ControlJson.MAPPER.readTree(ControlTestSupport.exchangeRaw(s.path(), notUtf8))));
            assertEquals(0, s.stats().okResponses());
        }
    }

    @Test
    void emptyRequestAndHalfCloseWithoutNewline() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(10))) {
            assertEquals("empty request",
                    message(ControlJson.MAPPER.readTree(ControlTestSupport.exchangeRaw(s.path(), new byte[0]))));
            final JsonNode ok = ControlJson.MAPPER.readTree(ControlTestSupport.exchangeRaw(s.path(),
                    STATUS.getBytes(StandardCharsets.UTF_8)));
            assertEquals("ok", ok.get("status").asText());
            assertEquals("running", ok.get("data").get("state").asText());
        }
    }

    @Test
    void lineLimitCountsTheNewlineAndOversizeIsACountedError() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(10))) {
            // Exactly 4096 bytes with the newline: accepted (whitespace padding is legal JSON).
            final String atLimit = STATUS + " ".repeat(4095 - STATUS.length());
            assertEquals("ok", ControlTestSupport.ask(s.path(), atLimit).get("status").asText());
            final String over = atLimit + " ";
            assertEquals("read error: request too large", message(ControlTestSupport.ask(s.path(), over)));
            // A huge line without a newline is cut off at the limit, not buffered.
            final byte[] huge = new byte[1 << 20];
            Arrays.fill(huge, (byte) 'x');
            try (SocketChannel ch = ControlTestSupport.connect(s.path())) {
                final ByteBuffer b = ByteBuffer.wrap(huge, 0, 8192);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                assertEquals("read error: request too large",
                        message(ControlJson.MAPPER.readTree(ControlTestSupport.readAll(ch))));
            }
            assertEquals(2, s.stats().tooLarge());
        }
    }

    @Test
    void stuckClientDoesNotBlockOthersAndTimesOut() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(2))) {
            try (SocketChannel stuck = ControlTestSupport.connect(s.path())) {
                // While the first client holds its connection silently, others are served.
                for (int i = 0; i < 3; i++) {
                    assertEquals("ok", ControlTestSupport.ask(s.path(), STATUS).get("status").asText());
                }
                assertTrue(stuck.isConnected());
                // The silent client gets the reference's timeout error when its deadline passes.
                assertEquals("read timeout", message(ControlJson.MAPPER.readTree(ControlTestSupport.readAll(stuck))));
            }
            assertEquals(1, s.stats().timeouts());
        }
    }

    @Test
    void servesManyClientsConcurrently() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(10));
             ExecutorService pool = Executors.newFixedThreadPool(8)) {
            final List<Future<JsonNode>> answers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                final String cmd = i % 2 == 0 ? STATUS : "{\"command\":\"show_links\"}";
                answers.add(pool.submit(() -> ControlTestSupport.ask(s.path(), cmd)));
            }
            for (final Future<JsonNode> f : answers) {
                assertEquals("ok", f.get().get("status").asText());
            }
            assertEquals(40, s.stats().okResponses());
        }
    }

    @Test
    void socketModeIs0770AndFileIsRemovedOnClose() throws Exception {
        final ControlSocketServer s = start(Duration.ofSeconds(5));
        final Path p = s.path();
        assertTrue(Files.exists(p));
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        s.close();
        assertFalse(Files.exists(p));
        s.close();
        assertThrows(IOException.class, () -> ControlTestSupport.connect(p));
    }

    @Test
    void createsMissingParentDirectory() throws Exception {
        final Path p = dir.resolve("run/fips/control.sock");
        try (ControlSocketServer s = ControlSocketServer.start(p, new FakeControlApi())) {
            assertEquals("ok", ControlTestSupport.ask(s.path(), STATUS).get("status").asText());
        }
    }

    @Test
    void staleSocketFileIsReplaced() throws Exception {
        final Path p = dir.resolve("control.sock");
        // A daemon that died without cleaning up leaves a socket file nobody listens on.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(p));
        }
        assertTrue(Files.exists(p));
        try (ControlSocketServer s = ControlSocketServer.start(p, new FakeControlApi())) {
            assertEquals("ok", ControlTestSupport.ask(s.path(), STATUS).get("status").asText());
        }
    }

    @Test
    void refusesWhenAnotherDaemonAnswers() throws Exception {
        try (ControlSocketServer first = start(Duration.ofSeconds(5))) {
            final ControlSocketException e = assertThrows(ControlSocketException.class,
                    () -> ControlSocketServer.start(first.path(), new FakeControlApi()));
            assertTrue(e.getMessage().startsWith("control socket " + first.path() + " is already in use by a running"
                    + " daemon"), e.getMessage());
            final ControlSocketException pre = assertThrows(ControlSocketException.class,
                    () -> ControlSocketServer.requireNotInUse(first.path()));
            assertEquals(e.getMessage(), pre.getMessage());
            // The first daemon keeps its socket.
            assertEquals("ok", ControlTestSupport.ask(first.path(), STATUS).get("status").asText());
        }
    }

    @Test
    void refusesToDeleteANonSocketFile() throws Exception {
        final Path p = dir.resolve("control.sock");
        Files.writeString(p, "precious");
        assertThrows(ControlSocketException.class, () -> ControlSocketServer.start(p, new FakeControlApi()));
        assertEquals("precious", Files.readString(p));
    }

    @Test
    void failingApiCostsOneErrorResponse() throws Exception {
        final FakeControlApi broken = new FakeControlApi() {
            @Override
            public List<LinkSnapshot> showLinks() {
                throw new IllegalStateException("boom");
            }
        };
        try (ControlSocketServer s = ControlSocketServer.start(dir.resolve("c.sock"), broken)) {
            assertEquals("internal error: IllegalStateException: boom",
                    message(ControlTestSupport.ask(s.path(), "{\"command\":\"show_links\"}")));
            assertEquals("ok", ControlTestSupport.ask(s.path(), STATUS).get("status").asText());
        }
    }

    @Test
    void clientReportsResponsesAndConnectFailures() throws Exception {
        try (ControlSocketServer s = start(Duration.ofSeconds(5))) {
            final ControlClient c = new ControlClient(s.path(), Duration.ofSeconds(5));
            assertEquals("running", c.send("show_status", null).get("data").get("state").asText());
            final var params = ControlJson.MAPPER.createObjectNode().put("npub", "npub1nope");
            assertEquals("error", c.send("disconnect", params).get("status").asText());
        }
        final Path missing = dir.resolve("nothing-here.sock");
        final ControlClientException e = assertThrows(ControlClientException.class,
                () -> new ControlClient(missing, Duration.ofSeconds(1)).send("show_status", null));
        assertEquals(ControlClientException.Kind.CONNECT, e.kind());
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("Is the FIPS daemon running?"), e.getMessage());

        // A path that exists but is no socket is said to be one, not a stale socket (issue 19).
        final Path plain = Files.writeString(dir.resolve("plain.txt"), "x");
        final ControlClientException file = assertThrows(ControlClientException.class,
                () -> new ControlClient(plain, Duration.ofSeconds(1)).send("show_status", null));
        assertEquals(ControlClientException.Kind.CONNECT, file.kind());
        assertTrue(file.getMessage().contains(plain + " is not a socket but a regular file"), file.getMessage());
        assertFalse(file.getMessage().contains("stale"), file.getMessage());
        final ControlClientException folder = assertThrows(ControlClientException.class,
                () -> new ControlClient(dir, Duration.ofSeconds(1)).send("show_status", null));
        assertTrue(folder.getMessage().contains(dir + " is not a socket but a directory"), folder.getMessage());
    }

    @Test
    void clientTimesOutOnADaemonThatNeverAnswers() throws Exception {
        final Path p = dir.resolve("mute.sock");
        try (ServerSocketChannel mute = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            mute.bind(UnixDomainSocketAddress.of(p));
            final CompletableFuture<SocketChannel> held = CompletableFuture.supplyAsync(() -> {
                try {
                    return mute.accept();
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            final ControlClientException e = assertThrows(ControlClientException.class,
                    () -> new ControlClient(p, Duration.ofMillis(300)).send("show_status", null));
            assertEquals(ControlClientException.Kind.IO, e.kind());
            held.get().close();
        }
    }
}
