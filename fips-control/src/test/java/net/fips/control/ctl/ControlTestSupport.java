package net.fips.control.ctl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;

/** Raw socket helpers for the control socket tests: what a client such as {@code nc -U} does. */
final class ControlTestSupport {
    private ControlTestSupport() {
    }

    /** Opens a blocking client connection. */
    static SocketChannel connect(final Path socket) throws IOException {
        final SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(socket));
        return ch;
    }

    /** Writes {@code raw}, half-closes, reads to end of stream. */
    static String exchangeRaw(final Path socket, final byte[] raw) throws IOException {
        try (SocketChannel ch = connect(socket)) {
            final ByteBuffer b = ByteBuffer.wrap(raw);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.shutdownOutput();
            return readAll(ch);
        }
    }

    /** Reads everything the server sends until it closes. */
    static String readAll(final SocketChannel ch) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteBuffer buf = ByteBuffer.allocate(4096);
        while (ch.read(buf.clear()) >= 0) {
            out.write(buf.array(), 0, buf.position());
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Sends one line and parses the one-line response, checking the framing. */
    static JsonNode ask(final Path socket, final String line) throws IOException {
        final String text = exchangeRaw(socket, (line + "\n").getBytes(StandardCharsets.UTF_8));
        if (!text.endsWith("\n") || text.indexOf('\n') != text.length() - 1) {
            throw new AssertionError("response is not exactly one line: " + text);
        }
        return ControlJson.MAPPER.readTree(text);
    }

    /** Loads a golden file from this package's {@code golden/} resources. */
    static JsonNode golden(final String name) {
        try (InputStream in = ControlTestSupport.class.getResourceAsStream("golden/" + name + ".json")) {
            if (in == null) {
                throw new AssertionError("missing golden file golden/" + name + ".json");
            }
            return ControlJson.MAPPER.readTree(in);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
