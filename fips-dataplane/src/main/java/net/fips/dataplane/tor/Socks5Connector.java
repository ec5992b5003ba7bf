package net.fips.dataplane.tor;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

import net.fips.dataplane.tcp.StreamConnector;
import net.fips.dataplane.tcp.TcpSocketOptions;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportException;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;

/**
 * The Tor (and Nym) connect step for the TCP transport's event loop (transports.md §6.3): the socket goes to the
 * SOCKS5 proxy instead of the peer, and a {@link StreamConnector.PreLink} runs the {@link Socks5Handshake} on the
 * non-blocking descriptor, reading at most {@link Socks5Handshake#wanted()} bytes at a time so the first FMP
 * bytes after the CONNECT reply stay in the kernel for the frame reader. A failed exchange is counted in the
 * transport's {@link Socks5Counters}; the TCP transport bounds the whole dial by its connect timeout. The
 * {@link Profile} holds what differs between Tor and Nym.
 */
public final class Socks5Connector implements StreamConnector {
    private static final System.Logger LOG = System.getLogger(Socks5Connector.class.getName());

    /** What differs between the proxied transports (transports.md §6.2, §6.3, §6.7). */
    public enum Profile {
        /**
         * Tor: username/password offered (the destination text is the isolation key), host names must contain a
         * dot, a failed connect to the proxy counts {@link Socks5Failure#PROXY_UNREACHABLE}.
         */
        TOR("Tor"),
        /**
         * Nym: no authentication ({@code 05 01 00}), any host name; a connect to the proxy that is refused is
         * counted once, by the stream transport ({@code connect_refused}, which Nym reports as
         * {@code socks5_errors}), so it is not recorded here as well.
         */
        NYM("Nym");

        private final String label;

        Profile(final String label) {
            this.label = label;
        }

        /** @return the transport's name in messages */
        public String label() {
            return label;
        }
    }

    private final String socks5Addr;
    private final Profile profile;
    private final Socks5Counters counters;

    /**
     * @param socks5Addr           {@code host:port} of the proxy, resolved at each dial
     * @param isolateByDestination true for Tor (username/password isolation offered), false for Nym
     * @param counters             where failed exchanges are counted
     */
    public Socks5Connector(final String socks5Addr, final boolean isolateByDestination, final TorCounters counters) {
        this(socks5Addr, isolateByDestination ? Profile.TOR : Profile.NYM, counters);
    }

    /**
     * @param socks5Addr {@code host:port} of the proxy, resolved at each dial
     * @param profile    Tor's or Nym's rules
     * @param counters   where failed exchanges are counted
     */
    public Socks5Connector(final String socks5Addr, final Profile profile, final Socks5Counters counters) {
        this.socks5Addr = Objects.requireNonNull(socks5Addr, "socks5Addr");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.counters = Objects.requireNonNull(counters, "counters");
    }

