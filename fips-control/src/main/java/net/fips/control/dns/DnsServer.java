package net.fips.control.dns;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.Optional;

import net.fips.dataplane.udp.PktinfoUdpSocket;
import net.fips.control.config.DnsConfig;

/**
 * The {@code .fips} responder's UDP server (operator.md §4.6): one blocking {@link DatagramChannel} served by one
 * daemon platform thread. This is control-plane traffic, not the packet path; work per datagram is bounded (one
 * 512-byte receive buffer, as the reference, so a longer datagram is cut to 512 bytes; one decode; one reply).
 *
 * <p>Per datagram: the {@link ArrivalFilter} may drop it; otherwise the hosts file is polled (the reference stats
 * it on every query), the {@link DnsResponder} decides and the reply is sent to the source. Nothing a client
 * sends can stop the loop: malformed queries are counted, send failures are counted.
 *
 * <p>Arrival interface: for an IPv6 bind address the socket is opened as the reference's ({@code IPV6_V6ONLY=0},
 * {@code IPV6_RECVPKTINFO}) through the FFM wrappers, and each datagram's arrival ifindex goes to the
 * {@link ArrivalFilter}. For an IPv4 bind address, or where the native bindings are unavailable, a plain
 * {@link DatagramChannel} is used and the filter sees {@link ArrivalFilter#UNKNOWN_IFINDEX}, so the fips0 rule
 * fails open, as the reference does without a PKTINFO control message. See {@link #readsArrivalInterface()}.
 */
public final class DnsServer implements AutoCloseable {
    /** The reference's default bind address, {@code [::1]:5354}. */
    public static final InetSocketAddress DEFAULT_BIND =
            new InetSocketAddress(InetAddress.ofLiteral("::1"), 5354);
    /** The receive buffer, as the reference's. */
    public static final int RECEIVE_BUFFER = 512;

    /**
     * Counts since start.
     *
     * @param queries   datagrams received
     * @param answered  AAAA answers sent
     * @param noData    NOERROR replies without answers
     * @param nxdomain  NXDOMAIN replies
     * @param malformed datagrams dropped because they did not decode or had no question
     * @param dropped   datagrams dropped by the arrival filter
     * @param sendErrors replies the socket refused
     */
    public record Counters(long queries, long answered, long noData, long nxdomain, long malformed, long dropped,
            long sendErrors) {
    }

