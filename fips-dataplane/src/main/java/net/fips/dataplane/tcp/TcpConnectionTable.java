package net.fips.dataplane.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The connections of a {@link TcpTransport} and their lives (transports.md §3.2): the pool keyed by
 * {@link TransportAddr} (outbound: the address dialled; inbound: the peer's {@code ip:port}), the epoll ids, outbound
 * connects (name look-ups off the loop, the connector's socket, the pre-link exchange), accepts with the inbound cap,
 * the connect and first-frame deadlines, and closing. Publishes each address's {@link ConnectionState} for the
 * control thread. Loop thread only, except the look-up threads, which only queue their answer.
 */
final class TcpConnectionTable {
    private static final System.Logger LOG = System.getLogger(TcpConnectionTable.class.getName());

    private final TcpTransportConfig cfg;
    private final String typeName;
    private final StreamConnector connector;
    private final TcpSocketOptions options;
    private final LongSupplier clock;
    private final int mtu;
    private final int epfd;
    private final int listenFd;
    private final TcpCounters counters;
    private final TcpAddressIds ids;
    private final Map<TransportAddr, ConnectionState> states;
    private final Queue<TcpRequest> requests;
    private final WakeFd wake;
    private final TransportPort port;
    private final BooleanSupplier running;
    private final String lookupThreadName;

    private final Map<TransportAddr, TcpConnection> pool = new HashMap<>();
    private TcpConnection[] conns = new TcpConnection[16];
    private final List<TcpConnection> connecting = new ArrayList<>();
    /** Addresses whose host name is being looked up off the loop, with the deadline of their connect. */
    private final Map<TransportAddr, Long> lookups = new HashMap<>();
    /** Accepted connections that have not sent a complete frame yet (the first-frame deadline, [master]). */
    private final List<TcpConnection> silent = new ArrayList<>();
    private int inboundCount;
    private int lastConnId = -1;

    TcpConnectionTable(final TcpTransportConfig cfg, final int epfd, final int listenFd, final TcpCounters counters,
                       final TcpAddressIds ids, final Map<TransportAddr, ConnectionState> states,
                       final Queue<TcpRequest> requests, final WakeFd wake, final TransportPort port,
                       final BooleanSupplier running, final String threadName) {
        this.cfg = cfg;
        this.typeName = cfg.typeName();
        this.connector = cfg.connector();
        this.options = cfg.socketOptions();
        this.clock = cfg.nanoClock();
        this.mtu = cfg.mtu();
        this.epfd = epfd;
        this.listenFd = listenFd;
        this.counters = counters;
        this.ids = ids;
        this.states = states;
        this.requests = requests;
        this.wake = wake;
        this.port = port;
        this.running = running;
        this.lookupThreadName = threadName + "-lookup";
    }

    /** @return the connection with epoll id {@code id}, or null */
    TcpConnection conn(final int id) {
        return id >= 0 && id < conns.length ? conns[id] : null;
    }

    /** @return one more than the largest epoll id in use or used (for scans with {@link #conn}) */
    int idLimit() {
        return conns.length;
    }

    /** @return the pooled connection for {@code address}, or null */
    TcpConnection get(final TransportAddr address) {
        return pool.get(address);
    }

    /** A close request: a pending look-up is forgotten, a connection closed. */
    void closeRequested(final TransportAddr address) {
        if (lookups.remove(address) != null) {
            states.remove(address);     // the look-up's answer will find nothing to connect
        } else {
            final TcpConnection c = pool.get(address);
            if (c != null) {
                close(c, "closed by the node");
            }
        }
    }

    /** @return how long the loop may sleep before the next deadline: 1..1000 ms */
    int nextTimeoutMs() {
        if (connecting.isEmpty() && silent.isEmpty() && lookups.isEmpty()) {
            return 1000;
        }
        long earliest = Long.MAX_VALUE;
        for (final long deadline : lookups.values()) {
            earliest = Math.min(earliest, deadline);
        }
        for (final TcpConnection c : connecting) {
            earliest = Math.min(earliest, c.deadlineNanos);
        }
        for (final TcpConnection c : silent) {
            earliest = Math.min(earliest, c.deadlineNanos);
        }
        final long ms = (earliest - clock.getAsLong()) / 1_000_000L + 1;
        return (int) Math.max(1, Math.min(1000, ms));
    }

    // ------------------------------------------------------------------ outbound connects

    /** A free id, searched from after the last one handed out, so an id is not reused within one epoll batch. */
    private int newConnId() {
        for (int k = 1; k <= conns.length; k++) {
            final int i = (lastConnId + k) % conns.length;
            if (conns[i] == null) {
                lastConnId = i;
                return i;
            }
        }
        final int id = conns.length;
        conns = Arrays.copyOf(conns, conns.length * 2);
        lastConnId = id;
        return id;
    }

    /** Starts connecting to {@code address} unless connected, connecting or stopping. */
    void startConnect(final TransportAddr address) {
        if (pool.containsKey(address) || lookups.containsKey(address) || !running.getAsBoolean()) {
            return;
        }
        if (connector.needsLookup(address)) {
            startLookup(address);
        } else {
            dial(address, address);
        }
    }

    /**
     * A host name: looked up on a thread of its own (a look-up can block for seconds, which on the loop would stall
     * every connection), bounded by the connect timeout; the answer comes back as a request.
     */
    private void startLookup(final TransportAddr address) {
        lookups.put(address, clock.getAsLong() + cfg.connectTimeoutMs() * 1_000_000L);
        states.put(address, ConnectionState.CONNECTING);
        Thread.ofPlatform().name(lookupThreadName).daemon().start(() -> {
            TcpRequest r;
            try {
                r = new TcpRequest(true, address, connector.lookup(address), null);
            } catch (final IOException | RuntimeException e) {
                r = new TcpRequest(true, address, null, e.getMessage() != null ? e.getMessage() : e.toString());
            }
            requests.add(r);
            wake.wake();
        });
    }

    /** A look-up's answer: connect, unless the address was closed or timed out meanwhile. */
    void lookedUp(final TcpRequest r) {
        if (lookups.remove(r.address()) == null || !running.getAsBoolean()) {
            return;
        }
        if (r.lookupError() != null) {
            states.put(r.address(), ConnectionState.FAILED);
            LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, r.address(),
                    r.lookupError());
            return;
        }
        dial(r.address(), r.resolved());
    }

    /** Opens a connection keyed by {@code address} to {@code to} (the same, or its looked-up literal). */
    private void dial(final TransportAddr address, final TransportAddr to) {
        final StreamConnector.Dial dial;
        try {
            dial = connector.open(to, options);
        } catch (final ErrnoException e) {
            if (e.errno() == Errno.ECONNREFUSED) {
                counters.add(TcpCounters.CONNECT_REFUSED, 1);
            }
            states.put(address, ConnectionState.FAILED);
            LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, address, e.getMessage());
            return;
        } catch (final IOException | RuntimeException e) {
            states.put(address, ConnectionState.FAILED);
            LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, address, e.getMessage());
            return;
        }
        final TcpConnection c = new TcpConnection(newConnId(), dial.fd(), address, ids.id(address), false);
        conns[c.id] = c;
        pool.put(address, c);
        states.put(address, ConnectionState.CONNECTING);
        c.preLink = dial.preLink();
        c.deadlineNanos = clock.getAsLong() + cfg.connectTimeoutMs() * 1_000_000L;
        try {
            Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, c.fd, Linux.EPOLLOUT, c.id);
            c.registered = Linux.EPOLLOUT;
        } catch (final ErrnoException e) {
            fail(c, "epoll: " + e.getMessage());
            return;
        }
        connecting.add(c);
        if (dial.connected()) {
            connected(c);
        } else {
            c.phase = TcpConnection.Phase.CONNECTING;
        }
    }

    /** A connecting socket is ready: connected (go on) or refused/failed (SO_ERROR). */
    void connectReady(final TcpConnection c) {
        final int err;
        try {
            err = Syscalls.getsockoptInt(c.fd, Linux.SOL_SOCKET, Linux.SO_ERROR, "SO_ERROR");
        } catch (final ErrnoException e) {
            fail(c, e.getMessage());
            return;
        }
        if (err == 0) {
            connected(c);
        } else {
            if (err == Errno.ECONNREFUSED) {
                counters.add(TcpCounters.CONNECT_REFUSED, 1);
            }
            fail(c, Errno.strerror(err));
        }
    }

    /** The socket is connected: run the pre-link exchange, if any, else establish. */
    private void connected(final TcpConnection c) {
        if (c.preLink != null) {
            c.phase = TcpConnection.Phase.PRELINK;
            stepPreLink(c);
        } else {
            establish(c);
        }
    }

    /** One step of the pre-link exchange, when its descriptor is ready. */
    void stepPreLink(final TcpConnection c) {
        final int r = c.preLink.step(c.fd);
        switch (r) {
            case StreamConnector.PreLink.DONE -> establish(c);
            case StreamConnector.PreLink.NEED_READ -> watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
            case StreamConnector.PreLink.NEED_WRITE -> watch(c, Linux.EPOLLOUT);
            default -> fail(c, "pre-link exchange failed");
        }
    }

    private void establish(final TcpConnection c) {
        connecting.remove(c);
        c.phase = TcpConnection.Phase.ESTABLISHED;
        c.preLink = null;
        c.rxMtu = receiveMtu(c.fd);
        watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
        if (c.inbound) {
            counters.add(TcpCounters.CONNECTIONS_ACCEPTED, 1);
            counters.add(TcpCounters.POOL_INBOUND, 1);
            inboundCount++;
        } else {
            counters.add(TcpCounters.CONNECTIONS_ESTABLISHED, 1);
            counters.add(TcpCounters.POOL_OUTBOUND, 1);
        }
        states.put(c.address, ConnectionState.CONNECTED);
        LOG.log(System.Logger.Level.DEBUG, "{0} connection {1} {2}", typeName, c.inbound ? "from" : "to", c.address);
    }

    /** transports.md §3.3: {@code min(TCP_MAXSEG, mtu)}, the configured mtu when the MSS is unknown. */
    private int receiveMtu(final int fd) {
        try {
            final int mss = Syscalls.getsockoptInt(fd, Linux.IPPROTO_TCP, Linux.TCP_MAXSEG, "TCP_MAXSEG");
            return mss > 0 ? Math.min(mss, mtu) : mtu;
        } catch (final ErrnoException e) {
            return mtu;
        }
    }

    /** Sets the epoll events of {@code c} (a failure closes it). */
    void watch(final TcpConnection c, final int events) {
        if (c.registered == events || c.phase == TcpConnection.Phase.CLOSED) {
            return;
        }
        try {
            Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_MOD, c.fd, events, c.id);
            c.registered = events;
        } catch (final ErrnoException e) {
            close(c, "epoll: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ inbound

    /** Accepts every waiting connection: over the cap or unusable ones are closed and counted as rejected. */
    void acceptAll(final CallState cs, final MemorySegment addr, final MemorySegment addrLen) {
        while (true) {
            addrLen.set(ValueLayout.JAVA_INT, 0, SockAddrs.STORAGE_SIZE);
            final int fd = Syscalls.accept4(cs, listenFd, addr, addrLen, Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
            if (fd < 0) {
                if (fd != -Errno.EAGAIN && fd != -Errno.EINTR) {
                    counters.add(TcpCounters.RECV_ERRORS, 1);
                }
                return;
            }
            if (inboundCount >= cfg.maxInboundConnections()) {
                counters.add(TcpCounters.CONNECTIONS_REJECTED, 1);
                Syscalls.closeQuietly(fd);
                continue;
            }
            final TransportAddr from;
            try {
                from = TransportAddr.ofInet(SockAddrs.decode(addr, addrLen.get(ValueLayout.JAVA_INT, 0)));
                options.applyStreamOptions(fd, from.toString());
            } catch (final SockAddrException | ErrnoException e) {
                counters.add(TcpCounters.CONNECTIONS_REJECTED, 1);
                Syscalls.closeQuietly(fd);
                continue;
            }
            final TcpConnection old = pool.get(from);
            if (old != null) {
                close(old, "replaced by a new connection from the same address");
            }
            final TcpConnection c = new TcpConnection(newConnId(), fd, from, ids.id(from), true);
            conns[c.id] = c;
            pool.put(from, c);
            c.deadlineNanos = clock.getAsLong() + cfg.firstFrameTimeoutMs() * 1_000_000L;
            silent.add(c);
            try {
                Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, fd, Linux.EPOLLIN | Linux.EPOLLRDHUP, c.id);
                c.registered = Linux.EPOLLIN | Linux.EPOLLRDHUP;
            } catch (final ErrnoException e) {
                dispose(c);
                pool.remove(from);
                continue;
            }
            establish(c);
        }
    }

    /** An inbound connection delivered its first complete frame: its first-frame deadline is met. */
    void firstFrame(final TcpConnection c) {
        if (c.inbound && c.deadlineNanos != 0) {
            c.deadlineNanos = 0;
            silent.remove(c);
        }
    }

    // ------------------------------------------------------------------ deadlines and closing

    /** Fails look-ups and connects past the connect timeout, closes accepted connections silent past theirs. */
    void expire() {
        if (connecting.isEmpty() && silent.isEmpty() && lookups.isEmpty()) {
            return;
        }
        final long now = clock.getAsLong();
        if (!lookups.isEmpty()) {
            final var it = lookups.entrySet().iterator();
            while (it.hasNext()) {
                final var e = it.next();
                if (now - e.getValue() >= 0) {
                    it.remove();
                    counters.add(TcpCounters.CONNECT_TIMEOUTS, 1);
                    states.put(e.getKey(), ConnectionState.FAILED);
                    LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: name look-up took over {2} ms",
                            typeName, e.getKey(), cfg.connectTimeoutMs());
                }
            }
        }
        for (int i = silent.size() - 1; i >= 0; i--) {
            final TcpConnection c = silent.get(i);
            if (now - c.deadlineNanos >= 0) {
                counters.add(TcpCounters.RECV_ERRORS, 1);
                close(c, "no complete frame within " + cfg.firstFrameTimeoutMs() + " ms of accept");
            }
        }
        for (int i = connecting.size() - 1; i >= 0; i--) {
            final TcpConnection c = connecting.get(i);
            if (now - c.deadlineNanos >= 0) {
                counters.add(TcpCounters.CONNECT_TIMEOUTS, 1);
                fail(c, "connect timed out after " + cfg.connectTimeoutMs() + " ms");
            }
        }
    }

    /** A connect that did not finish: closed, its address FAILED until the next connect. */
    private void fail(final TcpConnection c, final String why) {
        LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, c.address, why);
        connecting.remove(c);
        if (pool.get(c.address) == c) {
            pool.remove(c.address);
        }
        states.put(c.address, ConnectionState.FAILED);
        dispose(c);
    }

    /** {@link #close} with a WARNING naming the transport, the address and why (a proxied stream that ended). */
    void closeWithWarning(final TcpConnection c, final String why) {
        if (c.phase != TcpConnection.Phase.CLOSED) {
            LOG.log(System.Logger.Level.WARNING, "{0} connection {1} {2} lost: {3}", typeName,
                    c.inbound ? "from" : "to", c.address, why);
        }
        close(c, why);
    }

    /** An established (or pending) connection ends: out of the pool, gauges down, state NONE. */
    void close(final TcpConnection c, final String why) {
        if (c.phase == TcpConnection.Phase.CLOSED) {
            return;
        }
        if (c.phase != TcpConnection.Phase.ESTABLISHED) {
            fail(c, why);
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "{0} connection {1} {2} closed: {3}", typeName,
                c.inbound ? "from" : "to", c.address, why);
        if (c.inbound) {
            inboundCount--;
            counters.add(TcpCounters.POOL_INBOUND, -1);
        } else {
            counters.add(TcpCounters.POOL_OUTBOUND, -1);
        }
        if (pool.get(c.address) == c) {
            pool.remove(c.address);
            states.remove(c.address);
        }
        dispose(c);
    }

    private void dispose(final TcpConnection c) {
        c.phase = TcpConnection.Phase.CLOSED;
        if (c.inbound && c.deadlineNanos != 0) {
            silent.remove(c);
        }
        while (c.pendingCount > 0) {
            port.release(c.oldestHeld());
            c.dropOldestHeld();
            counters.add(TcpCounters.SEND_ERRORS, 1);
        }
        if (conns[c.id] == c) {
            conns[c.id] = null;
        }
        Syscalls.closeQuietly(c.fd);
        c.arena.close();
    }

    /** The loop ends: every connection closed (held slots returned), the published states cleared. */
    void disposeAll() {
        for (final TcpConnection c : conns) {
            if (c != null) {
                dispose(c);
            }
        }
        pool.clear();
        lookups.clear();
        states.clear();
    }
}
