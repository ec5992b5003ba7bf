package net.fips.dataplane.ble;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
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
import java.util.Arrays;
import java.util.Locale;

import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.LoopThread;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.WakeFd;

/**
 * The BLE transport (transports.md §5) as a {@link Transport} of the data plane: one event-loop thread
 * ({@link BleLoop}) polls the
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
    private final LoopThread loop = new LoopThread();

    /** The counters of transports.md §1.8 this transport keeps, in {@code show_transports} order. */
    enum Counter {
        PACKETS_SENT, BYTES_SENT, PACKETS_RECV, BYTES_RECV, SEND_ERRORS, RECV_ERRORS, MTU_EXCEEDED,
        CONNECTIONS_ESTABLISHED, CONNECTIONS_ACCEPTED, CONNECTIONS_REJECTED, CONNECT_TIMEOUTS, POOL_EVICTIONS,
        ADVERTISEMENTS_SENT, SCAN_RESULTS;

        String key() {
            return name().toLowerCase(Locale.ROOT);
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

    /** Adds one to {@code c} (any thread). */
    void count(final Counter c) {
        counters[c.ordinal()].incrementAndGet();
    }

    /** Adds {@code n} to {@code c} (any thread). */
    void add(final Counter c, final long n) {
        counters[c.ordinal()].addAndGet(n);
    }

    /** @return whether {@link #stop()} was called (the loop ends) */
    boolean stopping() {
        return stopping;
    }

    SeqPacketFamily family() {
        return family;
    }

    Settings settings() {
        return settings;
    }

    byte[] ownKey() {
        return ownKey;
    }

    NodeAddr ownAddr() {
        return ownAddr;
    }

    PeerKeys keys() {
        return keys;
    }

    LongSupplier nanoClock() {
        return nanoClock;
    }

    /** @return the published connection states by address text */
    Map<String, ConnectionState> states() {
        return states;
    }

    /** @return the published per-link MTUs by address text */
    Map<String, Integer> linkMtus() {
        return linkMtus;
    }

    /** @return addresses other threads asked to connect */
    Queue<String> connectRequests() {
        return connectRequests;
    }

    /** @return addresses other threads asked to close */
    Queue<String> closeRequests() {
        return closeRequests;
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
        return new BleDestination(address, text, Arrays.copyOf(src, n));
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

    /** Queues a connect to {@code address} unless connected, connecting or stopping (any thread). */
    void connect(final String address) {
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
        final BleLoop body = new BleLoop(this, port, listenFd, wake);
        state = State.UP;
        loop.start("fips-ble" + (settings.instanceName() == null ? "" : "-" + settings.instanceName()), body);
    }

    @Override
    public synchronized void stop() {
        stopping = true;
        wakeup();
        loop.join();
        state = State.DOWN;
    }

    @Override
    public void close() {
        stop();
        if (wake != null) {
            wake.close();
        }
    }

    /** Loop thread: an exchange told us a peer's key, kept for draining (at most {@value #MAX_DISCOVERED}). */
    void report(final String address, final byte[] key) {
        if (discoveredCount.incrementAndGet() > MAX_DISCOVERED) {
            discoveredCount.decrementAndGet();
            return;
        }
        discovered.add(new DiscoveredPeer(transportId, TransportAddr.ofText(address), key.clone()));
    }

    /** @return the source bytes an address encodes to, for tests */
    byte[] sourceOf(final String address) {
        final byte[] src = new byte[TransportPort.SOURCE_MAX_BYTES];
        return Arrays.copyOf(src, family.encodeSource(address, MemorySegment.ofArray(src)));
    }

    static String text(final byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
