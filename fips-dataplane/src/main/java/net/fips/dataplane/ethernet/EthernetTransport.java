package net.fips.dataplane.ethernet;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.StampedLock;

import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.LoopThread;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The Ethernet transport over an AF_PACKET socket (transports.md §4), driven through FFM, shaped like the UDP one:
 * this class opens the socket ({@link EthernetSocket}: bound to the interface by index, the kernel adds and strips
 * the 14-byte Ethernet header), owns the descriptor and its reopening, and answers the {@link Transport} contract;
 * {@link EthernetReceiver} is the recvmmsg side (data frames into the caller's slots, beacons into the discovery
 * buffer, see docs/benchmarks.md for recvmmsg against one call per frame), {@link EthernetSender} the sendmmsg side
 * (the 3-byte header written into each slot's headroom, so nothing is copied), {@link EthernetBeacon} the
 * broadcast beacon, and {@link EthernetLoop} the event loop under the data plane. The effective MTU is
 * {@code min(config mtu, interface MTU − 3)}; packets above it are refused and counted.
 *
 * <p>After {@value #ENXIO_REOPEN_AFTER} consecutive ENXIO beacon failures (the interface was destroyed and
 * recreated, §4.4) the socket is reopened on the same interface name by the receiving thread's next
 * {@link #receive} (or by {@link #reopen()} when nothing receives). {@link #openOrAwait} makes a transport whose
 * interface does not exist yet the same way: it opens once the interface appears.
 *
 * <p>Threading: one thread receives, one sends, and beacons may be sent from a third; each has its own native
 * buffers and errno state, and none allocates per packet. The receiving thread alone closes and reopens the
 * descriptor, under a write lock the senders' read locks exclude. {@link #wakeup()} ends a receive blocked in
 * poll; {@link #close()} after the threads stopped.
 */
public final class EthernetTransport implements Transport {
    private static final System.Logger LOG = System.getLogger(EthernetTransport.class.getName());
    /** The interface MTU a transport waiting for its interface assumes until it opens (plain Ethernet). */
    static final int ASSUMED_INTERFACE_MTU = 1500;
    /** MACs kept between two drains; beacons from further new MACs are counted and dropped. */
    public static final int MAX_DISCOVERED = 1024;
    /** Consecutive ENXIO beacon failures that make the transport reopen its socket (the reference's 3). */
    public static final int ENXIO_REOPEN_AFTER = 3;

    private final EthernetTransportConfig config;
    private final Arena arena;
    private final WakeFd wake;
    private final StampedLock fdLock = new StampedLock();
    private final EthernetCounters counters = new EthernetCounters();
    /** Fixed at open; a transport that waited for its interface may lower it once, at the first open. */
    private volatile int mtu;
    /** True while a transport made by {@link #openOrAwait} has not yet found its interface. */
    private volatile boolean awaitingInterface;
    private final int batch;
    private final boolean discovery;
    private final EthernetReceiver receiver;
    private final EthernetSender sender;
    private final EthernetBeacon beacon;
    // under the data plane (Transport.start)
    private volatile State state = State.UP;
    private volatile int transportId = -1;
    private final LoopThread thread = new LoopThread();
    private EthernetLoop loop;

    private volatile int fd;
    private volatile int ifindex;
    private volatile long localMac;
    private volatile int interfaceMtu;
    private volatile boolean reopenRequested;
    private volatile boolean closed;
    private volatile String lastReopenProblem;

    private EthernetTransport(final EthernetTransportConfig cfg, final Arena arena, final WakeFd wake,
                              final EthernetSocket opened) {
        this.config = cfg;
        this.arena = arena;
        this.wake = wake;
        this.batch = cfg.batch();
        this.discovery = cfg.discovery();
        this.fd = opened.fd();
        this.ifindex = opened.ifindex();
        this.localMac = opened.mac();
        this.interfaceMtu = opened.ifMtu();
        this.mtu = effectiveMtu(cfg.mtu(), opened.ifMtu());
        this.receiver = new EthernetReceiver(arena, batch, wake.fd(), discovery, counters);
        this.sender = new EthernetSender(arena, batch, cfg.etherType(), cfg.sendTimeoutMs(), counters);
        this.beacon = new EthernetBeacon(arena, cfg.beaconKey(), counters);
        encodeDestinations(opened.ifindex());
    }

    /** The effective MTU: {@code min(configured, interface MTU − 3)}; 0 configured means the interface's. */
    static int effectiveMtu(final int configured, final int interfaceMtu) {
        final int cap = Math.min(interfaceMtu - EthernetFrame.DATA_HEADER_SIZE, EthernetFrame.MAX_DATA_LENGTH);
        return configured == 0 ? cap : Math.min(configured, cap);
    }

    private void encodeDestinations(final int index) {
        sender.encodeDestinations(index);
        beacon.encodeDestination(config.etherType(), index);
    }

    /**
     * Opens and binds a transport.
     *
     * @throws EthernetTransportException with a {@link EthernetTransportException.Reason}: no CAP_NET_RAW, no such
     *                                    interface, not Ethernet, a bad setting, or another failed call
     */
    public static EthernetTransport open(final EthernetTransportConfig config) throws EthernetTransportException {
        final String problem = config.problem();
        if (problem != null) {
            throw new EthernetTransportException(EthernetTransportException.Reason.INVALID_CONFIG, 0,
                    "Ethernet transport: " + problem, null);
        }
        if (!Syscalls.isAvailable()) {
            throw new EthernetTransportException(EthernetTransportException.Reason.NATIVE_UNAVAILABLE, 0,
                    "Ethernet transport needs native access (--enable-native-access=net.fips.ffm)",
                    Syscalls.unavailabilityCause());
        }
        final EthernetSocket opened = EthernetSocket.open(config);
        if (effectiveMtu(config.mtu(), opened.ifMtu()) < EthernetTransportConfig.MIN_MTU) {
            Syscalls.closeQuietly(opened.fd());
            throw new EthernetTransportException(EthernetTransportException.Reason.INVALID_CONFIG, 0,
                    "Ethernet transport on " + config.interfaceName() + ": interface MTU " + opened.ifMtu()
                            + " leaves less than " + EthernetTransportConfig.MIN_MTU + " bytes for a FIPS packet",
                    null);
        }
        final Arena arena = Arena.ofShared();
        try {
            final WakeFd wake = WakeFd.open();
            return new EthernetTransport(config, arena, wake, opened);
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(opened.fd());
            arena.close();
            throw new EthernetTransportException(EthernetTransportException.Reason.SYSTEM,
                    e instanceof ErrnoException x ? x.errno() : 0, "Ethernet transport on "
                    + config.interfaceName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Like {@link #open}, except that an interface that does not exist (yet) is not an error: the transport is made
     * without a socket ({@link #awaitingInterface()}; sends and beacons fail and are counted, {@link #state()} is
     * {@code STARTING}) and its receiving thread tries to open the interface about once a second, as after the
     * interface was destroyed. Its MTU is the configured one, or 1497 (a 1500-byte Ethernet MTU) when none is
     * configured, lowered at the first open if the interface's is smaller (never raised: the pool was sized for it).
     *
     * @throws EthernetTransportException for every other reason {@link #open} has
     */
    public static EthernetTransport openOrAwait(final EthernetTransportConfig config)
            throws EthernetTransportException {
        try {
            return open(config);
        } catch (final EthernetTransportException e) {
            if (e.reason() != EthernetTransportException.Reason.NO_SUCH_INTERFACE) {
                throw e;
            }
            final Arena arena = Arena.ofShared();
            try {
                final WakeFd wake = WakeFd.open();
                final EthernetTransport t = new EthernetTransport(config, arena, wake,
                        new EthernetSocket(-1, 0, 0, config.mtu() > 0
                                ? Math.min(config.mtu(), EthernetFrame.MAX_DATA_LENGTH) + EthernetFrame.DATA_HEADER_SIZE
                                : ASSUMED_INTERFACE_MTU));
                t.awaitingInterface = true;
                t.reopenRequested = true;
                t.lastReopenProblem = e.getMessage();
                return t;
            } catch (final IOException | RuntimeException x) {
                arena.close();
                throw new EthernetTransportException(EthernetTransportException.Reason.SYSTEM,
                        x instanceof ErrnoException n ? n.errno() : 0, "Ethernet transport on "
                        + config.interfaceName() + ": " + x.getMessage(), x);
            }
        }
    }

    /** @return true while a transport made by {@link #openOrAwait} waits for its interface to appear */
    public boolean awaitingInterface() {
        return awaitingInterface;
    }

    // ---------------------------------------------------------------- receive (one thread)

    /**
     * Receives up to {@code b.offered()} frames; data frames are delivered into the offered slots, beacons go to
     * the discovery buffer, everything else is a counted drop.
     *
     * @param timeoutMs how long to wait in poll when nothing is queued: 0 = do not wait, -1 = until a frame or
     *                  {@link #wakeup()}
     * @return packets delivered (also {@link FrameReceiveBatch#count()})
     */
    public int receive(final FrameReceiveBatch b, final int timeoutMs) {
        b.count = 0;
        if (closed) {
            return 0;
        }
        if (reopenRequested) {
            tryReopen();
        }
        final int sock = fd;
        if (sock < 0) {
            // The interface is gone and not back yet: sleep on the wake-up descriptor instead of spinning.
            receiver.idle(timeoutMs < 0 || timeoutMs > 1000 ? 1000 : timeoutMs);
            return 0;
        }
        if (b.offered == 0) {
            return 0;
        }
        final int n = receiver.receive(b, sock, timeoutMs);
        if (receiver.takeInterfaceTrouble()) {
            checkInterface();
        }
        return n;
    }

    /**
     * After ENETDOWN (which the kernel also reports when the bound interface is unregistered): reopen when the
     * name is gone or now names another interface, so a receiver heals too, not only a beacon sender. Rare.
     */
    private void checkInterface() {
        int now;
        try {
            now = Syscalls.ifNameToIndex(config.interfaceName());
        } catch (final ErrnoException e) {
            now = 0;
        }
        if (now != ifindex) {
            reopenRequested = true;
        }
    }

    /**
     * Takes the beacons heard since the last call: one per MAC, the newest; oldest MAC first.
     *
     * @return the beacons (empty with discovery off)
     */
    public List<DiscoveredBeacon> drainBeacons() {
        return receiver.drainBeacons();
    }

    // ---------------------------------------------------------------- send (one thread)

    /**
     * Sends a batch of data frames (sendmmsg). Packets above the MTU are refused and counted; when the socket
     * buffer is full a send waits up to the configured timeout, then drops and counts.
     *
     * @return frames the kernel accepted
     */
    public int send(final FrameSendBatch b) {
        final long stamp = fdLock.readLock();
        try {
            if (closed) {
                return 0;
            }
            return sender.send(b, fd, mtu);
        } finally {
            fdLock.unlockRead(stamp);
        }
    }

    /**
     * Sends one beacon to {@code ff:ff:ff:ff:ff:ff} (any thread; serialised). The
     * {@value #ENXIO_REOPEN_AFTER}rd consecutive ENXIO asks for a reopen (see the class comment).
     *
     * @return 0 when sent, else the positive errno
     * @throws IllegalStateException when the config has no beacon key
     */
    public int sendBeacon() {
        if (!beacon.canAnnounce()) {
            throw new IllegalStateException("Ethernet transport on " + config.interfaceName()
                    + " has no beacon key (announceAs)");
        }
        synchronized (beacon) {
            final long stamp = fdLock.readLock();
            final int rc;
            try {
                if (closed) {
                    return Errno.EBADF;
                }
                rc = beacon.sendmsg(fd);
            } finally {
                fdLock.unlockRead(stamp);
            }
            if (beacon.counted(rc)) {
                requestReopen();
            }
            return rc >= 0 ? 0 : -rc;
        }
    }

    // ---------------------------------------------------------------- reopen

    /** Asks the receiving thread to reopen the socket on its next {@link #receive} (and wakes it). */
    public void requestReopen() {
        reopenRequested = true;
        wake.wake();
    }

    /** @return whether a reopen is pending (asked for and not yet done) */
    public boolean reopenPending() {
        return reopenRequested;
    }

    /** @return why the last reopen attempt failed, or null */
    public String lastReopenProblem() {
        return lastReopenProblem;
    }

    private void tryReopen() {
        try {
            reopen();
        } catch (final EthernetTransportException e) {
            // The interface may not be back yet: stay pending, the next receive tries again. (Not counted while
            // a transport waits for an interface that never was there: that is its state, not an error.)
            lastReopenProblem = e.getMessage();
            if (!awaitingInterface) {
                counters.recvErrors++;
            }
        }
    }

    /**
     * Closes the socket and opens a new one on the same interface name and EtherType (the index, MAC and interface
     * MTU are read again; the effective MTU stays). Call only from the receiving thread, or when nothing receives.
     *
     * @throws EthernetTransportException when the new socket cannot be opened (the old one stays closed; a later
     *                                    call or receive tries again)
     */
    public void reopen() throws EthernetTransportException {
        final long stamp = fdLock.writeLock();
        try {
            if (closed) {
                return;
            }
            final int old = fd;
            if (old >= 0) {
                Syscalls.closeQuietly(old);
                fd = -1;
            }
            final EthernetSocket o = EthernetSocket.open(config);
            if (awaitingInterface) {
                final int now = Math.min(mtu, effectiveMtu(config.mtu(), o.ifMtu()));
                if (now < EthernetTransportConfig.MIN_MTU) {
                    Syscalls.closeQuietly(o.fd());
                    throw new EthernetTransportException(EthernetTransportException.Reason.INVALID_CONFIG, 0,
                            "Ethernet transport on " + config.interfaceName() + ": interface MTU " + o.ifMtu()
                                    + " leaves less than " + EthernetTransportConfig.MIN_MTU
                                    + " bytes for a FIPS packet", null);
                }
                mtu = now;
                awaitingInterface = false;
                LOG.log(System.Logger.Level.INFO, "Ethernet transport on {0}: the interface is here, opened"
                        + " (ifindex {1}, MAC {2}, mtu {3})", config.interfaceName(), o.ifindex(),
                        MacAddress.format(o.mac()), now);
            }
            fd = o.fd();
            ifindex = o.ifindex();
            localMac = o.mac();
            interfaceMtu = o.ifMtu();
            encodeDestinations(o.ifindex());
            counters.reopens++;
            reopenRequested = false;
            lastReopenProblem = null;
            beacon.reopened();
        } finally {
            fdLock.unlockWrite(stamp);
        }
    }

    // ---------------------------------------------------------------- accessors

    /** Wakes a receiver blocked in {@link #receive} (safe from any thread). */
    @Override
    public void wakeup() {
        wake.wake();
    }

    /** @return the largest FMP packet {@link #send} accepts: {@code min(config mtu, interface MTU − 3)} */
    @Override
    public int mtu() {
        return mtu;
    }

    /** @return the interface MTU the kernel reported at the last open */
    public int interfaceMtu() {
        return interfaceMtu;
    }

    /** @return the interface name */
    @Override
    public String interfaceName() {
        return config.interfaceName();
    }

    /** @return the interface index at the last open */
    public int interfaceIndex() {
        return ifindex;
    }

    /** @return our MAC (low 48 bits) */
    public long localMac() {
        return localMac;
    }

    /** @return the EtherType */
    public int etherType() {
        return config.etherType();
    }

    /** @return whether beacons are kept for {@link #drainBeacons()} */
    public boolean discovery() {
        return discovery;
    }

    /** @return whether {@link #sendBeacon()} can be used */
    public boolean canAnnounce() {
        return beacon.canAnnounce();
    }

    /**
     * Sets (or replaces) the key {@link #sendBeacon()} announces: the node's x-only key, known only once the identity
     * is loaded. Any thread.
     *
     * @throws IllegalArgumentException unless the key has 32 bytes
     */
    public void announceAs(final byte[] xOnlyKey) {
        if (!closed) {
            beacon.announceAs(xOnlyKey);
        }
    }

    /** Loop thread: a queued frame whose destination is not an Ethernet one (a bug elsewhere), dropped. */
    void countUnsendable() {
        counters.sendErrors++;
    }

    // ---------------------------------------------------------------- Transport

    @Override
    public String typeName() {
        return TransportTypes.ETHERNET;
    }

    @Override
    public String instanceName() {
        return config.instanceName();
    }

    @Override
    public State state() {
        final State s = state;
        return s == State.UP && awaitingInterface ? State.STARTING : s;
    }

    /**
     * {@inheritDoc} The address is the peer's 6 MAC bytes (unicast); thread-safe, allocates the handle only.
     */
    @Override
    public EthernetDestination destination(final TransportAddr address) throws TransportException {
        if (!address.isMacSized()) {
            throw new TransportException("Ethernet address " + address + " is not 6 MAC bytes");
        }
        final long mac = MacAddress.fromBytes(address.bytes());
        if (MacAddress.isGroup(mac)) {
            throw new TransportException("Ethernet address " + MacAddress.format(mac)
                    + " is a broadcast/multicast MAC, not a peer");
        }
        return new EthernetDestination(address, mac);
    }

    /** {@inheritDoc} The source bytes are the sender's 6 MAC bytes. */
    @Override
    public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        if (length != MacAddress.SIZE || offset < 0 || offset + length > source.byteSize()) {
            return null;
        }
        return TransportAddr.ofMac(MacAddress.toBytes(PacketSockets.readMac(source, offset)));
    }

    /**
     * {@inheritDoc} The beacons heard since the last call (or since {@link #drainBeacons()}: both drain the same
     * buffer; the node uses one of them), with their keys as unchecked hints.
     */
    @Override
    public List<DiscoveredPeer> drainDiscovered() {
        final List<DiscoveredBeacon> beacons = drainBeacons();
        if (beacons.isEmpty()) {
            return List.of();
        }
        final List<DiscoveredPeer> out = new ArrayList<>(beacons.size());
        for (final DiscoveredBeacon b : beacons) {
            out.add(new DiscoveredPeer(transportId, TransportAddr.ofMac(MacAddress.toBytes(b.mac())), b.xOnlyKey()));
        }
        return out;
    }

    @Override
    public boolean autoConnect() {
        return config.autoConnect();
    }

    @Override
    public boolean acceptConnections() {
        return config.acceptConnections();
    }

    /**
     * {@inheritDoc} Ethernet: {@code frames_sent, frames_recv, bytes_sent, bytes_recv, send_errors, recv_errors,
     * beacons_sent, beacons_recv, frames_too_short, frames_too_long}, then ours ({@link EthernetCounters#snapshot()}).
     */
    @Override
    public Map<String, Long> stats() {
        return counters.snapshot();
    }

    /**
     * Starts the event loop thread {@code fips-eth-<iface>} ({@link EthernetLoop}): it sends what the data plane
     * queues and delivers what arrives.
     *
     * @throws IllegalStateException when started twice or after close
     */
    @Override
    public synchronized void start(final TransportPort port) {
        if (thread.started() || closed) {
            throw new IllegalStateException("Ethernet transport on " + config.interfaceName()
                    + (closed ? " is closed" : " is already started"));
        }
        transportId = port.transportId();
        loop = new EthernetLoop(this, port, batch);
        state = State.UP;
        thread.start("fips-eth-" + config.interfaceName(), loop);
    }

    /** Stops the event loop and waits for it (it returns every slot it holds); state DOWN. Idempotent. */
    @Override
    public void stop() {
        final EthernetLoop l;
        synchronized (this) {
            l = loop;
        }
        if (l != null) {
            l.stop();
            thread.join();
        }
        state = State.DOWN;
    }

    /** @return the counters */
    public EthernetCounters counters() {
        return counters;
    }

    /** @return the current socket descriptor (-1 while a reopen is failing) */
    public int fileDescriptor() {
        return fd;
    }

    /** Stops the loop if it runs, closes the socket and frees all native buffers. Idempotent. */
    @Override
    public void close() {
        stop();
        if (!wake.closeOnce()) {
            return;
        }
        final long stamp = fdLock.writeLock();
        try {
            closed = true;
            Syscalls.closeQuietly(fd);
            fd = -1;
        } finally {
            fdLock.unlockWrite(stamp);
        }
        beacon.close(arena);
    }

    @Override
    public String toString() {
        return "EthernetTransport{" + config.interfaceName() + " " + MacAddress.format(localMac) + ", ethertype=0x"
                + Integer.toHexString(config.etherType()) + ", mtu=" + mtu + "}";
    }
}