    /**
     * The socket address {@code dns.bind_addr} and {@code dns.port} name, parsed as the reference does: a bare IP
     * literal, IPv6 ({@code ::1}, {@code ::}) or dotted-quad IPv4, no brackets, no zone, no host name. The
     * reference logs a warning and runs no responder when it does not parse.
     *
     * @param config the {@code dns} section
     * @return the address, or empty when {@code bind_addr} is not an IP literal
     */
    public static Optional<InetSocketAddress> bindAddress(final DnsConfig config) {
        final String a = config.bindAddr();
        if (config.port() < 0 || config.port() > 0xFFFF) {
            return Optional.empty();
        }
        try {
            if (a.indexOf(':') >= 0) {
                if (a.indexOf('[') >= 0 || a.indexOf('%') >= 0) {
                    return Optional.empty();
                }
                return Optional.of(new InetSocketAddress(Inet6Address.ofLiteral(a), config.port()));
            }
            final String[] parts = a.split("\\.", -1);
            if (parts.length != 4) {
                return Optional.empty();
            }
            for (final String p : parts) {
                if (p.isEmpty() || p.length() > 3 || p.length() > 1 && p.charAt(0) == '0'
                        || !p.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(p) > 255) {
                    return Optional.empty();
                }
            }
            return Optional.of(new InetSocketAddress(Inet4Address.ofLiteral(a), config.port()));
        } catch (final IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private final DatagramChannel channel;
    private final PktinfoUdpSocket pktinfo;
    private final DnsResponder responder;
    private final HostsFile hosts;
    private final ArrivalFilter filter;
    private final InetSocketAddress local;
    private final Thread thread;
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong noData = new AtomicLong();
    private final AtomicLong nxdomain = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sendErrors = new AtomicLong();
    private volatile boolean closed;

    private DnsServer(final DatagramChannel channel, final PktinfoUdpSocket pktinfo, final DnsResponder responder,
            final HostsFile hosts, final ArrivalFilter filter) throws IOException {
        this.channel = channel;
        this.pktinfo = pktinfo;
        this.responder = responder;
        this.hosts = hosts;
        this.filter = filter;
        this.local = pktinfo != null ? pktinfo.localAddress() : (InetSocketAddress) channel.getLocalAddress();
        this.thread = Thread.ofPlatform().daemon().name("fips-dns-" + local.getPort()).unstarted(this::loop);
    }

    /**
     * Binds and starts serving.
     *
     * @param bind      where to listen ({@link #DEFAULT_BIND}; port 0 picks a free port)
     * @param responder the decisions
     * @param hosts     the hosts file to poll before each query, or null when the resolver needs none
     * @param filter    the arrival filter ({@link ArrivalFilter#NONE} or {@link ArrivalFilter#meshInterface})
     * @return the running server
     * @throws IOException when the address cannot be bound
     */
    public static DnsServer start(final InetSocketAddress bind, final DnsResponder responder, final HostsFile hosts,
            final ArrivalFilter filter) throws IOException {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(responder, "responder");
        Objects.requireNonNull(filter, "filter");
        if (bind.getAddress() instanceof Inet6Address && PktinfoUdpSocket.available()) {
            final PktinfoUdpSocket sock = PktinfoUdpSocket.open(bind, RECEIVE_BUFFER);
            final DnsServer s = new DnsServer(null, sock, responder, hosts, filter);
            s.thread.start();
            return s;
        }
        // The default family is dual-stack on Linux (IPV6_V6ONLY off), as the reference's socket.
        final DatagramChannel ch = DatagramChannel.open();
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            ch.bind(bind);
            final DnsServer s = new DnsServer(ch, null, responder, hosts, filter);
            s.thread.start();
            return s;
        } catch (final IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** @return the bound address (with the real port when 0 was asked for) */
    public InetSocketAddress localAddress() {
        return local;
    }

    /** @return the counts so far */
    public Counters counters() {
        return new Counters(queries.get(), answered.get(), noData.get(), nxdomain.get(), malformed.get(),
                dropped.get(), sendErrors.get());
    }

    /** @return whether the arrival interface of each query is known (IPv6 socket with {@code IPV6_PKTINFO}) */
    public boolean readsArrivalInterface() {
        return pktinfo != null;
    }

    private void loop() {
        if (pktinfo != null) {
            try {
                final byte[] buf = new byte[RECEIVE_BUFFER];
                PktinfoUdpSocket.Datagram d;
                while ((d = pktinfo.receive(buf)) != null) {
                    handle(buf, d.length(), d.source(), d.arrivalIfIndex());
                }
            } finally {
                pktinfo.release();
            }
            return;
        }
        final ByteBuffer in = ByteBuffer.allocate(RECEIVE_BUFFER);
        while (!closed) {
            in.clear();
            final SocketAddress from;
            try {
                from = channel.receive(in);
            } catch (final ClosedChannelException e) {
                return;
            } catch (final IOException e) {
                if (closed || !channel.isOpen()) {
                    return;
                }
                continue; // e.g. a port-unreachable report for an earlier reply
            }
            if (from instanceof InetSocketAddress src) {
                handle(in.array(), in.position(), src, ArrivalFilter.UNKNOWN_IFINDEX);
            }
        }
    }

    /**
     * Serves one datagram as the loop does: filter, hosts poll, respond, send, count. The loop's thread calls it;
     * a receive path that knows the arrival interface may call it instead (one thread at a time).
     *
     * @param datagram       the bytes (first {@code length} used)
     * @param length         how many
     * @param source         where it came from, and where the reply goes
     * @param arrivalIfIndex the arrival interface, or {@link ArrivalFilter#UNKNOWN_IFINDEX}
     * @return what the responder decided ({@link DnsResponder.Kind#DROPPED} for a filtered datagram too)
     */
    public DnsResponder.Kind handle(final byte[] datagram, final int length, final InetSocketAddress source,
            final int arrivalIfIndex) {
        queries.incrementAndGet();
        if (filter.drop(source, arrivalIfIndex)) {
            dropped.incrementAndGet();
            return DnsResponder.Kind.DROPPED;
        }
        if (hosts != null) {
            hosts.poll();
        }
        final DnsResponder.Result r = responder.respond(datagram, 0, length);
        switch (r.kind()) {
            case DROPPED -> {
                malformed.incrementAndGet();
                return r.kind();
            }
            case ANSWERED -> answered.incrementAndGet();
            case NO_DATA -> noData.incrementAndGet();
            case NXDOMAIN -> nxdomain.incrementAndGet();
        }
        if (pktinfo != null) {
            if (!pktinfo.send(r.response(), source)) {
                sendErrors.incrementAndGet();
            }
        } else {
            try {
                channel.send(ByteBuffer.wrap(r.response()), source);
            } catch (final IOException | RuntimeException e) {
                sendErrors.incrementAndGet();
            }
        }
        return r.kind();
    }

    /** Stops the loop and closes the socket; waits for the thread to end. Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (pktinfo != null) {
            pktinfo.close(); // the loop thread frees the socket when it leaves
        } else {
            try {
                channel.close();
            } catch (final IOException e) {
                // closing anyway
            }
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
