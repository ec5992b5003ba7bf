package net.fips.dataplane.tor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.function.LongSupplier;

import jdk.net.ExtendedSocketOptions;

/**
 * The outbound connect step of a Tor (or Nym) transport: transport address bytes in, a configured stream to the
 * destination out (transports.md §6.3, §6.7). It parses the address, dials the proxy with one deadline, counts a
 * failure under its counter, and sets the reference's fixed options on success ({@code TCP_NODELAY},
 * {@code SO_KEEPALIVE} with {@code TCP_KEEPIDLE} 30 s; no buffer sizing). Runs on a connect thread; the stream it
 * returns is framed exactly as TCP from then on.
 */
public final class TorConnector {
    /** Keepalive idle time on dialled and accepted Tor streams: 30 s, fixed. */
    public static final int KEEPIDLE_SECS = 30;

    private final SocketAddress proxy;
    private final String proxyText;
    private final long timeoutNanos;
    private final boolean isolateByDestination;
    private final TorCounters counters;
    private final LongSupplier nanoClock;

    /**
     * @param socks5Addr           {@code host:port} of the proxy (resolved at each dial, as the reference does)
     * @param timeoutNanos         {@code connect_timeout_ms} in nanoseconds
     * @param isolateByDestination true for Tor (username/password isolation offered), false for Nym (no-auth only)
     * @param counters             where failures are counted
     * @param nanoClock            monotonic nanoseconds
     */
    public TorConnector(final String socks5Addr, final long timeoutNanos, final boolean isolateByDestination,
                        final TorCounters counters, final LongSupplier nanoClock) {
        this(null, socks5Addr, timeoutNanos, isolateByDestination, counters, nanoClock);
    }

    /**
     * @param proxy                the proxy's socket address (TCP or Unix)
     * @param timeoutNanos         the dial budget
     * @param isolateByDestination true for Tor, false for Nym
     * @param counters             where failures are counted
     * @param nanoClock            monotonic nanoseconds
     */
    public TorConnector(final SocketAddress proxy, final long timeoutNanos, final boolean isolateByDestination,
                        final TorCounters counters, final LongSupplier nanoClock) {
        this(Objects.requireNonNull(proxy, "proxy"), proxy.toString(), timeoutNanos, isolateByDestination,
                counters, nanoClock);
    }

    private TorConnector(final SocketAddress proxy, final String proxyText, final long timeoutNanos,
                         final boolean isolateByDestination, final TorCounters counters,
                         final LongSupplier nanoClock) {
        this.proxy = proxy;
        this.proxyText = Objects.requireNonNull(proxyText, "proxyText");
        this.timeoutNanos = timeoutNanos;
        this.isolateByDestination = isolateByDestination;
        this.counters = Objects.requireNonNull(counters, "counters");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /**
     * Dials one destination.
     *
     * @param transportAddr the peer's transport address (UTF-8 text)
     * @return the outcome; a failure has been counted
     * @throws TorAddressException when the address is not a dialable form (not counted, as in the reference)
     */
    public Socks5Dialer.Outcome connect(final byte[] transportAddr) throws TorAddressException {
        final TorAddress target = TorAddress.parse(transportAddr);
        final Socks5Handshake hs = isolateByDestination ? Socks5Handshake.tor(target) : Socks5Handshake.noAuth(target);
        final SocketAddress p = proxy != null ? proxy : resolve(proxyText);
        if (p == null) {
            counters.record(Socks5Failure.PROXY_UNREACHABLE);
            return new Socks5Dialer.Failed(Socks5Failure.PROXY_UNREACHABLE, "cannot resolve the SOCKS5 proxy \""
                    + proxyText + "\"");
        }
        final Socks5Dialer.Outcome o = Socks5Dialer.dial(p, hs, timeoutNanos, nanoClock);
        if (o instanceof Socks5Dialer.Failed f) {
            counters.record(f.failure());
            return o;
        }
        final Socks5Dialer.Connected c = (Socks5Dialer.Connected) o;
        if (p instanceof InetSocketAddress) {
            try {
                configure(c.channel());
            } catch (final IOException e) {
                closeQuietly(c.channel());
                counters.record(Socks5Failure.IO_ERROR);
                return new Socks5Dialer.Failed(Socks5Failure.IO_ERROR, "socket options: " + e.getMessage());
            }
        }
        return c;
    }

    /**
     * Applies the fixed Tor stream options (also to streams Tor forwards to the directory-mode listener).
     *
     * @param ch a connected TCP channel
     * @throws IOException when an option cannot be set
     */
    public static void configure(final SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        ch.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, KEEPIDLE_SECS);
    }

    /**
     * @param hostPort {@code host:port} ({@code [v6]:port} for an IPv6 literal), e.g. a {@code socks5_addr}
     * @return it resolved, or null when it does not parse or resolve
     */
    public static InetSocketAddress resolve(final String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (final NumberFormatException e) {
            return null;
        }
        if (port < 1 || port > 0xFFFF) {
            return null;
        }
        final InetSocketAddress a = new InetSocketAddress(host, port);
        return a.isUnresolved() ? null : a;
    }

    private static void closeQuietly(final SocketChannel ch) {
        try {
            ch.close();
        } catch (final IOException ignored) {
            // already failing
        }
    }
}
