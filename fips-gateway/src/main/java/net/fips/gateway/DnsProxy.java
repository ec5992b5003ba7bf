package net.fips.gateway;

import java.io.IOException;
import java.net.BindException;
import java.net.DatagramPacket;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import net.fips.control.dns.DnsCodec;
import net.fips.control.dns.DnsFormatException;
import net.fips.control.dns.DnsQuery;

/**
 * The gateway's DNS proxy for LAN hosts (discovery-gateway.md §4.2): {@code .fips} names are looked up as AAAA at
 * the daemon's responder and answered with a pool address; any other name is REFUSED. The message codec is the
 * daemon responder's ({@link DnsCodec}).
 *
 * <p>Differences from the reference (ADR 0050): queries are served side by side (up to {@link #MAX_IN_FLIGHT}; the
 * reference serves one at a time, so one slow lookup stalled every client for 5 s); the upstream socket is
 * connected and a reply counts only with the query's id and QR set; an answer outside fd00::/8 is SERVFAIL, not a
 * mapping (the reference's later security fix); and a listener address already held by a wildcard socket (an mDNS
 * responder on port 5353, the reference's default) is shared with SO_REUSEADDR instead of leaving the gateway
 * without DNS.
 */
public final class DnsProxy implements AutoCloseable {
    /** Queries served at once; more are dropped and counted. */
    static final int MAX_IN_FLIGHT = 64;
    private static final int BUFFER = 4096;

    /** Maps a resolved mesh address to a pool address (and installs its NAT before returning). */
    @FunctionalInterface
    public interface Allocator {
        /**
         * @param meshAddr the daemon's answer, in fd00::/8
         * @param name     the name asked, lower case, no trailing dot
         * @return the pool address
         * @throws VirtualPool.ExhaustedException when the pool is full
         * @throws IOException                    when its NAT rules could not be installed
         */
        Inet6Address allocate(Inet6Address meshAddr, String name) throws VirtualPool.ExhaustedException,
                IOException;
    }

    /**
     * Counters since start.
     *
     * @param queries  datagrams received
     * @param answered AAAA answers with a pool address
     * @param noData   NODATA replies (a .fips name asked for another type)
     * @param refused  REFUSED replies (not a .fips name)
     * @param servfail SERVFAIL replies (upstream silent or wrong, no AAAA, pool full, NAT failed)
     * @param upstreamErrors replies that passed on the upstream's error RCODE (NXDOMAIN...)
     * @param malformed datagrams that did not decode (no reply, as in the reference)
     * @param dropped  datagrams dropped because {@link #MAX_IN_FLIGHT} queries were in progress
     */
    public record Counters(long queries, long answered, long noData, long refused, long servfail,
            long upstreamErrors, long malformed, long dropped) {
    }

    private final DatagramChannel socket;
    private final InetSocketAddress upstream;
    private final long ttl;
    private final Allocator allocator;
    private final Duration upstreamTimeout;
    private final LongSupplier unixSeconds;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final Thread receiver;
    private final boolean shared;
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong noData = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong servfail = new AtomicLong();
    private final AtomicLong upstreamErrors = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    private DnsProxy(final DatagramChannel socket, final boolean shared, final InetSocketAddress upstream,
            final long ttl, final Allocator allocator, final Duration upstreamTimeout,
            final LongSupplier unixSeconds) {
        this.socket = socket;
        this.shared = shared;
        this.upstream = upstream;
        this.ttl = ttl;
        this.allocator = allocator;
        this.upstreamTimeout = upstreamTimeout;
        this.unixSeconds = unixSeconds;
        this.receiver = Thread.ofPlatform().daemon().name("fips-gateway-dns").unstarted(this::receiveLoop);
    }

    /**
     * Binds the listener and starts serving.
     *
     * @param listen          {@code gateway.dns.listen}
     * @param upstream        {@code gateway.dns.upstream}
     * @param ttl             {@code gateway.dns.ttl}
     * @param allocator       the pool
     * @param upstreamTimeout how long to wait for the daemon (the reference: 5 s)
     * @param unixSeconds     wall clock for the SOA serial
     * @param log             where the shared-port warning goes
     * @return the running proxy
     * @throws GatewayException when the listener cannot be bound, saying why and what to do
     */
    public static DnsProxy start(final InetSocketAddress listen, final InetSocketAddress upstream, final long ttl,
            final Allocator allocator, final Duration upstreamTimeout, final LongSupplier unixSeconds,
            final Log log) throws GatewayException {
        final boolean[] shared = new boolean[1];
        final DatagramChannel ch = bind(listen, shared, log);
        final DnsProxy p = new DnsProxy(ch, shared[0], upstream, ttl, allocator, upstreamTimeout, unixSeconds);
        p.receiver.start();
        return p;
    }

