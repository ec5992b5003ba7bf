package net.fips.dataplane.ble;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
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

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The BLE transport (transports.md §5) as a {@link Transport} of the data plane: one event-loop thread polls the
 * listener, every connect in progress, every connection in its key exchange and every pooled connection. Each
 * connection (outbound, probe or accepted) first exchanges {@link PubkeyHello}s within the exchange deadline and
 * passes the {@link TieBreak}; pooled connections carry one FMP packet per SDU, read straight into pool slots with
 * readv and written from slots with writev (no copy, no allocation per packet). The pool holds at most
 * {@code maxConnections} and evicts the oldest; {@link #linkMtu} is {@code min(send MTU, recv MTU)} of the channel.
 * Sockets come from a {@link SeqPacketFamily}: L2CAP CoC ({@link L2capFamily}), or AF_UNIX where there is no
 * Bluetooth (the tests).
 */
public final class BleTransport implements Transport {
    /** Discovered peers held until drained; more are dropped. */
    static final int MAX_DISCOVERED = 256;
    private static final int BATCH = 64;
    private static final int MAX_POLL_MS = 1_000;

    /**
     * @param instanceName      instance name or null
     * @param maxConnections    pool size
     * @param mtu               configured MTU ({@link #mtu()}, and {@link #linkMtu} of an unpooled address)
     * @param connectTimeoutMs  L2CAP connect bound
     * @param exchangeTimeoutMs key exchange bound (5 s in production)
     * @param acceptConnections run the listener
     * @param autoConnect       the node should dial discovered peers
     */
    public record Settings(String instanceName, int maxConnections, int mtu, long connectTimeoutMs,
            long exchangeTimeoutMs, boolean acceptConnections, boolean autoConnect) {
    }

    private enum Phase { CONNECTING, EXCHANGE, POOLED }

    private static final class Sock {
        final String address;
        final int fd;
        final boolean outbound;
        Phase phase;
        long deadline;
        int mtu;
        long order;
        byte[] peerKey;
        final MemorySegment source;
        int sourceLength;

        Sock(final String address, final int fd, final boolean outbound, final Arena arena) {
            this.address = address;
            this.fd = fd;
            this.outbound = outbound;
            this.source = arena.allocate(TransportPort.SOURCE_MAX_BYTES);
        }
    }

    private record Dest(TransportAddr addr, String text, byte[] source) implements TransportDestination {
        @Override
        public TransportAddr transportAddr() {
            return addr;
        }

        @Override
        public boolean sameEndpoint(final MemorySegment src, final long offset, final int length) {
            return length == source.length && MemorySegment.mismatch(src, offset, offset + length,
                    MemorySegment.ofArray(source), 0, length) < 0;
        }
    }

    private final SeqPacketFamily family;
    private final Settings settings;
    private final byte[] ownKey;
    private final NodeAddr ownAddr;
    private final PeerKeys keys;
    private final LongSupplier nanoClock;
    private final Queue<String> connectRequests = new ConcurrentLinkedQueue<>();
    private final Queue<String> closeRequests = new ConcurrentLinkedQueue<>();
    private final Map<String, ConnectionState> states = new ConcurrentHashMap<>();
    private final Map<String, Integer> linkMtus = new ConcurrentHashMap<>();
    private final Queue<DiscoveredPeer> discovered = new ConcurrentLinkedQueue<>();
    private final AtomicInteger discoveredCount = new AtomicInteger();
    private final AtomicLong[] counters = new AtomicLong[Counter.values().length];
    private volatile State state = State.CONFIGURED;
    private volatile boolean stopping;
    private volatile int transportId = -1;
    private WakeFd wake;
    private Thread loop;
    /** The pool, by address; the loop thread's only. */
    private final Map<String, Sock> pooled = new HashMap<>();

    /** The counters of transports.md §1.8 this transport keeps, in {@code show_transports} order. */
    enum Counter {
        PACKETS_SENT, BYTES_SENT, PACKETS_RECV, BYTES_RECV, SEND_ERRORS, RECV_ERRORS, MTU_EXCEEDED,
        CONNECTIONS_ESTABLISHED, CONNECTIONS_ACCEPTED, CONNECTIONS_REJECTED, CONNECT_TIMEOUTS, POOL_EVICTIONS,
        ADVERTISEMENTS_SENT, SCAN_RESULTS;

        String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * @param family    sockets (L2CAP in production)
     * @param settings  pool, MTU, timeouts, admission
     * @param ownKey    our x-only key
     * @param keys      key validation and NodeAddr derivation (from the control plane)
     * @param nanoClock monotonic clock for deadlines
     */
    public BleTransport(final SeqPacketFamily family, final Settings settings, final byte[] ownKey,
            final PeerKeys keys, final LongSupplier nanoClock) {
        this.family = Objects.requireNonNull(family, "family");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ownKey = ownKey.clone();
        this.keys = Objects.requireNonNull(keys, "keys");
        this.ownAddr = keys.nodeAddr(this.ownKey);
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new AtomicLong();
        }
    }

    private void count(final Counter c) {
        counters[c.ordinal()].incrementAndGet();
    }

    // ---------------------------------------------------------------- metadata

    @Override
    public String typeName() {
        return "ble";
    }

    @Override
    public String instanceName() {
        return settings.instanceName();
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public int mtu() {
        return settings.mtu();
    }

    @Override
    public int linkMtu(final TransportAddr address) {
        return linkMtus.getOrDefault(address.toString(), settings.mtu());
    }

    @Override
    public boolean acceptConnections() {
        return settings.acceptConnections();
    }

    @Override
    public boolean autoConnect() {
        return settings.autoConnect();
    }

    @Override
    public Map<String, Long> stats() {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (final Counter c : Counter.values()) {
            m.put(c.key(), counters[c.ordinal()].get());
        }
        return m;
    }

    /** The control plane registered our advertisement with BlueZ ({@code advertisements_sent}). */
    public void countAdvertisement() {
        count(Counter.ADVERTISEMENTS_SENT);
    }

    /** The control plane's scan saw a FIPS device ({@code scan_results}). */
    public void countScanResult() {
        count(Counter.SCAN_RESULTS);
    }

    /** @return one counter, for tests */
    long counter(final Counter c) {
        return counters[c.ordinal()].get();
    }

    @Override
    public TransportDestination destination(final TransportAddr address) throws TransportException {
        final String text = address.toString();
        final byte[] src = new byte[TransportPort.SOURCE_MAX_BYTES];
        final int n;
        try {
            n = family.encodeSource(text, MemorySegment.ofArray(src));
        } catch (final IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new TransportException("not a BLE address: " + text + " (" + e.getMessage() + ")");
        }
        return new Dest(address, text, java.util.Arrays.copyOf(src, n));
    }

    @Override
    public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        return TransportAddr.ofText(family.decodeSource(source, offset, length));
    }

    // ---------------------------------------------------------------- connections (any thread)

    @Override
    public void connect(final TransportAddr address) {
        connect(address.toString());
    }

    private void connect(final String address) {
        if (stopping) {
            return;
        }
        final ConnectionState s = states.get(address);
        if (s == ConnectionState.CONNECTED || s == ConnectionState.CONNECTING) {
            return;
        }
        states.put(address, ConnectionState.CONNECTING);
        connectRequests.add(address);
        wakeup();
    }

    @Override
    public ConnectionState connectionState(final TransportAddr address) {
        return states.getOrDefault(address.toString(), ConnectionState.NONE);
    }

    @Override
    public void closeConnection(final TransportAddr address) {
        closeRequests.add(address.toString());
        wakeup();
    }

    @Override
    public List<DiscoveredPeer> drainDiscovered() {
        final List<DiscoveredPeer> out = new ArrayList<>();
        DiscoveredPeer d;
        while ((d = discovered.poll()) != null) {
            discoveredCount.decrementAndGet();
            out.add(d);
        }
        return out;
    }

    @Override
    public void wakeup() {
        final WakeFd w = wake;
        if (w != null) {
            w.wake();
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public synchronized void start(final TransportPort port) throws IOException {
        state = State.STARTING;
        transportId = port.transportId();
        final int listenFd;
        try {
            wake = WakeFd.open();
            listenFd = settings.acceptConnections() ? family.listen() : -1;
        } catch (final ErrnoException e) {
            state = State.FAILED;
            if (wake != null) {
                wake.close();
            }
            throw e;
        }
        loop = Thread.ofPlatform().name("fips-ble" + (settings.instanceName() == null ? ""
                : "-" + settings.instanceName())).daemon(true).unstarted(() -> run(port, listenFd));
        state = State.UP;
        loop.start();
    }

    @Override
    public synchronized void stop() {
        stopping = true;
        wakeup();
        if (loop != null) {
            try {
                loop.join(5_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        state = State.DOWN;
    }

    @Override
    public void close() {
        stop();
        if (wake != null) {
            wake.close();
        }
    }

    // ---------------------------------------------------------------- the loop (one thread)

    private void run(final TransportPort port, final int listenFd) {
        final int cap = settings.maxConnections() * 2 + 16;
        final List<Sock> socks = new ArrayList<>(cap);
        final Map<String, Sock> pooled = this.pooled;
        long order = 0;
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final PollFds pfd = new PollFds(arena, cap + 2);
            final IoVec iov = new IoVec(arena);
            final MemorySegment scratch = arena.allocate(64);
            final MemorySegment addr = arena.allocate(Math.max(family.sockaddrSize(), 128), 8);
            final MemorySegment addrLen = arena.allocate(4, 4);
            final int[] slots = new int[BATCH];
            final PacketPool pool = port.pool();
            final int recvCap = (int) Math.min(pool.maxMtuBytes(),
                    pool.slotSegment(0).byteSize() - TransportPort.DATA_OFFSET);
            final Sock[] polled = new Sock[cap + 2];
            while (!stopping) {
                // 1. requests from other threads
                String a;
                while ((a = closeRequests.poll()) != null) {
                    final Sock s = pooled.remove(a);
                    if (s != null) {
                        drop(socks, s, null);
                    }
                }
                while ((a = connectRequests.poll()) != null) {
                    if (pooled.containsKey(a) || socks.size() >= cap) {
                        if (!pooled.containsKey(a)) {
                            states.put(a, ConnectionState.FAILED);
                        }
                        continue;
                    }
                    try {
                        final int fd = family.connect(a);
                        final Sock s = new Sock(a, fd, true, arena);
                        s.phase = Phase.CONNECTING;
                        s.deadline = nanoClock.getAsLong() + settings.connectTimeoutMs() * 1_000_000L;
                        socks.add(s);
                    } catch (final ErrnoException | IllegalArgumentException e) {
                        states.put(a, ConnectionState.FAILED);
                    }
                }
                // 2. outbound frames
                int n;
                while ((n = port.drainOutbound(slots, BATCH)) > 0) {
                    for (int i = 0; i < n; i++) {
                        final Dest d = (Dest) port.takeDestination(slots[i]);
                        final Sock s = d == null ? null : pooled.get(d.text());
                        final MemorySegment seg = pool.slotSegment(slots[i]);
                        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
                        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                        if (s == null) {
                            count(Counter.SEND_ERRORS);
                            if (d != null) {
                                connect(d.text());
                            }
                        } else if (len > s.mtu) {
                            count(Counter.MTU_EXCEEDED);
                        } else {
                            iov.set(seg, off, len);
                            final long rc = Syscalls.writev(cs, s.fd, iov.segment(), 1);
                            if (rc == len) {
                                count(Counter.PACKETS_SENT);
                                counters[Counter.BYTES_SENT.ordinal()].addAndGet(len);
                            } else {
                                count(Counter.SEND_ERRORS);
                                if (rc != -Errno.EAGAIN) {
                                    pooled.remove(s.address, s);
                                    drop(socks, s, null);
                                }
                            }
                        }
                        port.release(slots[i]);
                    }
                }
                // 3. poll
                final long now = nanoClock.getAsLong();
                long timeout = MAX_POLL_MS;
                int np = 0;
                pfd.set(np, wake.fd(), Linux.POLLIN);
                polled[np++] = null;
                if (listenFd >= 0) {
                    pfd.set(np, listenFd, Linux.POLLIN);
                    polled[np++] = null;
                }
                for (int i = 0; i < socks.size(); i++) { // indexed: no iterator per pass
                    final Sock s = socks.get(i);
                    pfd.set(np, s.fd, s.phase == Phase.CONNECTING ? Linux.POLLOUT : Linux.POLLIN);
                    polled[np++] = s;
                    if (s.phase != Phase.POOLED) {
                        timeout = Math.min(timeout, Math.max(0, (s.deadline - now + 999_999) / 1_000_000));
                    }
                }
                for (int i = np; i < cap + 2; i++) {
                    pfd.set(i, -1, (short) 0); // ignored by poll
                }
                final int ready = pfd.poll(cs, (int) timeout);
                if (ready < 0 && ready != -Errno.EINTR) {
                    break;
                }
                if ((pfd.revents(0) & Linux.POLLIN) != 0) {
                    Syscalls.read(cs, wake.fd(), scratch, Long.BYTES); // reset the eventfd counter
                }
                // 4. accept
                if (listenFd >= 0 && (pfd.revents(1) & Linux.POLLIN) != 0) {
                    for (int k = 0; k < BATCH && socks.size() < cap; k++) {
                        final int fd = Syscalls.accept4(cs, listenFd, addr, addrLen,
                                Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
                        if (fd < 0) {
                            break;
                        }
                        final Sock s = new Sock(family.acceptedAddress(addr, addrLen.get(ValueLayout.JAVA_INT, 0)),
                                fd, false, arena);
                        startExchange(socks, s, scratch, cs);
                    }
                }
                // 5. sockets
                final int first = listenFd >= 0 ? 2 : 1;
                boolean delivered = false;
                final long t = nanoClock.getAsLong();
                for (int i = first; i < np; i++) {
                    final Sock s = polled[i];
                    final short rev = pfd.revents(i);
                    if (!socks.contains(s)) {
                        continue; // dropped earlier in this pass
                    }
                    switch (s.phase) {
                        case CONNECTING -> {
                            if (rev != 0) {
                                int err;
                                try {
                                    err = Syscalls.getsockoptInt(s.fd, Linux.SOL_SOCKET, Linux.SO_ERROR, "SO_ERROR");
                                } catch (final ErrnoException e) {
                                    err = e.errno();
                                }
                                if (err == 0) {
                                    startExchange(socks, s, scratch, cs);
                                } else {
                                    drop(socks, s, ConnectionState.FAILED);
                                }
                            } else if (t - s.deadline >= 0) {
                                count(Counter.CONNECT_TIMEOUTS);
                                drop(socks, s, ConnectionState.FAILED);
                            }
                        }
                        case EXCHANGE -> {
                            if (rev != 0) {
                                order = finishExchange(socks, pooled, s, scratch, cs, arena, order);
                            } else if (t - s.deadline >= 0) {
                                reject(socks, s);
                            }
                        }
                        case POOLED -> {
                            if (rev != 0) {
                                delivered |= readPooled(port, pool, pooled, socks, s, iov, cs, recvCap);
                            }
                        }
                    }
                }
                if (delivered) {
                    port.flush();
                }
            }
        } finally {
            for (final Sock s : List.copyOf(socks)) {
                Syscalls.closeQuietly(s.fd);
                states.remove(s.address);
                linkMtus.remove(s.address);
            }
            Syscalls.closeQuietly(listenFd);
        }
    }

    private void startExchange(final List<Sock> socks, final Sock s, final MemorySegment scratch,
            final CallState cs) {
        final int n = PubkeyHello.encode(ownKey, scratch);
        final int rc = Syscalls.send(cs, s.fd, scratch, n, Linux.MSG_DONTWAIT);
        if (!socks.contains(s)) {
            socks.add(s);
        }
        if (rc != n) {
            if (s.outbound) {
                drop(socks, s, ConnectionState.FAILED);
            } else {
                reject(socks, s);
            }
            return;
        }
        s.phase = Phase.EXCHANGE;
        s.deadline = nanoClock.getAsLong() + settings.exchangeTimeoutMs() * 1_000_000L;
    }

    private long finishExchange(final List<Sock> socks, final Map<String, Sock> pooled, final Sock s,
            final MemorySegment scratch, final CallState cs, final Arena arena, final long order) {
        final int rc = Syscalls.recv(cs, s.fd, scratch, (int) scratch.byteSize(), Linux.MSG_DONTWAIT);
        if (rc == -Errno.EAGAIN || rc == -Errno.EINTR) {
            return order;
        }
        if (rc <= 0 || PubkeyHello.check(scratch, 0, rc, keys) != null) {
            if (s.outbound) {
                drop(socks, s, ConnectionState.FAILED);
            } else {
                reject(socks, s);
            }
            return order;
        }
        final byte[] key = PubkeyHello.key(scratch, 0);
        report(s.address, key);
        final NodeAddr peer = keys.nodeAddr(key);
        if (s.outbound ? !TieBreak.keepOutbound(ownAddr, peer)
                : !TieBreak.keepInbound(ownAddr, peer) || pooled.containsKey(s.address)) {
            if (s.outbound) {
                drop(socks, s, null); // the peer's connection to us wins
            } else {
                reject(socks, s);
            }
            return order;
        }
        final int send = family.sendMtu(s.fd);
        final int recv = family.recvMtu(s.fd);
        if (send <= 0 || recv <= 0) {
            drop(socks, s, s.outbound ? ConnectionState.FAILED : null);
            return order;
        }
        s.mtu = Math.min(send, recv);
        s.peerKey = key;
        s.order = order + 1;
        s.sourceLength = family.encodeSource(s.address, s.source);
        if (pooled.size() >= settings.maxConnections()) {
            // full: the oldest goes first, so nobody sees more than maxConnections pooled
            Sock oldest = null;
            for (final Sock x : pooled.values()) {
                if (oldest == null || x.order < oldest.order) {
                    oldest = x;
                }
            }
            pooled.remove(oldest.address);
            drop(socks, oldest, null);
            count(Counter.POOL_EVICTIONS);
        }
        s.phase = Phase.POOLED;
        pooled.put(s.address, s);
        linkMtus.put(s.address, s.mtu);
        states.put(s.address, ConnectionState.CONNECTED);
        count(s.outbound ? Counter.CONNECTIONS_ESTABLISHED : Counter.CONNECTIONS_ACCEPTED);
        return order + 1;
    }

    private boolean readPooled(final TransportPort port, final PacketPool pool, final Map<String, Sock> pooled,
            final List<Sock> socks, final Sock s, final IoVec iov, final CallState cs, final int recvCap) {
        boolean delivered = false;
        for (int k = 0; k < BATCH; k++) {
            final int slot = port.acquire();
            if (slot == PacketPool.NO_SLOT) {
                return delivered; // pool exhausted (counted by the port): leave the rest in the kernel
            }
            iov.set(pool.slotSegment(slot), TransportPort.DATA_OFFSET, recvCap);
            final long n = Syscalls.readv(cs, s.fd, iov.segment(), 1);
            if (n == -Errno.EAGAIN || n == -Errno.EINTR) {
                port.release(slot);
                return delivered;
            }
            if (n <= 0) {
                port.release(slot);
                if (n < 0) {
                    count(Counter.RECV_ERRORS);
                }
                pooled.remove(s.address, s);
                drop(socks, s, null); // 0: the peer closed
                return delivered;
            }
            if (n >= recvCap) {
                port.release(slot); // larger than any packet we accept: cut, never delivered
                count(Counter.RECV_ERRORS);
                continue;
            }
            count(Counter.PACKETS_RECV);
            counters[Counter.BYTES_RECV.ordinal()].addAndGet(n);
            port.deliver(slot, (int) n, s.source, 0, s.sourceLength);
            delivered = true;
        }
        return delivered;
    }

    private void reject(final List<Sock> socks, final Sock s) {
        count(Counter.CONNECTIONS_REJECTED);
        socks.remove(s);
        Syscalls.closeQuietly(s.fd);
    }

    private void drop(final List<Sock> socks, final Sock s, final ConnectionState after) {
        socks.remove(s);
        Syscalls.closeQuietly(s.fd);
        final Sock current = pooled.get(s.address);
        if (current != null && current != s) {
            return; // another connection to the same peer is pooled (a crossed connect): its state stands
        }
        if (s.phase == Phase.POOLED) {
            linkMtus.remove(s.address);
        }
        if (s.outbound || s.phase == Phase.POOLED) {
            if (after == null) {
                states.remove(s.address);
            } else {
                states.put(s.address, after);
            }
        }
    }

    private void report(final String address, final byte[] key) {
        if (discoveredCount.incrementAndGet() > MAX_DISCOVERED) {
            discoveredCount.decrementAndGet();
            return;
        }
        discovered.add(new DiscoveredPeer(transportId, TransportAddr.ofText(address), key.clone()));
    }

    /** @return the source bytes an address encodes to, for tests */
    byte[] sourceOf(final String address) {
        final byte[] src = new byte[TransportPort.SOURCE_MAX_BYTES];
        return java.util.Arrays.copyOf(src, family.encodeSource(address, MemorySegment.ofArray(src)));
    }

    static String text(final byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
