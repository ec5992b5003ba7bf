package net.fips.dataplane.ble;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import net.fips.dataplane.wire.NodeAddr;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;

/**
 * The connection pool of one BLE transport instance (transports.md §5.3-§5.6) over SOCK_SEQPACKET sockets of a
 * {@link SeqPacketFamily}: background connects bounded by the connect timeout, the listener, the pre-handshake key
 * exchange and tie-break on every connection, a pool of at most {@code maxConnections} that evicts the oldest,
 * per-link MTU {@code min(send, recv)}, a reader per connection that hands each SDU to the {@link Inbound} sink, and
 * a fail-fast {@link #send} that starts a connect when the address is not pooled. One SDU is one FMP packet.
 *
 * <p>Threads: one accept thread, one reader per pooled connection, one short-lived thread per connect attempt
 * (all platform threads: they block in poll). {@link #send} is called by one sending thread at a time per
 * connection; it allocates nothing.
 */
public final class BleConnections implements AutoCloseable {
    /** {@link #send} result: the address is not pooled; a background connect was started. */
    public static final int NOT_CONNECTED = -1;
    /** {@link #send} result: the packet is larger than the link's MTU (counted). */
    public static final int MTU_EXCEEDED = -2;
    /** {@link #send} result: the kernel refused; the connection was removed (counted). */
    public static final int SEND_FAILED = -3;
    /** Discovered peers held until drained; more are dropped. */
    static final int MAX_DISCOVERED = 256;
    private static final int POLL_SLICE_MS = 100;
    private static final int SEND_WAIT_MS = 50;

    /** Receives each SDU of a pooled connection, on that connection's reader thread. */
    @FunctionalInterface
    public interface Inbound {
        /** The bytes are valid only during the call. */
        void onPacket(String address, MemorySegment packet, int length);
    }

    /** The state {@link #connectionState} reports (transports.md §1.1). */
    public enum State {
        /** No connection and no attempt in flight. */
        NONE,
        /** A connect (or its key exchange) is in flight. */
        CONNECTING,
        /** Pooled. */
        CONNECTED,
        /** The last attempt failed; see {@link #lastFailure}. */
        FAILED
    }

    /**
     * A peer learnt through the key exchange.
     *
     * @param address its transport address
     * @param xOnlyKey its key
     */
    public record Discovered(String address, byte[] xOnlyKey) {
    }

    /**
     * @param maxConnections pool size
     * @param mtu            the configured MTU: {@link #linkMtu} of an address that is not pooled
     * @param connectTimeoutMs bound of the L2CAP connect
     * @param exchangeTimeoutMs bound of the key exchange (5 s in production)
     */
    public record Settings(int maxConnections, int mtu, long connectTimeoutMs, long exchangeTimeoutMs) {
    }

    private static final class Conn {
        final String address;
        final int fd;
        final int mtu;
        final byte[] peerKey;
        final long order;
        final MemorySegment recvBuf;
        final Arena arena = Arena.ofShared();
        volatile boolean dead;
        Thread reader;

        Conn(final String address, final int fd, final int mtu, final byte[] peerKey, final long order,
                final int recvMtu) {
            this.address = address;
            this.fd = fd;
            this.mtu = mtu;
            this.peerKey = peerKey;
            this.order = order;
            this.recvBuf = arena.allocate(Math.max(recvMtu, 1) + 1L);
        }
    }

    private final SeqPacketFamily family;
    private final Settings settings;
    private final byte[] ownKey;
    private final NodeAddr ownAddr;
    private final PeerKeys keys;
    private final Inbound inbound;
    private final LongSupplier nanoClock;
    private final Map<String, Conn> pool = new ConcurrentHashMap<>();
    private final Map<String, String> connecting = new ConcurrentHashMap<>();
    private final Map<String, String> failed = new ConcurrentHashMap<>();
    private final Queue<Discovered> discovered = new ConcurrentLinkedQueue<>();
    private final AtomicInteger discoveredCount = new AtomicInteger();
    private final AtomicLong order = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;
    private int listenFd = -1;

    final AtomicLong packetsSent = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong packetsRecv = new AtomicLong();
    final AtomicLong bytesRecv = new AtomicLong();
    final AtomicLong sendErrors = new AtomicLong();
    final AtomicLong recvErrors = new AtomicLong();
    final AtomicLong mtuExceeded = new AtomicLong();
    final AtomicLong established = new AtomicLong();
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong connectTimeouts = new AtomicLong();
    final AtomicLong evictions = new AtomicLong();

