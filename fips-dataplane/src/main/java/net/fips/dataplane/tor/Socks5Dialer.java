package net.fips.dataplane.tor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs one {@link Socks5Handshake} over a fresh TCP connection to the proxy, with one deadline for the whole dial
 * (proxy connect + exchange: transports.md §6.3 "all inside one connect_timeout_ms budget"). It blocks the calling
 * thread (a connect task's, never a data-plane loop's) in a {@link Selector}, so the deadline holds however the
 * proxy misbehaves. Failures are values ({@link Failed}); the caller bumps {@link Socks5Failure#counter()}.
 */
public final class Socks5Dialer {
    private Socks5Dialer() {
    }

    /** The result of a dial. */
    public sealed interface Outcome permits Connected, Failed {
    }

    /**
     * The proxy relayed the connection.
     *
     * @param channel   the connected, blocking-mode channel, now a byte stream to the destination
     * @param early     bytes of the destination that arrived with the proxy's reply (often empty); read them
     *                  before the channel
     * @param boundPort the proxy's bound port from its reply
     */
    public record Connected(SocketChannel channel, ByteBuffer early, int boundPort) implements Outcome {
    }

    /**
     * The dial failed; the channel is closed.
     *
     * @param failure why
     * @param detail  one line naming the bytes or the error
     */
    public record Failed(Socks5Failure failure, String detail) implements Outcome {
    }

    /**
     * Dials.
     *
     * @param proxy        the proxy's address: resolved TCP, or a Unix socket (Tor's {@code SocksPort unix:PATH})
     * @param handshake    a fresh handshake for the destination
     * @param timeoutNanos the budget for the whole dial
     * @param nanoClock    monotonic nanoseconds
     * @return the outcome
     */
    public static Outcome dial(final SocketAddress proxy, final Socks5Handshake handshake,
                               final long timeoutNanos, final LongSupplier nanoClock) {
        Objects.requireNonNull(proxy, "proxy");
        Objects.requireNonNull(handshake, "handshake");
        final long deadline = nanoClock.getAsLong() + timeoutNanos;
        SocketChannel ch = null;
        try (Selector sel = Selector.open()) {
            ch = proxy instanceof UnixDomainSocketAddress ? SocketChannel.open(StandardProtocolFamily.UNIX)
                    : SocketChannel.open();
            ch.configureBlocking(false);
            if (proxy instanceof InetSocketAddress) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            final SelectionKey key;
            try {
                if (!ch.connect(proxy)) {
                    key = ch.register(sel, SelectionKey.OP_CONNECT);
                    while (!ch.finishConnect()) {
                        if (!await(sel, deadline, nanoClock)) {
                            return failed(ch, handshake, Socks5Failure.TIMEOUT, "no connection to the proxy "
                                    + proxy + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
                        }
                    }
                } else {
                    key = ch.register(sel, 0);
                }
            } catch (final IOException e) {
                return failed(ch, handshake, Socks5Failure.PROXY_UNREACHABLE, "proxy " + proxy + ": " + e.getMessage());
            }
            final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
            final ByteBuffer in = ByteBuffer.allocate(512).limit(0);
            Socks5Handshake.Status st = handshake.start(out);
            while (true) {
                if (st == Socks5Handshake.Status.WRITE) {
                    out.flip();
                    key.interestOps(SelectionKey.OP_WRITE);
                    while (out.hasRemaining()) {
                        if (ch.write(out) == 0 && !await(sel, deadline, nanoClock)) {
                            return timeout(ch, handshake, timeoutNanos);
                        }
                    }
                    out.clear();
                    st = Socks5Handshake.Status.NEED_MORE;
                }
                if (st == Socks5Handshake.Status.NEED_MORE) {
                    if (!in.hasRemaining()) {
                        in.clear();
                        key.interestOps(SelectionKey.OP_READ);
                        int n;
                        while ((n = ch.read(in)) == 0) {
                            if (!await(sel, deadline, nanoClock)) {
                                return timeout(ch, handshake, timeoutNanos);
                            }
                        }
                        in.flip();
                        if (n < 0) {
                            return failed(ch, handshake, Socks5Failure.PROXY_CLOSED, "end of stream from " + proxy);
                        }
                    }
                    st = handshake.onReceive(in, out);
                    continue;
                }
                if (st == Socks5Handshake.Status.CONNECTED) {
                    key.cancel();
                    sel.selectNow();
                    ch.configureBlocking(true);
                    final ByteBuffer early = ByteBuffer.allocate(in.remaining()).put(in).flip();
                    return new Connected(ch, early, handshake.boundPort());
                }
                return failed(ch, handshake, handshake.failure(), handshake.detail());
            }
        } catch (final IOException e) {
            return failed(ch, handshake, Socks5Failure.IO_ERROR, e.toString());
        }
    }

    /** Waits for the registered interest until the deadline; @return false when the deadline passed. */
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

    private static Failed timeout(final SocketChannel ch, final Socks5Handshake hs, final long timeoutNanos) {
        return failed(ch, hs, Socks5Failure.TIMEOUT, "the SOCKS5 exchange did not finish within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    }

    private static Failed failed(final SocketChannel ch, final Socks5Handshake hs, final Socks5Failure f,
                                 final String detail) {
        hs.fail(f, detail);
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException ignored) {
                // already failing; nothing more to report
            }
        }
        return new Failed(hs.failure(), hs.detail());
    }
}
