package net.fips.control.tor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A client of Tor's control protocol, as much of it as the reference uses (transports.md §6.6): connect to a Unix
 * socket (an address starting with {@code /} or {@code ./}) or a TCP {@code host:port}, {@code AUTHENTICATE}
 * with the cookie or a password, then {@code GETINFO}. PROTOCOLINFO, SAFECOOKIE and ADD_ONION are not sent, as in
 * the reference (inbound onion service = directory mode, {@link OnionHostname}).
 *
 * <p>One command at a time, from one thread (the Tor monitor's, never the control loop's). Every reply has a
 * deadline ({@code replyTimeoutNanos} on the injected clock), so a stuck Tor cannot hang the caller.
 */
public final class TorControlClient implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final LongSupplier nanoClock;
    private final long replyTimeoutNanos;
    private final ControlReplyParser parser = new ControlReplyParser();
    private final ByteBuffer in = ByteBuffer.allocate(16 * 1024).limit(0);

    private TorControlClient(final SocketChannel channel, final Selector selector, final SelectionKey key,
                             final LongSupplier nanoClock, final long replyTimeoutNanos) {
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        this.nanoClock = nanoClock;
        this.replyTimeoutNanos = replyTimeoutNanos;
    }

    /** @return whether {@code control_addr} names a Unix socket ({@code /...} or {@code ./...}) */
    public static boolean isUnixSocketPath(final String addr) {
        return addr.startsWith("/") || addr.startsWith("./");
    }

    /**
     * Connects.
     *
     * @param addr              a Unix socket path or {@code host:port}
     * @param replyTimeoutNanos the budget for the connect and for each reply
     * @param nanoClock         monotonic nanoseconds
     * @return the connected client
     * @throws TorControlException ({@link TorControlException.Kind#CONNECT_FAILED}) when it cannot connect
     */
    public static TorControlClient connect(final String addr, final long replyTimeoutNanos,
                                           final LongSupplier nanoClock) throws TorControlException {
        Objects.requireNonNull(addr, "addr");
        final SocketAddress target = address(addr);
        SocketChannel ch = null;
        Selector sel = null;
        try {
            ch = target instanceof UnixDomainSocketAddress ? SocketChannel.open(StandardProtocolFamily.UNIX)
                    : SocketChannel.open();
            ch.configureBlocking(false);
            sel = Selector.open();
            final SelectionKey key = ch.register(sel, SelectionKey.OP_CONNECT);
            final long deadline = nanoClock.getAsLong() + replyTimeoutNanos;
            if (!ch.connect(target)) {
                while (!ch.finishConnect()) {
                    if (!await(sel, deadline, nanoClock)) {
                        throw new TorControlException(TorControlException.Kind.CONNECT_FAILED,
                                "no connection to the control port " + addr + " within "
                                        + TimeUnit.NANOSECONDS.toMillis(replyTimeoutNanos) + " ms");
                    }
                }
            }
            key.interestOps(0);
            return new TorControlClient(ch, sel, key, nanoClock, replyTimeoutNanos);
        } catch (final IOException e) {
            closeQuietly(ch, sel);
            throw new TorControlException(TorControlException.Kind.CONNECT_FAILED, "failed to connect to control "
                    + (target instanceof UnixDomainSocketAddress ? "socket " : "port ") + addr + ": " + e.getMessage(),
                    e);
        } catch (final TorControlException e) {
            closeQuietly(ch, sel);
            throw e;
        }
    }

    private static SocketAddress address(final String addr) throws TorControlException {
        if (isUnixSocketPath(addr)) {
            return UnixDomainSocketAddress.of(addr);
        }
        final int colon = addr.lastIndexOf(':');
        if (colon <= 0 || colon == addr.length() - 1) {
            throw new TorControlException(TorControlException.Kind.CONNECT_FAILED,
                    "control_addr must be a Unix socket path (/... or ./...) or host:port, got \"" + addr + "\"");
        }
        String host = addr.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        final int port = portOf(addr.substring(colon + 1));
        if (port < 1 || port > 0xFFFF) {
            throw new TorControlException(TorControlException.Kind.CONNECT_FAILED,
                    "invalid port in control_addr \"" + addr + "\"");
        }
        final InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new TorControlException(TorControlException.Kind.CONNECT_FAILED,
                    "cannot resolve control_addr host \"" + host + "\"");
        }
        return a;
    }

    private static int portOf(final String p) {
        if (p.isEmpty() || p.length() > 5 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Integer.parseInt(p);
    }

    /**
     * Authenticates ({@code AUTHENTICATE <hex cookie>} or {@code AUTHENTICATE "<password>"}).
     *
     * @param auth the method
     * @throws TorControlException ({@link TorControlException.Kind#AUTH_FAILED}) when the cookie is unusable or
     *                             Tor answers anything but 250; I/O and protocol errors as such
     */
    public void authenticate(final ControlAuth auth) throws TorControlException {
        final ControlReply r = command(auth.command());
        if (!r.isOk()) {
            throw new TorControlException(TorControlException.Kind.AUTH_FAILED,
                    "AUTHENTICATE failed: " + r.code() + " " + r.message());
        }
    }

    /**
     * {@code GETINFO key}.
     *
     * @param key the key (no spaces or line breaks)
     * @return its value
     * @throws TorControlException ({@link TorControlException.Kind#PROTOCOL}) on a non-250 reply or a reply without
     *                             the key
     */
    public String getInfo(final String key) throws TorControlException {
        if (key.isEmpty() || key.chars().anyMatch(c -> c <= ' ' || c == 0x7F)) {
            throw new IllegalArgumentException("GETINFO key \"" + key + "\"");
        }
        final ControlReply r = command("GETINFO " + key + "\r\n");
        if (!r.isOk()) {
            throw new TorControlException(TorControlException.Kind.PROTOCOL,
                    "GETINFO " + key + " failed: " + r.code() + " " + r.message());
        }
        final String v = r.value(key);
        if (v == null) {
            throw new TorControlException(TorControlException.Kind.PROTOCOL, "GETINFO reply misses key '" + key + "'");
        }
        return v;
    }

    /**
     * The seven monitoring keys (transports.md §6.6); each one that fails is null in the snapshot. A connection
     * that fails part-way fails the whole snapshot.
     *
     * @return the snapshot
     * @throws TorControlException ({@link TorControlException.Kind#IO}) when the connection fails
     */
    public TorMonitoring monitoringSnapshot() throws TorControlException {
        final String phase = optional("status/bootstrap-phase");
        final String circuit = optional("status/circuit-established");
        final String read = optional("traffic/read");
        final String written = optional("traffic/written");
        final String liveness = optional("network-liveness");
        final String version = optional("version");
        final String dormant = optional("dormant");
        return new TorMonitoring(bootstrapProgress(phase), flag(circuit), u64(read), u64(written), liveness,
                version, flag(dormant));
    }

    /** @return PROGRESS=n of a bootstrap-phase value (0-100), or null */
    static Integer bootstrapProgress(final String phase) {
        if (phase == null) {
            return null;
        }
        final int at = phase.indexOf("PROGRESS=");
        if (at < 0) {
            return null;
        }
        int i = at + "PROGRESS=".length();
        int v = 0;
        final int start = i;
        while (i < phase.length() && i - start < 3 && Character.isDigit(phase.charAt(i)) && phase.charAt(i) < 128) {
            v = v * 10 + (phase.charAt(i) - '0');
            i++;
        }
        return i == start || v > 100 ? null : v;
    }

    private static Boolean flag(final String v) {
        return v == null ? null : "1".equals(v.trim());
    }

    private static Long u64(final String v) {
        if (v == null) {
            return null;
        }
        try {
            final long x = Long.parseUnsignedLong(v.trim());
            return x < 0 ? null : x;
        } catch (final NumberFormatException e) {
            return null;
        }
    }

    private String optional(final String key) throws TorControlException {
        try {
            return getInfo(key);
        } catch (final TorControlException e) {
            if (e.kind() == TorControlException.Kind.IO) {
                throw e;
            }
            return null;
        }
    }

    /**
     * Sends one command line and reads its reply.
     *
     * @param line the command, CRLF-terminated
     * @return the reply
     * @throws TorControlException on I/O failure, timeout or a malformed reply
     */
    ControlReply command(final String line) throws TorControlException {
        final long deadline = nanoClock.getAsLong() + replyTimeoutNanos;
        try {
            final ByteBuffer out = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
            key.interestOps(SelectionKey.OP_WRITE);
            while (out.hasRemaining()) {
                if (channel.write(out) == 0 && !await(selector, deadline, nanoClock)) {
                    throw timeout();
                }
            }
            key.interestOps(SelectionKey.OP_READ);
            while (true) {
                if (in.hasRemaining()) {
                    final ControlReply r = parser.offer(in);
                    if (r != null) {
                        return r;
                    }
                }
                in.clear();
                int n;
                while ((n = channel.read(in)) == 0) {
                    if (!await(selector, deadline, nanoClock)) {
                        in.flip();
                        throw timeout();
                    }
                }
                in.flip();
                if (n < 0) {
                    throw new TorControlException(TorControlException.Kind.IO, "control port connection closed");
                }
            }
        } catch (final IOException e) {
            throw new TorControlException(TorControlException.Kind.IO, "control port I/O error: " + e.getMessage(), e);
        }
    }

    private TorControlException timeout() {
        return new TorControlException(TorControlException.Kind.IO, "no reply from the control port within "
                + TimeUnit.NANOSECONDS.toMillis(replyTimeoutNanos) + " ms");
    }

    private static boolean await(final Selector sel, final long deadline, final LongSupplier nanoClock)
            throws IOException {
        final long left = deadline - nanoClock.getAsLong();
        if (left <= 0) {
            return false;
        }
        sel.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        sel.selectedKeys().clear();
        return true;
    }

    private static void closeQuietly(final SocketChannel ch, final Selector sel) {
        try {
            if (ch != null) {
                ch.close();
            }
            if (sel != null) {
                sel.close();
            }
        } catch (final IOException ignored) {
            // closing after a failure; nothing more to report
        }
    }

    @Override
    public void close() {
        closeQuietly(channel, selector);
    }
}
