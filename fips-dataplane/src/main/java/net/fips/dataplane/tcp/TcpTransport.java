package net.fips.dataplane.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.EpollEvents;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The TCP transport (transports.md §3): FMP packets written to a stream as they are and found again by their
 * common prefix ({@link FmpStreamFramer}), an optional listener, non-blocking outbound connects through a pluggable
 * {@link StreamConnector}, and a pool of connections keyed by {@link TransportAddr}.
 *
 * <p><b>One thread.</b> Everything below runs on the transport's loop thread ({@code fips-tcp-N}), which waits in
 * {@code epoll_wait} on the listener, every connection and an eventfd: it accepts, connects, reads and deframes
 * each packet into a pool slot handed over with {@link TransportPort#deliver}, and sends what the workers queued
 * (copied into the connection's stream buffer, flushed with one {@code writev} per connection per round; partial
 * writes wait for EPOLLOUT). Other threads only queue requests ({@link #connect}, {@link #closeConnection}), read
 * the published connection states and counters, and {@link #wakeup()} it.
 *
 * <p><b>Sources.</b> A received packet's source bytes are a 4-byte id of its connection's pool key (ids are handed
 * out per distinct address and never reused), so a link's {@link TransportDestination} recognises its own
 * connection without allocating, whatever the address text.
 *
 * <p><b>Sending without a connection</b> fails at once: counted in {@code send_errors}, a background connect is
 * started, the slot is released (transports.md §1.3); later frames use the connection once it is up.
 */
public final class TcpTransport implements Transport {
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int IN_BUFFER_BYTES = 64 * 1024;
    private static final int OUT_BUFFER_BYTES = 128 * 1024;
    private static final int MAX_EVENTS = 64;
    private static final int DRAIN_BATCH = 64;
    private static final int READS_PER_EVENT = 8;
    private static final long WAKE_ID = -1;
    private static final long LISTENER_ID = -2;
    private static final int SOURCE_BYTES = 4;
    /** Frames held per connection while its socket and stream buffer are full (back-pressure, not loss). */
    private static final int PENDING_SLOTS = 256;

    // counter indices (the reference's §1.8 names, in its order)
    private static final int PACKETS_SENT = 0;
    private static final int BYTES_SENT = 1;
    private static final int PACKETS_RECV = 2;
    private static final int BYTES_RECV = 3;
    private static final int SEND_ERRORS = 4;
    private static final int RECV_ERRORS = 5;
    private static final int MTU_EXCEEDED = 6;
    private static final int CONNECTIONS_ESTABLISHED = 7;
    private static final int CONNECTIONS_ACCEPTED = 8;
    private static final int CONNECTIONS_REJECTED = 9;
    private static final int CONNECT_TIMEOUTS = 10;
    private static final int CONNECT_REFUSED = 11;
    private static final int POOL_INBOUND = 12;
    private static final int POOL_OUTBOUND = 13;
    private static final int FRAMING_ERRORS = 14;
    private static final String[] COUNTER_NAMES = {"packets_sent", "bytes_sent", "packets_recv", "bytes_recv",
            "send_errors", "recv_errors", "mtu_exceeded", "connections_established", "connections_accepted",
            "connections_rejected", "connect_timeouts", "connect_refused", "pool_inbound", "pool_outbound"};

    private enum Phase { CONNECTING, PRELINK, ESTABLISHED, CLOSED }

    /**
     * A request from another thread for the loop: connect or close {@code address}, or (from a look-up thread) the
     * outcome of a name look-up for it: {@code resolved} to open, or {@code lookupError}.
     */
    private record Request(boolean connect, TransportAddr address, TransportAddr resolved, String lookupError) {
        Request(final boolean connect, final TransportAddr address) {
            this(connect, address, null, null);
        }

        boolean lookupDone() {
            return resolved != null || lookupError != null;
        }
    }

    /** One connection; loop thread only. */
    private static final class Conn {
        final int id;
        final int fd;
        final TransportAddr address;
        final int addressId;
        final boolean inbound;
        final Arena arena = Arena.ofConfined();
        final MemorySegment in = arena.allocate(IN_BUFFER_BYTES, 64);
        final MemorySegment out = arena.allocate(OUT_BUFFER_BYTES, 64);
        Phase phase;
        StreamConnector.PreLink preLink;
        long deadlineNanos;
        int rxMtu;
        int inStart;
        int inEnd;
        int outStart;
        int outEnd;
        boolean dirty;
        boolean stalled;
        int registered;
        /** Slots waiting, in order, for room in {@link #out}; owned by this connection until copied. */
        final int[] pending = new int[PENDING_SLOTS];
        int pendingHead;
        int pendingCount;

        Conn(final int id, final int fd, final TransportAddr address, final int addressId, final boolean inbound) {
            this.id = id;
            this.fd = fd;
            this.address = address;
            this.addressId = addressId;
            this.inbound = inbound;
        }
    }

    /** The per-link handle: the pool key and its id; {@code cached} is the loop's last lookup. */
    static final class TcpDestination implements TransportDestination {
        final TransportAddr address;
        final int addressId;
        Conn cached;

        TcpDestination(final TransportAddr address, final int addressId) {
            this.address = address;
            this.addressId = addressId;
        }

        @Override
        public TransportAddr transportAddr() {
            return address;
        }

        @Override
        public boolean sameEndpoint(final MemorySegment source, final long offset, final int length) {
            return length == SOURCE_BYTES && source.get(INT_LE, offset) == addressId;
        }

        @Override
        public String toString() {
            return address.toString();
        }
    }

    private final TcpTransportConfig cfg;
    private final TcpSocketOptions options;
    private final StreamConnector connector;
    private final LongSupplier clock;
    private final int mtu;
    private final String typeName;
    private final Arena arena = Arena.ofShared();
    private final WakeFd wake;
    private final int epfd;
    private final int listenFd;
    private final TransportAddr localAddr;
    private final AtomicLongArray counters = new AtomicLongArray(FRAMING_ERRORS + 1);
    private final ConcurrentHashMap<TransportAddr, ConnectionState> states = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TransportAddr, Integer> idOf = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, TransportAddr> addressOf = new ConcurrentHashMap<>();
    private final AtomicInteger nextAddressId = new AtomicInteger(1);
    private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();
    private volatile State state = State.CONFIGURED;
    private volatile boolean running;
    private volatile boolean sleeping;
    private volatile boolean closed;
    private Thread thread;
    private TransportPort port;

    // ---- loop thread only ----
    private final Map<TransportAddr, Conn> pool = new HashMap<>();
    private Conn[] conns = new Conn[16];
    private final List<Conn> connecting = new ArrayList<>();
    /** Addresses whose host name is being looked up off the loop, with the deadline of their connect. */
    private final Map<TransportAddr, Long> lookups = new HashMap<>();
    /** Accepted connections that have not sent a complete frame yet (the first-frame deadline, [master]). */
    private final List<Conn> silent = new ArrayList<>();
    private int[] dirty = new int[16];
    private int dirtyCount;
    private int inboundCount;
    private boolean anyStalled;
    private int lastConnId = -1;

    private TcpTransport(final TcpTransportConfig cfg, final WakeFd wake, final int epfd, final int listenFd,
                         final TransportAddr localAddr) {
        this.cfg = cfg;
        this.options = cfg.socketOptions();
        this.connector = cfg.connector();
        this.clock = cfg.nanoClock();
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
        int lfd = -1;
        try {
            epfd = Syscalls.epollCreate1(Linux.EPOLL_CLOEXEC);
            Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, wake.fd(), Linux.EPOLLIN, WAKE_ID);
            TransportAddr local = null;
            if (cfg.bindAddress() != null) {
                final InetSocketAddress bind = UdpAddresses.parse(cfg.bindAddress());
                final boolean v6 = bind.getAddress() instanceof Inet6Address;
                final String where = UdpAddresses.format(bind);
                lfd = Syscalls.socket(v6 ? Linux.AF_INET6 : Linux.AF_INET,
                        Linux.SOCK_STREAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, Linux.IPPROTO_TCP);
                Syscalls.setsockoptInt(lfd, Linux.SOL_SOCKET, Linux.SO_REUSEADDR, 1, "SO_REUSEADDR on TCP " + where);
                if (v6) {
                    Syscalls.setsockoptInt(lfd, Linux.IPPROTO_IPV6, Linux.IPV6_V6ONLY, 0, "IPV6_V6ONLY=0 on " + where);
                }
                // Accepted sockets inherit the buffers, set before the handshake so the window scale can use them.
                cfg.socketOptions().apply(lfd, where);
                try (Arena a = Arena.ofConfined()) {
                    final MemorySegment sa = a.allocate(SockAddrs.STORAGE_SIZE, 8);
                    final int len;
                    try {
                        len = SockAddrs.encode(bind, sa, v6);
                    } catch (final SockAddrException e) {
                        throw new TransportException("TCP bind address " + where + ": " + e.getMessage(), e);
                    }
                    Syscalls.bind(lfd, sa, len, "TCP " + where);
                    Syscalls.listen(lfd, TcpTransportConfig.BACKLOG, "TCP " + where);
                    final int n = Syscalls.getsockname(lfd, sa);
                    local = TransportAddr.ofInet(SockAddrs.decode(sa, n));
                } catch (final SockAddrException e) {
                    throw new TransportException("TCP " + where + ": getsockname gave " + e.getMessage(), e);
                }
                Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_ADD, lfd, Linux.EPOLLIN, LISTENER_ID);
            }
            return new TcpTransport(cfg, wake, epfd, lfd, local);
        } catch (final IOException | RuntimeException e) {
            if (lfd >= 0) {
                Syscalls.closeQuietly(lfd);
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
        final Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < COUNTER_NAMES.length; i++) {
            m.put(COUNTER_NAMES[i], counters.getOpaque(i));
        }
        return m;
    }

    /** @return connections closed for a framing violation (also counted in {@code recv_errors}) */
    public long framingErrors() {
        return counters.getOpaque(FRAMING_ERRORS);
    }

    // ------------------------------------------------------------------ Transport: addresses

    private int addressId(final TransportAddr address) {
        final Integer known = idOf.get(address);
        if (known != null) {
            return known;
        }
        return idOf.computeIfAbsent(address, a -> {
            final int id = nextAddressId.getAndIncrement();
            addressOf.put(id, a);
            return id;
        });
    }

    @Override
    public TransportDestination destination(final TransportAddr address) throws TransportException {
        if (address.text() == null) {
            throw new TransportException("TCP address " + address + " is not text");
        }
        return new TcpDestination(address, addressId(address));
    }

    @Override
    public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        if (length != SOURCE_BYTES) {
            return null;
        }
        return addressOf.get(source.get(INT_LE, offset));
    }

    // ------------------------------------------------------------------ Transport: connections

    @Override
    public void connect(final TransportAddr address) {
        final ConnectionState s = states.get(address);
        if (s == ConnectionState.CONNECTING || s == ConnectionState.CONNECTED) {
            return;
        }
        requests.add(new Request(true, address));
        wake.wake();
    }

    @Override
    public ConnectionState connectionState(final TransportAddr address) {
        return states.getOrDefault(address, ConnectionState.NONE);
    }

    @Override
    public void closeConnection(final TransportAddr address) {
        requests.add(new Request(false, address));
        wake.wake();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public synchronized void start(final TransportPort p) throws IOException {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        if (p.pool().maxMtuBytes() < mtu) {
            throw new TransportException("TCP mtu " + mtu + " exceeds the pool's " + p.pool().maxMtuBytes());
        }
        this.port = p;
        state = State.STARTING;
        running = true;
        thread = new Thread(this::run, "fips-" + typeName + "-" + p.transportId());
        thread.setDaemon(true);
        thread.start();
        state = State.UP;
    }

    @Override
    public void wakeup() {
        // Pairs with the loop's fence between announcing sleep and re-checking its rings (Dekker).
        VarHandle.fullFence();
        if (sleeping) {
            wake.wake();
        }
    }

    @Override
    public void stop() {
        final Thread t;
        synchronized (this) {
            t = thread;
            running = false;
        }
        if (t != null) {
            wake.wake();
            try {
                t.join(5000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
        arena.close();
        state = State.DOWN;
    }

    @Override
    public String toString() {
        return typeName + "{" + (localAddr == null ? "outbound only" : localAddr) + "}";
    }

    // ------------------------------------------------------------------ the loop

    private void run() {
        final CallState cs = CallState.allocate(arena);
        final MemorySegment events = arena.allocate(EpollEvents.SIZE * MAX_EVENTS, 8);
        final MemorySegment wakeValue = arena.allocate(Long.BYTES, 8);
        final MemorySegment source = arena.allocate(SOURCE_BYTES, 8);
        final MemorySegment acceptAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
        final MemorySegment acceptLen = arena.allocate(Integer.BYTES, 8);
        final IoVec iov = new IoVec(arena);
        final int[] slots = new int[DRAIN_BATCH];
        try {
            while (running) {
                boolean busy = processRequests();
                busy |= sendQueued(cs, iov, slots);
                if (anyStalled) {
                    busy |= retryStalled(source);
                }
                int timeout = busy ? 0 : nextTimeoutMs();
                if (timeout != 0) {
                    sleeping = true;
                    VarHandle.fullFence();
                    if (port.hasOutbound() || !requests.isEmpty() || !running) {
                        timeout = 0;
                    }
                }
                final int n = Syscalls.epollWait(cs, epfd, events, MAX_EVENTS, timeout);
                sleeping = false;
                for (int i = 0; i < n; i++) {
                    final long data = EpollEvents.data(events, i);
                    final int ev = EpollEvents.events(events, i);
                    if (data == WAKE_ID) {
                        Syscalls.read(cs, wake.fd(), wakeValue, Long.BYTES);
                    } else if (data == LISTENER_ID) {
                        acceptAll(cs, acceptAddr, acceptLen);
                    } else {
                        final int id = (int) data;
                        final Conn c = id < conns.length ? conns[id] : null;
                        if (c != null) {
                            onReady(cs, iov, source, c, ev);
                        }
                    }
                }
                port.flush();
                expireConnects();
            }
        } catch (final RuntimeException | Error e) {
            state = State.FAILED;
            LOG.log(System.Logger.Level.ERROR, typeName + " transport loop failed; it has stopped", e);
        } finally {
            for (final Conn c : conns) {
                if (c != null) {
                    dispose(c);
                }
            }
            pool.clear();
            lookups.clear();
            states.clear();
        }
    }

    private int nextTimeoutMs() {
        if (anyStalled) {
            return 1;
        }
        if (connecting.isEmpty() && silent.isEmpty() && lookups.isEmpty()) {
            return 1000;
        }
        long earliest = Long.MAX_VALUE;
        for (final long deadline : lookups.values()) {
            earliest = Math.min(earliest, deadline);
        }
        for (final Conn c : connecting) {
            earliest = Math.min(earliest, c.deadlineNanos);
        }
        for (final Conn c : silent) {
            earliest = Math.min(earliest, c.deadlineNanos);
        }
        final long ms = (earliest - clock.getAsLong()) / 1_000_000L + 1;
        return (int) Math.max(1, Math.min(1000, ms));
    }

    private boolean processRequests() {
        boolean any = false;
        Request r;
        while ((r = requests.poll()) != null) {
            any = true;
            if (r.lookupDone()) {
                lookedUp(r);
            } else if (r.connect()) {
                startConnect(r.address());
            } else if (lookups.remove(r.address()) != null) {
                states.remove(r.address());     // the look-up's answer will find nothing to connect
            } else {
                final Conn c = pool.get(r.address());
                if (c != null) {
                    close(c, "closed by the node");
                }
            }
        }
        return any;
    }

    // ------------------------------------------------------------------ outbound

    private boolean sendQueued(final CallState cs, final IoVec iov, final int[] slots) {
        final PacketPool pool = port.pool();
        boolean any = false;
        int n;
        int rounds = 0;
        while (rounds++ < 16 && (n = port.drainOutbound(slots, slots.length)) > 0) {
            any = true;
            for (int i = 0; i < n; i++) {
                final int slot = slots[i];
                final TransportDestination d = port.takeDestination(slot);
                if (!(d instanceof TcpDestination dst)) {
                    add(SEND_ERRORS, 1);
                    port.release(slot);
                } else if (!queue(cs, iov, dst, slot, pool.slotSegment(slot))) {
                    port.release(slot);
                }
            }
            flushDirty(cs, iov);
        }
        return any;
    }

    /**
     * Puts one frame on its connection's stream. A frame that finds the socket and the stream buffer full waits in
     * the connection's pending queue (TCP is reliable: back-pressure rather than loss) until EPOLLOUT.
     *
     * @return true when the connection kept the slot (pending); false when the caller releases it
     */
    private boolean queue(final CallState cs, final IoVec iov, final TcpDestination dst, final int slot,
                          final MemorySegment seg) {
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        if (len > mtu) {
            add(MTU_EXCEEDED, 1);
            return false;
        }
        Conn c = dst.cached;
        if (c == null || c.phase == Phase.CLOSED) {
            c = pool.get(dst.address);
            dst.cached = c;
        }
        if (c == null) {
            add(SEND_ERRORS, 1);
            startConnect(dst.address);
            return false;
        }
        if (c.phase != Phase.ESTABLISHED) {
            add(SEND_ERRORS, 1);
            return false;
        }
        if (c.pendingCount > 0 || !room(cs, iov, c, len)) {
            if (c.pendingCount == PENDING_SLOTS) {
                add(SEND_ERRORS, 1);
                return false;
            }
            c.pending[(c.pendingHead + c.pendingCount++) % PENDING_SLOTS] = slot;
            return true;
        }
        append(c, seg, len);
        return false;
    }

    /** Whether {@code len} more bytes fit the stream buffer, compacting and flushing once if needed. */
    private boolean room(final CallState cs, final IoVec iov, final Conn c, final int len) {
        if (OUT_BUFFER_BYTES - c.outEnd >= len) {
            return true;
        }
        compactOut(c);
        if (OUT_BUFFER_BYTES - c.outEnd >= len) {
            return true;
        }
        flush(cs, iov, c);
        compactOut(c);
        return c.phase == Phase.ESTABLISHED && OUT_BUFFER_BYTES - c.outEnd >= len;
    }

    /** Moves pending frames into the stream buffer while they fit (after EPOLLOUT made room). */
    private void drainPending(final CallState cs, final IoVec iov, final Conn c) {
        final PacketPool pool = port.pool();
        while (true) {
            while (c.pendingCount > 0 && c.phase == Phase.ESTABLISHED) {
                final int slot = c.pending[c.pendingHead];
                final MemorySegment seg = pool.slotSegment(slot);
                final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                compactOut(c);
                if (OUT_BUFFER_BYTES - c.outEnd < len) {
                    break;
                }
                append(c, seg, len);
                port.release(slot);
                c.pendingHead = (c.pendingHead + 1) % PENDING_SLOTS;
                c.pendingCount--;
            }
            flush(cs, iov, c);
            // Stop when nothing waits, the connection died, or the socket is full again (EPOLLOUT is armed).
            if (c.pendingCount == 0 || c.phase != Phase.ESTABLISHED || c.outEnd > c.outStart) {
                return;
            }
        }
    }

    private void append(final Conn c, final MemorySegment seg, final int len) {
        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        MemorySegment.copy(seg, off, c.out, c.outEnd, len);
        c.outEnd += len;
        add(PACKETS_SENT, 1);
        if (!c.dirty) {
            c.dirty = true;
            if (dirtyCount == dirty.length) {
                dirty = java.util.Arrays.copyOf(dirty, dirty.length * 2);
            }
            dirty[dirtyCount++] = c.id;
        }
    }

    private static void compactOut(final Conn c) {
        if (c.outStart > 0) {
            final int pending = c.outEnd - c.outStart;
            MemorySegment.copy(c.out, c.outStart, c.out, 0, pending);
            c.outStart = 0;
            c.outEnd = pending;
        }
    }

    private void flushDirty(final CallState cs, final IoVec iov) {
        for (int i = 0; i < dirtyCount; i++) {
            final Conn c = conns[dirty[i]];
            if (c != null) {
                c.dirty = false;
                if (c.phase == Phase.ESTABLISHED) {
                    flush(cs, iov, c);
                }
            }
        }
        dirtyCount = 0;
    }

    /** Writes as much of the stream buffer as the socket takes; the rest waits for EPOLLOUT. */
    private void flush(final CallState cs, final IoVec iov, final Conn c) {
        while (c.outStart < c.outEnd) {
            iov.set(c.out, c.outStart, c.outEnd - c.outStart);
            final long r = Syscalls.writev(cs, c.fd, iov.segment(), 1);
            if (r > 0) {
                c.outStart += (int) r;
                add(BYTES_SENT, r);
            } else if (r == -Errno.EAGAIN) {
                watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP | Linux.EPOLLOUT);
                return;
            } else if (r != -Errno.EINTR) {
                add(SEND_ERRORS, 1);
                close(c, "write failed: " + Errno.strerror((int) -r));
                return;
            }
        }
        c.outStart = 0;
        c.outEnd = 0;
        watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
    }

    // ------------------------------------------------------------------ connections

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
        conns = java.util.Arrays.copyOf(conns, conns.length * 2);
        lastConnId = id;
        return id;
    }

    private void startConnect(final TransportAddr address) {
        if (pool.containsKey(address) || lookups.containsKey(address) || !running) {
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
        Thread.ofPlatform().name(thread.getName() + "-lookup").daemon().start(() -> {
            Request r;
            try {
                r = new Request(true, address, connector.lookup(address), null);
            } catch (final IOException | RuntimeException e) {
                r = new Request(true, address, null, e.getMessage() != null ? e.getMessage() : e.toString());
            }
            requests.add(r);
            wake.wake();
        });
    }

    /** A look-up's answer: connect, unless the address was closed or timed out meanwhile. */
    private void lookedUp(final Request r) {
        if (lookups.remove(r.address()) == null || !running) {
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
                add(CONNECT_REFUSED, 1);
            }
            states.put(address, ConnectionState.FAILED);
            LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, address, e.getMessage());
            return;
        } catch (final IOException | RuntimeException e) {
            states.put(address, ConnectionState.FAILED);
            LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, address, e.getMessage());
            return;
        }
        final Conn c = new Conn(newConnId(), dial.fd(), address, addressId(address), false);
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
            c.phase = Phase.CONNECTING;
        }
    }

    /** The socket is connected: run the pre-link exchange, if any, else establish. */
    private void connected(final Conn c) {
        if (c.preLink != null) {
            c.phase = Phase.PRELINK;
            stepPreLink(c);
        } else {
            establish(c);
        }
    }

    private void stepPreLink(final Conn c) {
        final int r = c.preLink.step(c.fd);
        switch (r) {
            case StreamConnector.PreLink.DONE -> establish(c);
            case StreamConnector.PreLink.NEED_READ -> watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
            case StreamConnector.PreLink.NEED_WRITE -> watch(c, Linux.EPOLLOUT);
            default -> fail(c, "pre-link exchange failed");
        }
    }

    private void establish(final Conn c) {
        connecting.remove(c);
        c.phase = Phase.ESTABLISHED;
        c.preLink = null;
        c.rxMtu = receiveMtu(c.fd);
        watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
        if (c.inbound) {
            add(CONNECTIONS_ACCEPTED, 1);
            add(POOL_INBOUND, 1);
            inboundCount++;
        } else {
            add(CONNECTIONS_ESTABLISHED, 1);
            add(POOL_OUTBOUND, 1);
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

    private void watch(final Conn c, final int events) {
        if (c.registered == events || c.phase == Phase.CLOSED) {
            return;
        }
        try {
            Syscalls.epollCtl(epfd, Linux.EPOLL_CTL_MOD, c.fd, events, c.id);
            c.registered = events;
        } catch (final ErrnoException e) {
            close(c, "epoll: " + e.getMessage());
        }
    }

    private void acceptAll(final CallState cs, final MemorySegment addr, final MemorySegment addrLen) {
        while (true) {
            addrLen.set(ValueLayout.JAVA_INT, 0, SockAddrs.STORAGE_SIZE);
            final int fd = Syscalls.accept4(cs, listenFd, addr, addrLen, Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
            if (fd < 0) {
                if (fd != -Errno.EAGAIN && fd != -Errno.EINTR) {
                    add(RECV_ERRORS, 1);
                }
                return;
            }
            if (inboundCount >= cfg.maxInboundConnections()) {
                add(CONNECTIONS_REJECTED, 1);
                Syscalls.closeQuietly(fd);
                continue;
            }
            final TransportAddr from;
            try {
                from = TransportAddr.ofInet(SockAddrs.decode(addr, addrLen.get(ValueLayout.JAVA_INT, 0)));
                options.applyStreamOptions(fd, from.toString());
            } catch (final SockAddrException | ErrnoException e) {
                add(CONNECTIONS_REJECTED, 1);
                Syscalls.closeQuietly(fd);
                continue;
            }
            final Conn old = pool.get(from);
            if (old != null) {
                close(old, "replaced by a new connection from the same address");
            }
            final Conn c = new Conn(newConnId(), fd, from, addressId(from), true);
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

    private void onReady(final CallState cs, final IoVec iov, final MemorySegment source, final Conn c,
                         final int ev) {
        switch (c.phase) {
            case CONNECTING -> {
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
                        add(CONNECT_REFUSED, 1);
                    }
                    fail(c, Errno.strerror(err));
                }
            }
            case PRELINK -> stepPreLink(c);
            case ESTABLISHED -> {
                if ((ev & (Linux.EPOLLIN | Linux.EPOLLHUP | Linux.EPOLLERR | Linux.EPOLLRDHUP)) != 0) {
                    read(cs, iov, source, c);
                }
                if (c.phase == Phase.ESTABLISHED && (ev & Linux.EPOLLOUT) != 0) {
                    flush(cs, iov, c);
                    if (c.pendingCount > 0) {
                        drainPending(cs, iov, c);
                    }
                }
            }
            default -> {
            }
        }
    }

    private void read(final CallState cs, final IoVec iov, final MemorySegment source, final Conn c) {
        for (int i = 0; i < READS_PER_EVENT; i++) {
            if (c.stalled) {
                return;
            }
            if (c.inEnd == IN_BUFFER_BYTES) {
                compactIn(c);
                if (c.inEnd == IN_BUFFER_BYTES) {
                    return;
                }
            }
            iov.set(c.in, c.inEnd, IN_BUFFER_BYTES - c.inEnd);
            final long r = Syscalls.readv(cs, c.fd, iov.segment(), 1);
            if (r > 0) {
                c.inEnd += (int) r;
                add(BYTES_RECV, r);
                deframe(source, c);
                // Wake the workers after every read (up to ~46 full frames), not once per round: a round can read
                // far more than a worker ring holds.
                port.flush();
                if (c.phase != Phase.ESTABLISHED) {
                    return;
                }
            } else if (r == 0) {
                close(c, "closed by the peer");
                return;
            } else if (r == -Errno.EAGAIN) {
                return;
            } else if (r != -Errno.EINTR) {
                add(RECV_ERRORS, 1);
                close(c, "read failed: " + Errno.strerror((int) -r));
                return;
            }
        }
    }

    private static void compactIn(final Conn c) {
        if (c.inStart > 0) {
            final int pending = c.inEnd - c.inStart;
            MemorySegment.copy(c.in, c.inStart, c.in, 0, pending);
            c.inStart = 0;
            c.inEnd = pending;
        }
    }

    /** Hands every complete packet in the receive buffer to the data plane; a violation closes (counted). */
    private void deframe(final MemorySegment source, final Conn c) {
        while (true) {
            final int len = FmpStreamFramer.next(c.in, c.inStart, c.inEnd - c.inStart, c.rxMtu);
            if (len == FmpStreamFramer.NEED_MORE) {
                break;
            }
            if (len < 0) {
                add(RECV_ERRORS, 1);
                add(FRAMING_ERRORS, 1);
                close(c, FmpStreamFramer.describe(len));
                return;
            }
            final int slot = port.acquire();
            if (slot == PacketPool.NO_SLOT) {
                // Leave the bytes where they are (TCP holds the rest) and retry shortly.
                c.stalled = true;
                anyStalled = true;
                break;
            }
            final MemorySegment seg = port.pool().slotSegment(slot);
            MemorySegment.copy(c.in, c.inStart, seg, TransportPort.DATA_OFFSET, len);
            source.set(INT_LE, 0, c.addressId);
            port.deliver(slot, len, source, 0, SOURCE_BYTES);
            add(PACKETS_RECV, 1);
            if (c.inbound && c.deadlineNanos != 0) {
                c.deadlineNanos = 0;
                silent.remove(c);
            }
            c.inStart += len;
        }
        if (c.inStart == c.inEnd) {
            c.inStart = 0;
            c.inEnd = 0;
        }
    }

    private boolean retryStalled(final MemorySegment source) {
        anyStalled = false;
        boolean any = false;
        for (final Conn c : conns) {
            if (c != null && c.stalled) {
                c.stalled = false;
                deframe(source, c);
                any = true;
            }
        }
        return any;
    }

    private void expireConnects() {
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
                    add(CONNECT_TIMEOUTS, 1);
                    states.put(e.getKey(), ConnectionState.FAILED);
                    LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: name look-up took over {2} ms",
                            typeName, e.getKey(), cfg.connectTimeoutMs());
                }
            }
        }
        for (int i = silent.size() - 1; i >= 0; i--) {
            final Conn c = silent.get(i);
            if (now - c.deadlineNanos >= 0) {
                add(RECV_ERRORS, 1);
                close(c, "no complete frame within " + cfg.firstFrameTimeoutMs() + " ms of accept");
            }
        }
        for (int i = connecting.size() - 1; i >= 0; i--) {
            final Conn c = connecting.get(i);
            if (now - c.deadlineNanos >= 0) {
                add(CONNECT_TIMEOUTS, 1);
                fail(c, "connect timed out after " + cfg.connectTimeoutMs() + " ms");
            }
        }
    }

    /** A connect that did not finish: closed, its address FAILED until the next {@link #connect}. */
    private void fail(final Conn c, final String why) {
        LOG.log(System.Logger.Level.DEBUG, "{0} connect to {1} failed: {2}", typeName, c.address, why);
        connecting.remove(c);
        if (pool.get(c.address) == c) {
            pool.remove(c.address);
        }
        states.put(c.address, ConnectionState.FAILED);
        dispose(c);
    }

    /** An established (or pending) connection ends: out of the pool, gauges down, state NONE. */
    private void close(final Conn c, final String why) {
        if (c.phase == Phase.CLOSED) {
            return;
        }
        if (c.phase != Phase.ESTABLISHED) {
            fail(c, why);
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "{0} connection {1} {2} closed: {3}", typeName,
                c.inbound ? "from" : "to", c.address, why);
        if (c.inbound) {
            inboundCount--;
            add(POOL_INBOUND, -1);
        } else {
            add(POOL_OUTBOUND, -1);
        }
        if (pool.get(c.address) == c) {
            pool.remove(c.address);
            states.remove(c.address);
        }
        dispose(c);
    }

    private void dispose(final Conn c) {
        c.phase = Phase.CLOSED;
        if (c.inbound && c.deadlineNanos != 0) {
            silent.remove(c);
        }
        while (c.pendingCount > 0) {
            port.release(c.pending[c.pendingHead]);
            c.pendingHead = (c.pendingHead + 1) % PENDING_SLOTS;
            c.pendingCount--;
            add(SEND_ERRORS, 1);
        }
        if (conns[c.id] == c) {
            conns[c.id] = null;
        }
        Syscalls.closeQuietly(c.fd);
        c.arena.close();
    }

    private void add(final int counter, final long delta) {
        counters.setOpaque(counter, counters.getPlain(counter) + delta);
    }
}
