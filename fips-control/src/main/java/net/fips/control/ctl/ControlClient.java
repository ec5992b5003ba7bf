package net.fips.control.ctl;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Sends one request to a control socket and returns the response envelope: connect, write the request line,
 * half-close, read one line, close. Works against this daemon and the reference's.
 */
public final class ControlClient {

    /** The reference client's send and receive timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    // Responses list whole peer tables; bound them generously but finitely.
    private static final int MAX_RESPONSE_BYTES = 64 << 20;

    private final Path socket;
    private final Duration timeout;

    /**
     * @param socket  the daemon's control socket
     * @param timeout deadline for writing the request and again for reading the response
     */
    public ControlClient(final Path socket, final Duration timeout) {
        this.socket = Objects.requireNonNull(socket, "socket");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** @return the socket this client talks to */
    public Path socket() {
        return socket;
    }

    /**
     * Sends {@code {"command": command, "params": params}}.
     *
     * @param command command name
     * @param params  parameters object, or null to send none
     * @return the response envelope ({@code status} plus {@code data} or {@code message})
     * @throws ControlClientException when there is no usable response
     */
    public ObjectNode send(final String command, final JsonNode params) throws ControlClientException {
        final ObjectNode req = ControlJson.MAPPER.createObjectNode();
        req.put("command", command);
        if (params != null) {
            req.set("params", params);
        }
        final byte[] line = (ControlJson.compact(req) + "\n").getBytes(StandardCharsets.UTF_8);
        return parse(exchange(line));
    }

    /**
     * Sends one request line and returns the response line, without interpreting either: what {@link #send} does
     * around its JSON, for a caller that reads and writes JSON without Jackson's mapper (fipsctl's quick path).
     *
     * @param line the request: one line of JSON ending in {@code \n}
     * @return the response line without its newline; never empty
     * @throws ControlClientException when there is no response
     */
    public byte[] exchange(final byte[] line) throws ControlClientException {
        final SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (final IOException e) {
            throw new ControlClientException(ControlClientException.Kind.IO, "cannot open a socket: " + e, e);
        }
        try (ch) {
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (final IOException e) {
                throw connectFailure(e);
            }
            final byte[] answer;
            try (ChannelIo io = new ChannelIo(ch)) {
                io.writeAll(ByteBuffer.wrap(line), System.nanoTime() + timeout.toNanos());
                ch.shutdownOutput();
                answer = io.readLine(MAX_RESPONSE_BYTES, System.nanoTime() + timeout.toNanos());
            } catch (final SocketTimeoutException e) {
                throw new ControlClientException(ControlClientException.Kind.IO,
                        "no response from daemon at " + socket + " within " + timeout.toSeconds() + " s", e);
            } catch (final IOException e) {
                throw new ControlClientException(ControlClientException.Kind.IO,
                        "failed to talk to daemon at " + socket + ": " + e.getMessage(), e);
            }
            if (answer.length == 0) {
                throw new ControlClientException(ControlClientException.Kind.PROTOCOL,
                        "no response from daemon at " + socket, null);
            }
            return answer;
        } catch (final IOException e) {
            if (e instanceof ControlClientException c) {
                throw c;
            }
            // Only close() can get here; the answer, if any, was already read.
            throw new ControlClientException(ControlClientException.Kind.IO, "socket close failed: " + e, e);
        }
    }

    private ObjectNode parse(final byte[] answer) throws ControlClientException {
        final JsonNode node;
        try {
            node = ControlJson.MAPPER.readTree(answer);
        } catch (final JsonProcessingException e) {
            throw new ControlClientException(ControlClientException.Kind.PROTOCOL,
                    "invalid response JSON: " + e.getOriginalMessage(), e);
        } catch (final IOException e) {
            throw new ControlClientException(ControlClientException.Kind.PROTOCOL,
                    "invalid response JSON: " + e.getMessage(), e);
        }
        if (!(node instanceof ObjectNode obj) || !obj.path("status").isTextual()) {
            throw new ControlClientException(ControlClientException.Kind.PROTOCOL,
                    "invalid response: not a status object", null);
        }
        return obj;
    }

    private ControlClientException connectFailure(final IOException e) {
        final String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        final String hint;
        if (e instanceof AccessDeniedException || reason.contains("Permission denied")) {
            hint = "Hint: add your user to the 'fips' group: sudo usermod -aG fips $USER\n"
                    + "Then log out and back in for the change to take effect.";
        } else if (!Files.exists(socket)) {
            hint = "Is the FIPS daemon running? (no socket file at that path; use --socket if it listens elsewhere)";
        } else if (Files.isRegularFile(socket) || Files.isDirectory(socket)) {
            hint = socket + " is not a socket but a " + (Files.isDirectory(socket) ? "directory" : "regular file")
                    + ": give --socket the daemon's control socket (node.control.socket_path)";
        } else {
            hint = "Is the FIPS daemon running? (the socket file exists but nothing answers: a stale socket)";
        }
        return new ControlClientException(ControlClientException.Kind.CONNECT,
                "cannot connect to " + socket + ": " + reason + "\n" + hint, e);
    }
}