    static DatagramChannel bind(final InetSocketAddress listen, final boolean[] shared, final Log log)
            throws GatewayException {
        final StandardProtocolFamily family = listen.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        final String where = "gateway.dns.listen " + text(listen);
        try {
            final DatagramChannel ch = DatagramChannel.open(family);
            try {
                ch.bind(listen);
                return ch;
            } catch (final BindException e) {
                ch.close();
                if (listen.getAddress().isAnyLocalAddress()) {
                    throw new GatewayException(where + ": address already in use (" + e.getMessage() + "); another"
                            + " DNS server or an mDNS responder holds the port. Pick a free port for"
                            + " gateway.dns.listen and point the LAN resolver's .fips forwarding at it", e);
                }
            } catch (final IOException e) {
                ch.close();
                throw new GatewayException(where + ": cannot bind (" + e.getMessage() + ")", e);
            }
            // Port held by a wildcard socket, typically an mDNS responder on *:5353 (avahi, or the daemon's own
            // node.discovery.lan): with SO_REUSEADDR on both, the kernel lets this exact-address socket share the
            // port and hands it every unicast datagram sent to this address (an exact match beats a wildcard).
            final DatagramChannel again = DatagramChannel.open(family);
            try {
                again.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                again.bind(listen);
            } catch (final IOException e) {
                again.close();
                throw new GatewayException(where + ": address already in use, even shared with SO_REUSEADDR (the"
                        + " holder does not allow it). The reference's default port 5353 is the mDNS port: set"
                        + " gateway.dns.listen to a free port (e.g. [::1]:5300) and point the LAN resolver's .fips"
                        + " forwarding at it", e);
            }
            shared[0] = true;
            log.warn(where + ": the port is also held by another socket (an mDNS responder on *:" + listen.getPort()
                    + "?); sharing it with SO_REUSEADDR. Unicast queries to " + text(listen) + " reach this proxy;"
                    + " a port of its own (gateway.dns.listen) avoids the question");
            return again;
        } catch (final IOException e) {
            throw new GatewayException(where + ": cannot open a UDP socket (" + e.getMessage() + ")", e);
        }
    }

