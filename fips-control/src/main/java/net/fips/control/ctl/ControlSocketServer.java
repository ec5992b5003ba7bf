package net.fips.control.ctl;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.io.Closeable;
import java.nio.file.NoSuchFileException;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The daemon's control socket: a Unix stream socket that answers one JSON request line with one JSON response
 * line per connection, then closes (the reference's framing, §2.2 of the operator spec).
 *
 * <p>At start it creates the parent directory if missing; if the path exists it connects to it first, refuses
 * with {@link ControlSocketException} when a live daemon answers, and deletes the stale socket otherwise. After
 * binding it sets mode 0770 and, best effort, the group of the socket to {@code fips}, and of its parent directory
 * too when it created that directory or it is {@code /run/fips} (the reference's later fix; v0.4.1 chowned any
 * parent).
 * {@link #close()} removes the socket file.
 *
 * <p>Each connection runs on its own virtual thread with a selector-based deadline for reading the request and
 * writing the response, so a client that connects and sends nothing only holds its own slot until the timeout,
 * and never the accept loop, other clients or the node. Requests longer than the line limit are answered with
 * {@code read error: request too large} as soon as the limit is passed, without buffering the rest. At most
 * {@link Options#maxConnections()} connections are served at once; more are closed at accept.
 */
public final class ControlSocketServer implements AutoCloseable {
    /** Answers one request line with one response envelope. */
    @FunctionalInterface
    public interface RequestHandler {
        /**
         * @param requestLine the request without its newline
         * @return the response envelope
         */
        ObjectNode handle(String requestLine);
    }

    /** The system runtime directory the packages create; the only pre-existing parent we chown. */
    private static final Path RUN_DIR = Path.of("/run/fips");


    /** The reference's socket mode: owner and group may connect. */
    public static final Set<PosixFilePermission> SOCKET_PERMISSIONS = PosixFilePermissions.fromString("rwxrwx---");

    /**
     * Tunables.
     *
     * @param maxLineBytes   longest request line accepted, newline included (reference: 4096)
     * @param ioTimeout      deadline for reading the request, and again for writing the response (reference: 5 s)
     * @param maxConnections connections served at once
     * @param group          group to give the socket and its directory, or null to leave ownership alone
     */
    public record Options(int maxLineBytes, Duration ioTimeout, int maxConnections, String group) {
        /** The reference's limits and the {@code fips} group. */
        public static final Options DEFAULTS = new Options(4096, Duration.ofSeconds(5), 64, "fips");

        /** Checks the limits. */
        public Options {
            if (maxLineBytes < 2 || maxConnections < 1) {
                throw new IllegalArgumentException("maxLineBytes >= 2 and maxConnections >= 1 required");
            }
            Objects.requireNonNull(ioTimeout, "ioTimeout");
            if (ioTimeout.isNegative() || ioTimeout.isZero()) {
                throw new IllegalArgumentException("ioTimeout must be positive");
            }
        }

        /**
         * @param timeout a different I/O timeout
         * @return these options with it
         */
        public Options withIoTimeout(final Duration timeout) {
            return new Options(maxLineBytes, timeout, maxConnections, group);
        }
    }

    /**
     * Counters since start; each connection ends in exactly one of the response or drop counters.
     *
     * @param accepted       connections accepted
     * @param okResponses    {@code ok} responses written
     * @param errorResponses {@code error} responses written (bad requests, refused commands, timeouts)
     * @param tooLarge       requests over the line limit
     * @param timeouts       requests not complete before the read deadline
     * @param rejected       connections closed at accept because all slots were busy
     * @param writeFailures  responses that could not be written (client gone or not reading)
     */
    public record Stats(long accepted, long okResponses, long errorResponses, long tooLarge, long timeouts,
                        long rejected, long writeFailures) {
    }

    // Enough to swallow what an oversize request already queued; a client still streaming gets a reset.
    private static final int DISCARD_LIMIT = 256 * 1024;

    private final Path path;
    private final ServerSocketChannel server;
    private final RequestHandler handler;
    private final Options options;
    private final Semaphore slots;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptThread;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong okResponses = new AtomicLong();
    private final AtomicLong errorResponses = new AtomicLong();
    private final AtomicLong tooLarge = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();

    private ControlSocketServer(final Path path, final ServerSocketChannel server, final RequestHandler handler,
                                final Options options) {
        this.path = path;
        this.server = server;
        this.handler = handler;
        this.options = options;
        this.slots = new Semaphore(options.maxConnections());
        this.acceptThread = Thread.ofPlatform().daemon().name("fips-control-accept").unstarted(this::acceptLoop);
    }

    /**
     * Binds with {@link Options#DEFAULTS} and starts serving.
     *
     * @param path socket path (from config, or
     *             {@link net.fips.control.config.ControlSocketPaths#defaultControlSocket()})
     * @param api  where answers come from
     * @return the running server
     * @throws ControlSocketException when another daemon answers on {@code path} or it is not a socket
     * @throws IOException            when the directory, bind or permission change fails
     */
    public static ControlSocketServer start(final Path path, final ControlApi api) throws IOException {
        return start(path, api, Options.DEFAULTS);
    }

    /**
     * Binds and starts serving.
     *
     * @param path    socket path
     * @param api     where answers come from
     * @param options limits and ownership
     * @return the running server
     * @throws ControlSocketException when another daemon answers on {@code path} or it is not a socket
     * @throws IOException            when the directory, bind or permission change fails
     */
    public static ControlSocketServer start(final Path path, final ControlApi api, final Options options)
            throws IOException {
        Objects.requireNonNull(api, "api");
        return serve(path, new ControlDispatcher(api)::dispatch, options);
    }

    /**
     * Binds and starts serving with another command set on the same framing (the gateway's socket,
     * discovery-gateway.md §4.6).
     *
     * @param path    socket path
     * @param handler answers one request line; must not throw for bad input
     * @param options limits and ownership
     * @return the running server
     * @throws ControlSocketException when another server answers on {@code path} or it is not a socket
     * @throws IOException            when the directory, bind or permission change fails
     */
    public static ControlSocketServer serve(final Path path, final RequestHandler handler, final Options options)
            throws IOException {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(options, "options");
        final Path socket = path.toAbsolutePath();
        final Path parent = socket.getParent();
        final boolean createdParent = parent != null && !Files.isDirectory(parent);
        if (createdParent) {
            Files.createDirectories(parent);
        }
        removeStale(socket);
        final ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, SOCKET_PERMISSIONS);
        } catch (final IOException | RuntimeException e) {
            ch.close();
            Files.deleteIfExists(socket);
            throw e;
        }
        if (options.group() != null) {
            chownGroup(socket, options.group());
            // Only a directory we made or the canonical runtime directory; never e.g. /tmp (as on [master]).
            if (createdParent || RUN_DIR.equals(parent)) {
                chownGroup(parent, options.group());
            }
        }
        final ControlSocketServer s = new ControlSocketServer(socket, ch, handler, options);
        s.acceptThread.start();
        return s;
    }

    /**
     * Fails when a live server answers on {@code path}: a daemon started with the same config must refuse before
     * it opens anything else. A missing path, or a socket file nobody listens on (left by an unclean exit), passes;
     * {@link #start} replaces the stale file.
     *
     * @param path the control socket path
     * @throws ControlSocketException naming the path when it is in use
     */
    public static void requireNotInUse(final Path path) throws ControlSocketException {
        final Path socket = path.toAbsolutePath();
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (SocketChannel _ = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            throw inUse(socket);
        } catch (final ControlSocketException e) {
            throw e;
        } catch (final IOException | UnsupportedOperationException e) {
            // Nobody listens (or it is not a socket, which start() reports): nothing is in use.
        }
    }

    private static ControlSocketException inUse(final Path socket) {
        return new ControlSocketException("control socket " + socket + " is already in use by a running daemon"
                + " (one node per config: stop it first, or give this node another node.control.socket_path)");
    }

    private static void removeStale(final Path socket) throws IOException {
        final BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (final NoSuchFileException e) {
            return;
        }
        // Unlike the reference, never delete a regular file, directory or symlink that happens to sit there.
        if (!attrs.isOther()) {
            throw new ControlSocketException("control socket path exists and is not a socket: " + socket);
        }
        final SocketChannel probe;
        try {
            probe = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        } catch (final IOException e) {
            // Nobody listens: a leftover from an unclean exit.
            Files.deleteIfExists(socket);
            return;
        }
        closeQuietly(probe);
        throw inUse(socket);
    }

    private static void chownGroup(final Path p, final String group) {
        try {
            final GroupPrincipal g = p.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(group);
            Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setGroup(g);
        } catch (final IOException | UnsupportedOperationException | SecurityException e) {
            // Best effort as in the reference: no such group, or we may not chown; root still has access.
            System.getLogger(ControlSocketServer.class.getName()).log(System.Logger.Level.DEBUG,
                    "control socket: could not set group {0} on {1}: {2}", group, p, e.toString());
        }
    }

    /** @return the bound socket path (absolute) */
    public Path path() {
        return path;
    }

    /** @return counters since start */
    public Stats stats() {
        return new Stats(accepted.get(), okResponses.get(), errorResponses.get(), tooLarge.get(), timeouts.get(),
                rejected.get(), writeFailures.get());
    }

    private void acceptLoop() {
        while (!closed.get()) {
            final SocketChannel client;
            try {
                client = server.accept();
            } catch (final ClosedChannelException e) {
                return;
            } catch (final IOException e) {
                if (closed.get()) {
                    return;
                }
                System.getLogger(ControlSocketServer.class.getName()).log(System.Logger.Level.WARNING,
                        "control socket accept failed: {0}", e.toString());
                continue;
            }
            accepted.incrementAndGet();
            if (!slots.tryAcquire()) {
                rejected.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            open.add(client);
            Thread.ofVirtual().name("fips-control-conn").start(() -> {
                try {
                    serve(client);
                } finally {
                    open.remove(client);
                    closeQuietly(client);
                    slots.release();
                }
            });
        }
    }

    private void serve(final SocketChannel client) {
        try (ChannelIo io = new ChannelIo(client)) {
            final ObjectNode response = respond(io);
            if ("ok".equals(response.path("status").asText())) {
                okResponses.incrementAndGet();
            } else {
                errorResponses.incrementAndGet();
            }
            final byte[] out = (ControlJson.compact(response) + "\n").getBytes(StandardCharsets.UTF_8);
            try {
                io.writeAll(ByteBuffer.wrap(out), System.nanoTime() + options.ioTimeout().toNanos());
                client.shutdownOutput();
                io.discardPending(DISCARD_LIMIT);
            } catch (final IOException e) {
                writeFailures.incrementAndGet();
            }
        } catch (final IOException e) {
            // Selector could not be opened or the channel closed under us (server shutting down).
            writeFailures.incrementAndGet();
        }
    }

    private ObjectNode respond(final ChannelIo io) {
        final byte[] line;
        try {
            line = io.readLine(options.maxLineBytes(), System.nanoTime() + options.ioTimeout().toNanos());
        } catch (final ChannelIo.TooLargeException e) {
            tooLarge.incrementAndGet();
            return ControlJson.error("read error: request too large");
        } catch (final SocketTimeoutException e) {
            timeouts.incrementAndGet();
            return ControlJson.error("read timeout");
        } catch (final IOException e) {
            return ControlJson.error("read error: " + e.getMessage());
        }
        if (line.length == 0) {
            return ControlJson.error("empty request");
        }
        final String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(line)).toString();
        } catch (final CharacterCodingException e) {
            return ControlJson.error("read error: stream did not contain valid UTF-8");
        }
        return handler.handle(text);
    }

    /**
     * Stops accepting, drops connections still open, removes the socket file and waits for the accept thread.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(server);
        for (final SocketChannel c : open) {
            closeQuietly(c);
        }
        try {
            Files.deleteIfExists(path);
        } catch (final IOException e) {
            System.getLogger(ControlSocketServer.class.getName()).log(System.Logger.Level.WARNING,
                    "failed to remove control socket {0}: {1}", path, e.toString());
        }
        try {
            acceptThread.join(Duration.ofSeconds(5));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final Closeable c) {
        try {
            c.close();
        } catch (final IOException e) {
            // Nothing useful to do on a failed close of a socket we are discarding.
        }
    }
}