    @Override
    public Dial open(final TransportAddr address, final TcpSocketOptions options) throws IOException {
        final String text = address.text();
        if (text == null) {
            throw new TransportException(profile.label() + " address " + address + " is not text");
        }
        final TorAddress target;
        try {
            target = profile == Profile.TOR ? TorAddress.parse(text) : TorAddress.parseNym(text);
        } catch (final TorAddressException e) {
            throw new TransportException(profile.label() + " address: " + e.getMessage(), e);
        }
        final InetSocketAddress proxy = TorConnector.resolve(socks5Addr);
        if (proxy == null) {
            counters.record(Socks5Failure.PROXY_UNREACHABLE);
            throw new TransportException("cannot resolve the SOCKS5 proxy \"" + socks5Addr + "\"");
        }
        final boolean v6 = proxy.getAddress() instanceof Inet6Address;
        final int fd = Syscalls.socket(v6 ? Linux.AF_INET6 : Linux.AF_INET,
                Linux.SOCK_STREAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, Linux.IPPROTO_TCP);
        try (Arena a = Arena.ofConfined()) {
            options.applyStreamOptions(fd, profile.label() + " " + text);
            final MemorySegment sa = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int len;
            try {
                len = SockAddrs.encode(proxy, sa, v6);
            } catch (final SockAddrException e) {
                throw new TransportException("SOCKS5 proxy " + socks5Addr + ": " + e.getMessage(), e);
            }
            final boolean connected;
            try {
                connected = Syscalls.connect(fd, sa, len, "SOCKS5 proxy " + socks5Addr);
            } catch (final IOException e) {
                if (profile == Profile.TOR || !(e instanceof ErrnoException ee && ee.errno() == Errno.ECONNREFUSED)) {
                    counters.record(Socks5Failure.PROXY_UNREACHABLE);
                }
                throw e;
            }
            final Socks5Handshake hs = profile == Profile.TOR ? Socks5Handshake.tor(target)
                    : Socks5Handshake.noAuth(target);
            return new Dial(fd, connected, new Exchange(hs, counters, profile.label(), text));
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    /** The SOCKS5 exchange on a non-blocking descriptor; loop thread only. */
    static final class Exchange implements StreamConnector.PreLink {
        private final Socks5Handshake hs;
        private final Socks5Counters counters;
        private final String kind;
        private final String label;
        private final MemorySegment buf = Arena.ofAuto().allocate(Socks5Handshake.MAX_REQUEST_BYTES);
        private final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
        private final CallState cs = CallState.allocate(Arena.ofAuto());
        private int pendingFrom;
        private int pendingTo;
        private boolean started;

        Exchange(final Socks5Handshake hs, final Socks5Counters counters, final String kind, final String label) {
            this.hs = hs;
            this.counters = counters;
            this.kind = kind;
            this.label = label;
        }

        @Override
        public int step(final int fd) {
            if (!started) {
                started = true;
                hs.start(out);
                queue();
            }
            while (true) {
                if (pendingFrom < pendingTo) {
                    final long n = Syscalls.write(cs, fd, buf.asSlice(pendingFrom), pendingTo - pendingFrom);
                    if (n == Errno.EAGAIN_NEGATIVE || n == Errno.EINTR_NEGATIVE) {
                        return NEED_WRITE;
                    }
                    if (n < 0) {
                        return fail(Socks5Failure.IO_ERROR, "write errno " + -n);
                    }
                    pendingFrom += (int) n;
                    continue;
                }
                final int want = hs.wanted();
                if (want <= 0) {
                    return hs.isConnected() ? DONE : fail(hs.failure(), hs.detail());
                }
                final long n = Syscalls.read(cs, fd, buf, want);
                if (n == Errno.EAGAIN_NEGATIVE || n == Errno.EINTR_NEGATIVE) {
                    return NEED_READ;
                }
                if (n == 0) {
                    return fail(Socks5Failure.PROXY_CLOSED, "end of stream from the proxy");
                }
                if (n < 0) {
                    return fail(Socks5Failure.IO_ERROR, "read errno " + -n);
                }
                final ByteBuffer in = buf.asSlice(0, n).asByteBuffer();
                out.clear();
                switch (hs.onReceive(in, out)) {
                    case WRITE -> queue();
                    case CONNECTED -> {
                        return DONE;
                    }
                    case FAILED -> {
                        return fail(hs.failure(), hs.detail());
                    }
                    case NEED_MORE -> {
                        // read the rest
                    }
                }
            }
        }

        /** Copies the request in {@code out} into the native buffer to be written. */
        private void queue() {
            out.flip();
            final int n = out.remaining();
            MemorySegment.copy(MemorySegment.ofBuffer(out), 0, buf, 0, n);
            pendingFrom = 0;
            pendingTo = n;
            out.clear();
        }

        private int fail(final Socks5Failure f, final String detail) {
            hs.fail(f, detail);
            counters.record(hs.failure());
            LOG.log(System.Logger.Level.WARNING, "{0} SOCKS5 connection to {1} failed: {2}", kind, label, hs.detail());
            return FAILED;
        }
    }
}