    /**
     * @param family    socket family (L2CAP, or AF_UNIX in tests)
     * @param settings  pool and timeouts
     * @param ownKey    our x-only key, sent in every hello
     * @param keys      key validation and NodeAddr derivation
     * @param inbound   receives every SDU
     * @param nanoClock monotonic clock for deadlines
     */
    public BleConnections(final SeqPacketFamily family, final Settings settings, final byte[] ownKey,
            final PeerKeys keys, final Inbound inbound, final LongSupplier nanoClock) {
        this.family = Objects.requireNonNull(family, "family");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ownKey = ownKey.clone();
        this.keys = Objects.requireNonNull(keys, "keys");
        this.ownAddr = keys.nodeAddr(this.ownKey);
        this.inbound = Objects.requireNonNull(inbound, "inbound");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** Opens the listener and starts accepting (only when the instance accepts connections). */
    public synchronized void listen() throws ErrnoException {
        listenFd = family.listen();
        start("fips-ble-accept", this::acceptLoop);
    }

    private synchronized void start(final String name, final Runnable r) {
        final Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(r);
        threads.removeIf(x -> !x.isAlive());
        threads.add(t);
        t.start();
    }

    // ------------------------------------------------------------------ outbound

    /** Starts a background connect unless {@code address} is pooled or already connecting; never blocks. */
    public void connect(final String address) {
        if (closed || pool.containsKey(address) || connecting.putIfAbsent(address, address) != null) {
            return;
        }
        failed.remove(address);
        start("fips-ble-connect", () -> {
            try {
                connectNow(address);
            } finally {
                connecting.remove(address);
            }
        });
    }

    private void connectNow(final String address) {
        final int fd;
        try {
            fd = family.connect(address);
        } catch (final ErrnoException | IllegalArgumentException e) {
            failed.put(address, e.getMessage());
            return;
        }
        final String why = awaitConnected(fd);
        if (why != null) {
            Syscalls.closeQuietly(fd);
            failed.put(address, why);
            return;
        }
        final PubkeyExchange.Outcome o = PubkeyExchange.run(fd, ownKey, keys, settings.exchangeTimeoutMs(), nanoClock);
        if (!o.ok()) {
            Syscalls.closeQuietly(fd);
            failed.put(address, "key exchange: " + o.failure());
            return;
        }
        report(address, o.peerKey());
        if (!TieBreak.keepOutbound(ownAddr, keys.nodeAddr(o.peerKey()))) {
            Syscalls.closeQuietly(fd); // the peer's connection to us wins
            return;
        }
        if (!insert(address, fd, o.peerKey())) {
            failed.put(address, "MTU unavailable");
            return;
        }
        established.incrementAndGet();
    }

    /** @return null when connected within the timeout, else why not */
    private String awaitConnected(final int fd) {
        final long deadline = nanoClock.getAsLong() + settings.connectTimeoutMs() * 1_000_000L;
        try (Arena arena = Arena.ofConfined()) {
            final PollFds p = new PollFds(arena, 1);
            final CallState cs = CallState.forCurrentThread();
            while (!closed) {
                final long left = (deadline - nanoClock.getAsLong()) / 1_000_000L;
                if (left <= 0) {
                    connectTimeouts.incrementAndGet();
                    return "connect timed out after " + settings.connectTimeoutMs() + " ms";
                }
                p.set(0, fd, Linux.POLLOUT);
                final int rc = p.poll(cs, (int) Math.min(left, POLL_SLICE_MS));
                if (rc < 0 && rc != -Errno.EINTR) {
                    return "poll: " + Errno.strerror(-rc);
                }
                if (rc > 0) {
                    final int err;
                    try {
                        err = Syscalls.getsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_ERROR, "SO_ERROR");
                    } catch (final ErrnoException e) {
                        return e.getMessage();
                    }
                    return err == 0 ? null : "connect: " + Errno.strerror(err);
                }
            }
            return "closed";
        }
    }

    // ------------------------------------------------------------------ inbound