    /** @return the bound listener */
    public InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) socket.getLocalAddress();
        } catch (final IOException e) {
            throw new IllegalStateException("closed", e);
        }
    }

    /** @return whether the listener shares its port (see {@link #start}) */
    public boolean sharedPort() {
        return shared;
    }

    /** @return the counters */
    public Counters counters() {
        return new Counters(queries.get(), answered.get(), noData.get(), refused.get(), servfail.get(),
                upstreamErrors.get(), malformed.get(), dropped.get());
    }

    private void receiveLoop() {
        final ByteBuffer buf = ByteBuffer.allocate(BUFFER);
        while (socket.isOpen()) {
            final InetSocketAddress from;
            try {
                buf.clear();
                from = (InetSocketAddress) socket.receive(buf);
            } catch (final ClosedChannelException e) {
                return;
            } catch (final IOException e) {
                continue;
            }
            queries.incrementAndGet();
            if (!inFlight.tryAcquire()) {
                dropped.incrementAndGet();
                continue;
            }
            final byte[] datagram = Arrays.copyOf(buf.array(), buf.position());
            Thread.ofVirtual().start(() -> {
                try {
                    final byte[] reply = handle(datagram);
                    if (reply != null) {
                        socket.send(ByteBuffer.wrap(reply), from);
                    }
                } catch (final IOException e) {
                    // the client went away; nothing to tell it
                } finally {
                    inFlight.release();
                }
            });
        }
    }

    /**
     * Answers one query.
     *
     * @param datagram the query
     * @return the reply, or null for none (an undecodable datagram)
     */
    byte[] handle(final byte[] datagram) {
        final DnsQuery q;
        try {
            q = DnsCodec.decode(datagram, 0, datagram.length);
        } catch (final DnsFormatException e) {
            malformed.incrementAndGet();
            return null;
        }
        if ((q.flags() & DnsCodec.FLAG_QR) != 0) {
            malformed.incrementAndGet(); // a response sent to us: answering it could loop
            return null;
        }
        final String name = q.questions().isEmpty() ? null
                : q.questions().getFirst().nameText().toLowerCase(Locale.ROOT);
        if (name == null || !name.endsWith(".fips")) {
            refused.incrementAndGet();
            return reply(q, DnsCodec.RCODE_REFUSED, false, null, -1);
        }
        final byte[] upstreamReply = askUpstream(q.id(), name);
        if (upstreamReply == null || upstreamReply.length < DnsCodec.HEADER_LENGTH) {
            servfail.incrementAndGet();
            return reply(q, DnsCodec.RCODE_SERVFAIL, false, null, -1);
        }
        final int rcode = upstreamReply[3] & 0xF;
        if (rcode != DnsCodec.RCODE_NOERROR) {
            upstreamErrors.incrementAndGet();
            return reply(q, rcode, false, null, -1);
        }
        final byte[] mesh;
        try {
            mesh = DnsCodec.firstAaaaAnswer(upstreamReply, 0, upstreamReply.length);
        } catch (final DnsFormatException e) {
            servfail.incrementAndGet();
            return reply(q, DnsCodec.RCODE_SERVFAIL, false, null, -1);
        }
        if (mesh == null || (mesh[0] & 0xFF) != 0xFD) {
            servfail.incrementAndGet();
            return reply(q, DnsCodec.RCODE_SERVFAIL, false, null, -1);
        }
        final Inet6Address vip;
        try {
            vip = allocator.allocate(Addresses.v6(mesh), name);
        } catch (final VirtualPool.ExhaustedException | IOException e) {
            servfail.incrementAndGet();
            return reply(q, DnsCodec.RCODE_SERVFAIL, false, null, -1);
        }
        final int qtype = q.questions().getFirst().qtype();
        if (qtype == DnsCodec.TYPE_AAAA || qtype == DnsCodec.TYPE_ANY) {
            answered.incrementAndGet();
            return reply(q, DnsCodec.RCODE_NOERROR, true, vip.getAddress(), -1);
        }
        noData.incrementAndGet();
        return reply(q, DnsCodec.RCODE_NOERROR, false, null, unixSeconds.getAsLong() & 0xFFFF_FFFFL);
    }

    private byte[] reply(final DnsQuery q, final int rcode, final boolean firstOnly, final byte[] aaaa,
            final long soaSerial) {
        final byte[] out = new byte[BUFFER];
        try {
            final int n = DnsCodec.encodeGatewayReply(q, rcode, firstOnly, aaaa, ttl, soaSerial, out, 0);
            return Arrays.copyOf(out, n);
        } catch (final DnsFormatException e) {
            return null; // cannot happen below 4096 bytes for a query that fit 4096 bytes
        }
    }

    /** @return the upstream's reply to an AAAA query for name with the client's id, or null on timeout/error */
    private byte[] askUpstream(final int id, final String name) {
        final byte[] query = DnsCodec.encodeQuery(id, true, name, DnsCodec.TYPE_AAAA, -1);
        final StandardProtocolFamily family = upstream.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        try (DatagramChannel ch = DatagramChannel.open(family)) {
            ch.connect(upstream);
            ch.write(ByteBuffer.wrap(query));
            final long deadline = System.nanoTime() + upstreamTimeout.toNanos();
            final byte[] buf = new byte[BUFFER];
            final DatagramPacket p = new DatagramPacket(buf, buf.length);
            while (true) {
                final long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    return null;
                }
                ch.socket().setSoTimeout((int) Math.max(1, left));
                p.setLength(buf.length);
                ch.socket().receive(p);
                final int n = p.getLength();
                if (n >= DnsCodec.HEADER_LENGTH && ((buf[0] & 0xFF) << 8 | buf[1] & 0xFF) == id
                        && (buf[2] & 0x80) != 0) {
                    return Arrays.copyOf(buf, n);
                }
            }
        } catch (final SocketTimeoutException e) {
            return null;
        } catch (final IOException e) {
            return null; // refused (nothing listens), unreachable: SERVFAIL
        }
    }

    static String text(final InetSocketAddress a) {
        return a.getAddress() instanceof Inet6Address v6
                ? "[" + Addresses.text(v6) + "]:" + a.getPort() : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (final IOException e) {
            // closing; nothing to do
        }
        receiver.interrupt();
    }
}
