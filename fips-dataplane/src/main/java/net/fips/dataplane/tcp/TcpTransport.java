package net.fips.dataplane.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.LoopThread;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The TCP transport (transports.md §3): FMP packets written to a stream as they are and found again by their
 * common prefix ({@link FmpStreamFramer}), an optional listener ({@link TcpListener}), non-blocking outbound
 * connects through a pluggable {@link StreamConnector}, and a pool of connections keyed by {@link TransportAddr}
 * ({@link TcpConnectionTable}).
 *
 * <p><b>One thread.</b> Everything but this class's metadata and requests runs on the transport's loop thread
 * ({@link TcpLoop}, {@code fips-tcp-N}), which waits in {@code epoll_wait} on the listener, every connection and an
 * eventfd: it accepts, connects, reads and deframes each packet into a pool slot handed over with
 * {@link TransportPort#deliver} ({@link TcpStreamReader}), and sends what the workers queued ({@link TcpStreamWriter}:
 * copied into the connection's stream buffer, flushed with one {@code writev} per connection per round; partial
 * writes wait for EPOLLOUT). Other threads only queue requests ({@link #connect}, {@link #closeConnection}), read
 * the published connection states and counters ({@link TcpCounters}), and {@link #wakeup()} it.
 *
 * <p><b>Sources.</b> A received packet's source bytes are a 4-byte id of its connection's pool key
 * ({@link TcpAddressIds}: handed out per distinct address and never reused), so a link's {@link TransportDestination}
 * recognises its own connection without allocating, whatever the address text.
 *
 * <p><b>Sending without a connection</b> fails at once: counted in {@code send_errors}, a background connect is
 * started, the slot is released (transports.md §1.3); later frames use the connection once it is up.
 */
public final class TcpTransport implements Transport {
    private final TcpTransportConfig cfg;
    private final int mtu;
    private final String typeName;
    private final WakeFd wake;
    private final int epfd;
    private final int listenFd;
    private final TransportAddr localAddr;
    private final TcpCounters counters = new TcpCounters();
    private final TcpAddressIds ids = new TcpAddressIds();
    private final ConcurrentHashMap<TransportAddr, ConnectionState> states = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<TcpRequest> requests = new ConcurrentLinkedQueue<>();
    private final LoopThread thread = new LoopThread();
    private volatile State state = State.CONFIGURED;
    private volatile TcpLoop loop;
    private volatile boolean closed;

    private TcpTransport(final TcpTransportConfig cfg, final WakeFd wake, final int epfd, final int listenFd,
                         final TransportAddr localAddr) {
        this.cfg = cfg;
        this.mtu = cfg.mtu();
        this.typeName = cfg.typeName();
        this.wake = wake;
        this.epfd = epfd;
        this.listenFd = listenFd;
        this.localAddr = localAddr;
    }

    /**
     * Creates the transport and, with a bind address, binds and listens (so a busy address refuses the start).
     *
     * @throws IOException naming the failing call and address
     */
    public static TcpTransport open(final TcpTransportConfig cfg) throws IOException {
        cfg.check();
        if (!Syscalls.isAvailable()) {
            throw new TransportException("TCP transport needs native access (--enable-native-access=net.fips.ffm)",
                    Syscalls.unavailabilityCause());
        }
        final WakeFd wake = WakeFd.open();
        int epfd = -1;
        TcpListener listener = null;
        try {
            epfd = Syscalls.epollCreate1(Linux.EPOLL_CLOEXEC);
            Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, wake.fd(), Linux.EPOLLIN, TcpLoop.WAKE_ID);
            if (cfg.bindAddress() != null) {
                listener = TcpListener.open(cfg.bindAddress(), cfg.socketOptions());
                Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, listener.fd(), Linux.EPOLLIN, TcpLoop.LISTENER_ID);
            }
            return listener == null ? new TcpTransport(cfg, wake, epfd, -1, null)
                    : new TcpTransport(cfg, wake, epfd, listener.fd(), listener.local());
        } catch (final IOException | RuntimeException e) {
            if (listener != null) {
                Syscalls.closeQuietly(listener.fd());
            }
            if (epfd >= 0) {
                Syscalls.closeQuietly(epfd);
            }
            wake.close();
            throw e;
        }
    }

    /** @return whether {@code e} (from {@link #open}) says the bind address is in use */
    public static boolean isAddressInUse(final IOException e) {
        return e instanceof ErrnoException x && x.errno() == Errno.EADDRINUSE;
    }

    // ------------------------------------------------------------------ Transport: metadata

    @Override
    public String typeName() {
        return typeName;
    }

    @Override
    public String instanceName() {
        return cfg.instanceName();
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    /** {@inheritDoc} TCP: only with a listener ({@code bind_addr} configured). */
    @Override
    public boolean acceptConnections() {
        return listenFd >= 0;
    }

    @Override
    public TransportAddr localAddr() {
        return localAddr;
    }

    @Override
    public Map<String, Long> stats() {
        return counters.snapshot();
    }

    /** @return connections closed for a framing violation (also counted in {@code recv_errors}) */
    public long framingErrors() {
        return counters.get(TcpCounters.FRAMING_ERRORS);
    }

    // ------------------------------------------------------------------ Transport: addresses

    @Override
    public TransportDestination destination(final TransportAddr address) throws TransportException {
        if (address.text() == null) {
            throw new TransportException("TCP address " + address + " is not text");
        }
        return new TcpDestination(address, ids.id(address));
    }

    @Override
    public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        return ids.address(source, offset, length);
    }

    // ------------------------------------------------------------------ Transport: connections

    @Override
    public void connect(final TransportAddr address) {
        final ConnectionState s = states.get(address);
        if (s == ConnectionState.CONNECTING || s == ConnectionState.CONNECTED) {
            return;
        }
        requests.add(new TcpRequest(true, address));
        wake.wake();
    }

    @Override
    public ConnectionState connectionState(final TransportAddr address) {
        return states.getOrDefault(address, ConnectionState.NONE);
    }

    @Override
    public void closeConnection(final TransportAddr address) {
        requests.add(new TcpRequest(false, address));
        wake.wake();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public synchronized void start(final TransportPort p) throws IOException {
        if (thread.started()) {
            throw new IllegalStateException("already started");
        }
        if (p.pool().maxMtuBytes() < mtu) {
            throw new TransportException("TCP mtu " + mtu + " exceeds the pool's " + p.pool().maxMtuBytes());
        }
        state = State.STARTING;
        final String name = "fips-" + typeName + "-" + p.transportId();
        final TcpLoop l = new TcpLoop(this, p, cfg, epfd, listenFd, wake, requests, counters, ids, states, name);
        loop = l;
        thread.start(name, l);
        state = State.UP;
    }

    /** The loop thread died of an exception: the transport is {@link State#FAILED}. */
    void loopFailed() {
        state = State.FAILED;
    }

    @Override
    public void wakeup() {
        final TcpLoop l = loop;
        if (l != null) {
            l.wakeup();
        }
    }

    @Override
    public void stop() {
        final TcpLoop l = loop;
        if (l != null) {
            l.stop();
            thread.join();
        }
        state = State.DOWN;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        stop();
        if (listenFd >= 0) {
            Syscalls.closeQuietly(listenFd);
        }
        Syscalls.closeQuietly(epfd);
        wake.close();
        state = State.DOWN;
    }

    @Override
    public String toString() {
        return typeName + "{" + (localAddr == null ? "outbound only" : localAddr) + "}";
    }
}