    private void acceptLoop() {
        try (Arena arena = Arena.ofConfined()) {
            final PollFds p = new PollFds(arena, 1);
            final CallState cs = CallState.forCurrentThread();
            final MemorySegment addr = arena.allocate(Math.max(family.sockaddrSize(), 128), 8);
            final MemorySegment len = arena.allocate(4, 4);
            while (!closed) {
                p.set(0, listenFd, Linux.POLLIN);
                final int rc = p.poll(cs, POLL_SLICE_MS);
                if (rc <= 0) {
                    continue;
                }
                final int fd = Syscalls.accept4(cs, listenFd, addr, len, Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
                if (fd == -Errno.EAGAIN || fd == -Errno.EINTR) {
                    continue;
                }
                if (fd < 0) {
                    return; // an accept error ends the loop, as in the reference
                }
                final String peer = family.acceptedAddress(addr, len.get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
                start("fips-ble-inbound", () -> admit(peer, fd));
            }
        }
    }

    private void admit(final String address, final int fd) {
        final PubkeyExchange.Outcome o = PubkeyExchange.run(fd, ownKey, keys, settings.exchangeTimeoutMs(), nanoClock);
        if (!o.ok()) {
            Syscalls.closeQuietly(fd);
            rejected.incrementAndGet();
            return;
        }
        report(address, o.peerKey());
        if (!TieBreak.keepInbound(ownAddr, keys.nodeAddr(o.peerKey())) || pool.containsKey(address)) {
            Syscalls.closeQuietly(fd);
            rejected.incrementAndGet();
            return;
        }
        if (insert(address, fd, o.peerKey())) {
            accepted.incrementAndGet();
        } else {
            rejected.incrementAndGet();
        }
    }

    private void report(final String address, final byte[] key) {
        if (discoveredCount.incrementAndGet() > MAX_DISCOVERED) {
            discoveredCount.decrementAndGet();
            return;
        }
        discovered.add(new Discovered(address, key.clone()));
    }

    // ------------------------------------------------------------------ pool

    private boolean insert(final String address, final int fd, final byte[] peerKey) {
        final int send = family.sendMtu(fd);
        final int recv = family.recvMtu(fd);
        if (send <= 0 || recv <= 0) {
            Syscalls.closeQuietly(fd);
            return false;
        }
        final Conn c = new Conn(address, fd, Math.min(send, recv), peerKey, order.incrementAndGet(), recv);
        final Conn old;
        synchronized (this) {
            if (closed) {
                Syscalls.closeQuietly(fd);
                c.arena.close();
                return false;
            }
            old = pool.put(address, c);
            if (old == null && pool.size() > settings.maxConnections()) {
                Conn oldest = null;
                for (final Conn x : pool.values()) {
                    if (x != c && (oldest == null || x.order < oldest.order)) {
                        oldest = x;
                    }
                }
                if (oldest != null) {
                    pool.remove(oldest.address, oldest);
                    oldest.dead = true;
                    evictions.incrementAndGet();
                }
            }
            failed.remove(address);
        }
        if (old != null) {
            old.dead = true;
        }
        c.reader = Thread.ofPlatform().name("fips-ble-rx").daemon(true).unstarted(() -> readLoop(c));
        c.reader.start();
        return true;
    }

    private void readLoop(final Conn c) {
        try (Arena arena = Arena.ofConfined()) {
            final PollFds p = new PollFds(arena, 1);
            final CallState cs = CallState.allocate(arena);
            final int cap = (int) c.recvBuf.byteSize();
            while (!closed && !c.dead) {
                p.set(0, c.fd, Linux.POLLIN);
                final int rc = p.poll(cs, POLL_SLICE_MS);
                if (rc <= 0) {
                    continue;
                }
                final int n = Syscalls.recv(cs, c.fd, c.recvBuf, cap, Linux.MSG_DONTWAIT);
                if (n == -Errno.EAGAIN || n == -Errno.EINTR) {
                    continue;
                }
                if (n <= 0) {
                    if (n < 0) {
                        recvErrors.incrementAndGet();
                    }
                    break; // 0: the peer closed
                }
                if (n >= cap) {
                    recvErrors.incrementAndGet(); // longer than our receive MTU: never an FMP packet of this link
                    continue;
                }
                packetsRecv.incrementAndGet();
                bytesRecv.addAndGet(n);
                inbound.onPacket(c.address, c.recvBuf, n);
            }
        } finally {
            pool.remove(c.address, c);
            Syscalls.closeQuietly(c.fd);
            c.arena.close();
        }
    }

    /**
     * Sends one FMP packet as one SDU.
     *
     * @return bytes sent, or {@link #NOT_CONNECTED} (a connect was started), {@link #MTU_EXCEEDED}, {@link #SEND_FAILED}
     */
    public int send(final String address, final MemorySegment packet, final int length) {
        final Conn c = pool.get(address);
        if (c == null || c.dead) {
            connect(address);
            return NOT_CONNECTED;
        }
        if (length > c.mtu) {
            mtuExceeded.incrementAndGet();
            return MTU_EXCEEDED;
        }
        final CallState cs = CallState.forCurrentThread();
        int rc = Syscalls.send(cs, c.fd, packet, length, Linux.MSG_DONTWAIT);
        if (rc == -Errno.EAGAIN) {
            try (Arena arena = Arena.ofConfined()) { // out of credits: wait briefly, once
                final PollFds p = new PollFds(arena, 1);
                p.set(0, c.fd, Linux.POLLOUT);
                p.poll(cs, SEND_WAIT_MS);
            }
            rc = Syscalls.send(cs, c.fd, packet, length, Linux.MSG_DONTWAIT);
        }
        if (rc != length) {
            sendErrors.incrementAndGet();
            if (rc != -Errno.EAGAIN) {
                c.dead = true;
                pool.remove(address, c);
            }
            return SEND_FAILED;
        }
        packetsSent.incrementAndGet();
        bytesSent.addAndGet(length);
        return length;
    }

    /** @return the link MTU: {@code min(send, recv)} of a pooled connection, else the configured MTU */
    public int linkMtu(final String address) {
        final Conn c = pool.get(address);
        return c == null ? settings.mtu() : c.mtu;
    }

    /** @return the state of {@code address} */
    public State connectionState(final String address) {
        final Conn c = pool.get(address);
        if (c != null && !c.dead) {
            return State.CONNECTED;
        }
        if (connecting.containsKey(address)) {
            return State.CONNECTING;
        }
        return failed.containsKey(address) ? State.FAILED : State.NONE;
    }

    /** @return why the last attempt to {@code address} failed, or null */
    public String lastFailure(final String address) {
        return failed.get(address);
    }

    /** Drops one pooled connection (tie-break losers, peer removal). */
    public void closeConnection(final String address) {
        final Conn c = pool.remove(address);
        if (c != null) {
            c.dead = true;
        }
    }

    /** @return the peers learnt since the last call */
    public List<Discovered> drainDiscovered() {
        final List<Discovered> out = new ArrayList<>();
        Discovered d;
        while ((d = discovered.poll()) != null) {
            discoveredCount.decrementAndGet();
            out.add(d);
        }
        return out;
    }

    /** @return the pooled addresses */
    public List<String> pooled() {
        return List.copyOf(pool.keySet());
    }

    /** @return the peer key of a pooled address, or null */
    public byte[] peerKey(final String address) {
        final Conn c = pool.get(address);
        return c == null ? null : c.peerKey.clone();
    }

    /** @return the {@code show_transports} counters of transports.md §1.8 this pool keeps */
    public Map<String, Long> stats() {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("packets_sent", packetsSent.get());
        m.put("bytes_sent", bytesSent.get());
        m.put("packets_recv", packetsRecv.get());
        m.put("bytes_recv", bytesRecv.get());
        m.put("send_errors", sendErrors.get());
        m.put("recv_errors", recvErrors.get());
        m.put("mtu_exceeded", mtuExceeded.get());
        m.put("connections_established", established.get());
        m.put("connections_accepted", accepted.get());
        m.put("connections_rejected", rejected.get());
        m.put("connect_timeouts", connectTimeouts.get());
        m.put("pool_evictions", evictions.get());
        return m;
    }

    @Override
    public void close() {
        final List<Thread> ts;
        synchronized (this) {
            closed = true;
            ts = new ArrayList<>(threads);
        }
        for (final Conn c : pool.values()) {
            c.dead = true;
        }
        for (final Thread t : ts) {
            try {
                t.join(5_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (final Conn c : List.copyOf(pool.values())) {
            if (c.reader != null) {
                try {
                    c.reader.join(5_000);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        Syscalls.closeQuietly(listenFd);
    }
}
