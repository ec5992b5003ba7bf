package net.fips.dataplane.ethernet;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.StampedLock;

import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.transport.TransportTypes;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.NetOrder;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The Ethernet transport over an AF_PACKET socket (transports.md §4), driven through FFM.
 *
 * <p>Socket (§4.1): {@code socket(AF_PACKET, SOCK_DGRAM, htons(ethertype))} (the kernel adds and strips the
 * 14-byte Ethernet header), bound to the interface by index, non-blocking, SO_RCVBUF/SO_SNDBUF as configured
 * (failures are fatal, as in the reference), local MAC from SIOCGIFHWADDR and MTU from SIOCGIFMTU. The effective
 * MTU is {@code min(config mtu, interface MTU − 3)}.
 *
 * <p>Receive: one {@code recvmmsg} per batch straight into the caller's slots (the frame at {@code offset − 3}, so
 * the FMP packet lands at {@code offset}; see docs/benchmarks.md for recvmmsg against one call per frame).
 * Frames for another host or our own outgoing ones (a promiscuous interface) are dropped; a data frame is trimmed
 * to its length field; a beacon is counted and, with discovery on, its (MAC, key) kept for
 * {@link #drainBeacons()} (one entry per MAC, newest wins, at most {@value #MAX_DISCOVERED} MACs between
 * drains). Malformed frames are counted drops ({@link EthernetCounters}).
 *
 * <p>Send: one {@code sendmmsg} per batch, each frame the 3-byte header written into the slot's headroom followed
 * by the packet, so nothing is copied; packets above the MTU are refused and counted. {@link #sendBeacon()} sends
 * the 34-byte beacon to {@code ff:ff:ff:ff:ff:ff}; after {@value #ENXIO_REOPEN_AFTER} consecutive ENXIO failures
 * (the interface was destroyed and recreated, §4.4) the socket is reopened on the same interface name by the
 * receiving thread's next {@link #receive} (or by {@link #reopen()} when nothing receives). {@link #openOrAwait}
 * makes a transport whose interface does not exist yet the same way: it opens once the interface appears.
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
    private static final int ENOBUFS_RETRIES = 64;

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
    private final Map<Long, DiscoveredBeacon> discovered = new LinkedHashMap<>();
    private final EthernetFrame beaconView = new EthernetFrame();

    // receive side (receiving thread)
    private final CallState rxState;
    private final MmsgVector rxVec;
    private final PollFds rxPoll;
    private final MemorySegment eventValue;
    // send side (sending thread)
    private final CallState txState;
    private final MmsgVector txVec;
    private final PollFds txPoll;
    // beacons (any thread, serialised on beaconLock)
    private final Object beaconLock = new Object();
    private final CallState beaconState;
    private final MmsgVector beaconVec;
    private final MemorySegment beaconFrame;
    private int consecutiveEnxio;
    private volatile boolean canAnnounce;
    // under the data plane (Transport.start)
    private volatile State state = State.UP;
    private volatile int transportId = -1;
    private EthernetLoop loop;
    private Thread loopThread;

    private volatile int fd;
    private volatile int ifindex;
    private volatile long localMac;
    private volatile int interfaceMtu;
    private volatile boolean reopenRequested;
    private volatile boolean closed;
    private volatile String lastReopenProblem;

    private EthernetTransport(final EthernetTransportConfig cfg, final Arena arena, final WakeFd wake,
                              final Opened opened) {
        this.config = cfg;
        this.arena = arena;
        this.wake = wake;
        this.batch = cfg.batch();
        this.discovery = cfg.discovery();
        this.fd = opened.fd;
        this.ifindex = opened.ifindex;
        this.localMac = opened.mac;
        this.interfaceMtu = opened.ifMtu;
        this.mtu = effectiveMtu(cfg.mtu(), opened.ifMtu);
        this.rxState = CallState.allocate(arena);
        this.rxVec = new MmsgVector(arena, batch, 1, 0);
        this.rxPoll = new PollFds(arena, 2);
        this.eventValue = arena.allocate(Long.BYTES, Long.BYTES);
        this.txState = CallState.allocate(arena);
        this.txVec = new MmsgVector(arena, batch, 1, 0);
        this.txPoll = new PollFds(arena, 1);
        this.beaconState = CallState.allocate(arena);
        this.beaconVec = new MmsgVector(arena, 1, 1, 0);
        this.beaconFrame = arena.allocate(EthernetFrame.BEACON_SIZE, 8);
        final byte[] key = cfg.beaconKey();
        if (key != null) {
            EthernetFrame.writeBeacon(beaconFrame, 0, key);
            canAnnounce = true;
        }
        beaconVec.iov(0, 0, beaconFrame, 0, EthernetFrame.BEACON_SIZE);
        encodeDestinations(opened.ifindex);
    }

    /** The effective MTU: {@code min(configured, interface MTU − 3)}; 0 configured means the interface's. */
    static int effectiveMtu(final int configured, final int interfaceMtu) {
        final int cap = Math.min(interfaceMtu - EthernetFrame.DATA_HEADER_SIZE, EthernetFrame.MAX_DATA_LENGTH);
        return configured == 0 ? cap : Math.min(configured, cap);
    }

    private void encodeDestinations(final int index) {
        for (int i = 0; i < batch; i++) {
            PacketSockets.encode(txVec.nameBuffer(i), config.etherType(), index, 0);
            txVec.name(i, txVec.nameBuffer(i), PacketSockets.SOCKADDR_LL_SIZE);
        }
        PacketSockets.encode(beaconVec.nameBuffer(0), config.etherType(), index, MacAddress.BROADCAST);
        beaconVec.name(0, beaconVec.nameBuffer(0), PacketSockets.SOCKADDR_LL_SIZE);
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
        final Opened opened = openSocket(config);
        if (effectiveMtu(config.mtu(), opened.ifMtu) < EthernetTransportConfig.MIN_MTU) {
            Syscalls.closeQuietly(opened.fd);
            throw new EthernetTransportException(EthernetTransportException.Reason.INVALID_CONFIG, 0,
                    "Ethernet transport on " + config.interfaceName() + ": interface MTU " + opened.ifMtu
                            + " leaves less than " + EthernetTransportConfig.MIN_MTU + " bytes for a FIPS packet",
                    null);
        }
        final Arena arena = Arena.ofShared();
        try {
            final WakeFd wake = WakeFd.open();
            return new EthernetTransport(config, arena, wake, opened);
        } catch (IOException | RuntimeException e) {
            Syscalls.closeQuietly(opened.fd);
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
                        new Opened(-1, 0, 0, config.mtu() > 0
                                ? Math.min(config.mtu(), EthernetFrame.MAX_DATA_LENGTH) + EthernetFrame.DATA_HEADER_SIZE
                                : ASSUMED_INTERFACE_MTU));
                t.awaitingInterface = true;
                t.reopenRequested = true;
                t.lastReopenProblem = e.getMessage();
                return t;
            } catch (IOException | RuntimeException x) {
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

    private record Opened(int fd, int ifindex, long mac, int ifMtu) {
    }

    private static Opened openSocket(final EthernetTransportConfig cfg) throws EthernetTransportException {
        final String name = cfg.interfaceName();
        final int fd;
        try {
            fd = Syscalls.socket(PacketSockets.AF_PACKET,
                    PacketSockets.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                    NetOrder.htons(cfg.etherType()) & 0xFFFF);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EPERM || e.errno() == Errno.EACCES) {
                throw new EthernetTransportException(EthernetTransportException.Reason.PERMISSION, e.errno(),
                        "Ethernet transport on " + name + " needs CAP_NET_RAW (run as root, or grant it: setcap "
                                + "cap_net_raw,cap_net_admin+ep on the java binary, or AmbientCapabilities="
                                + "CAP_NET_RAW in the unit): " + e.getMessage(), e);
            }
            if (e.errno() == Errno.EAFNOSUPPORT) {
                throw new EthernetTransportException(EthernetTransportException.Reason.PERMISSION, e.errno(),
                        "Ethernet transport on " + name + ": AF_PACKET sockets are refused (a systemd "
                                + "RestrictAddressFamilies= without AF_PACKET, or a kernel without CONFIG_PACKET): "
                                + e.getMessage(), e);
            }
            throw system(name, e);
        }
        try {
            final int index;
            try {
                index = Syscalls.ifNameToIndex(name);
            } catch (ErrnoException e) {
                throw new EthernetTransportException(EthernetTransportException.Reason.NO_SUCH_INTERFACE, e.errno(),
                        "Ethernet transport: no interface \"" + name + "\" in this network namespace ("
                                + e.getMessage() + ")", e);
            }
            final PacketSockets.HardwareAddress hw = PacketSockets.hardwareAddress(fd, name);
            if (hw.family() != PacketSockets.ARPHRD_ETHER) {
                throw new EthernetTransportException(EthernetTransportException.Reason.NOT_ETHERNET, 0,
                        "Ethernet transport: interface " + name + " is not Ethernet (hardware type " + hw.family()
                                + ", want " + PacketSockets.ARPHRD_ETHER + ")", null);
            }
            final int ifMtu = PacketSockets.interfaceMtu(fd, name);
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sll = a.allocate(PacketSockets.SOCKADDR_LL_SIZE, 8);
                final int len = PacketSockets.encode(sll, cfg.etherType(), index, -1);
                Syscalls.bind(fd, sll, len, "AF_PACKET " + name + " ethertype 0x"
                        + Integer.toHexString(cfg.etherType()));
            }
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_RCVBUF, cfg.recvBufSize(),
                    "SO_RCVBUF=" + cfg.recvBufSize() + " on " + name);
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_SNDBUF, cfg.sendBufSize(),
                    "SO_SNDBUF=" + cfg.sendBufSize() + " on " + name);
            return new Opened(fd, index, hw.mac(), ifMtu);
        } catch (EthernetTransportException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        } catch (ErrnoException e) {
            Syscalls.closeQuietly(fd);
            throw system(name, e);
        } catch (RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    private static EthernetTransportException system(final String name, final ErrnoException e) {
        return new EthernetTransportException(EthernetTransportException.Reason.SYSTEM, e.errno(),
                "Ethernet transport on " + name + ": " + e.getMessage(), e);
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
        if (fd < 0) {
            // The interface is gone and not back yet: sleep on the wake-up descriptor instead of spinning.
            awaitReadable(-1, timeoutMs < 0 || timeoutMs > 1000 ? 1000 : timeoutMs);
            return 0;
        }
        if (b.offered == 0) {
            return 0;
        }
        final MmsgVector vec = rxVec;
        final int n = Math.min(b.offered, vec.capacity());
        for (int i = 0; i < n; i++) {
            vec.prepareReceive(i);
            vec.iov(i, 0, b.segment[i], b.offset[i] - EthernetFrame.DATA_HEADER_SIZE,
                    b.slotCapacity[i] + EthernetFrame.DATA_HEADER_SIZE);
        }
        final int rc = recv(n, timeoutMs);
        for (int i = 0; i < rc; i++) {
            onFrame(b, i);
        }
        return b.count;
    }

    private void onFrame(final FrameReceiveBatch b, final int i) {
        final MmsgVector vec = rxVec;
        final MemorySegment name = vec.nameBuffer(i);
        onFrame(b, i, PacketSockets.packetType(name), (vec.flags(i) & Linux.MSG_TRUNC) != 0, vec.messageLength(i),
                PacketSockets.sourceMac(name));
    }

    /**
     * Classifies one received frame (what {@code recvmmsg} reported for entry {@code i}): a data frame is recorded
     * in the batch, a beacon goes to discovery, everything else is counted and dropped. Package-private so the
     * fuzz test drives it without a socket.
     *
     * @param packetType the {@code sll_pkttype} of the frame
     * @param truncated  whether the kernel cut the frame ({@code MSG_TRUNC})
     * @param len        the bytes received into {@code b}'s slot {@code i}, from 3 bytes before its offset
     * @param sourceMac  the sender's MAC
     */
    void onFrame(final FrameReceiveBatch b, final int i, final int packetType, final boolean truncated,
                 final int len, final long sourceMac) {
        if (packetType == PacketSockets.PACKET_OTHERHOST || packetType == PacketSockets.PACKET_OUTGOING) {
            counters.framesOtherHost++;
            return;
        }
        if (truncated) {
            counters.framesTooLong++;
            return;
        }
        final MemorySegment seg = b.segment[i];
        final long frame = b.offset[i] - EthernetFrame.DATA_HEADER_SIZE;
        if (len < 1) {
            counters.framesTooShort++;
            return;
        }
        final int kind = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, frame));
        if (kind == EthernetFrame.TYPE_DATA) {
            if (len < EthernetFrame.DATA_HEADER_SIZE) {
                counters.framesTooShort++;
                return;
            }
            final int payload = Short.toUnsignedInt(seg.get(EthernetFrame.U16, frame + EthernetFrame.LENGTH_OFFSET));
            if (payload > len - EthernetFrame.DATA_HEADER_SIZE) {
                counters.framesTooShort++;
                return;
            }
            b.record(i, payload, sourceMac);
            counters.framesRecv++;
            counters.bytesRecv += payload;
        } else if (kind == EthernetFrame.TYPE_BEACON) {
            counters.beaconsRecv++;
            onBeacon(seg, frame, len, sourceMac);
        } else {
            counters.framesUnknownType++;
        }
    }

    /** Rare (one per peer per beacon interval): allocates the key copy and the buffer entry. */
    private void onBeacon(final MemorySegment seg, final long frame, final int len, final long mac) {
        if (!beaconView.wrap(seg, frame, len).isOk()) {
            counters.beaconsMalformed++;
            return;
        }
        if (!discovery || MacAddress.isGroup(mac)) {
            return;
        }
        final DiscoveredBeacon d = new DiscoveredBeacon(mac, beaconView.beaconKey(), System.nanoTime());
        synchronized (discovered) {
            if (discovered.size() >= MAX_DISCOVERED && !discovered.containsKey(mac)) {
                counters.discoveryOverflow++;
                return;
            }
            discovered.remove(mac);
            discovered.put(mac, d);
        }
    }

    /** recvmmsg; on an empty socket waits up to {@code timeoutMs} in poll and tries once more. */
    private int recv(final int n, final int timeoutMs) {
        final int sock = fd;
        int rc = Syscalls.recvmmsg(rxState, sock, rxVec.segment(), n, 0);
        if (rc == Errno.EAGAIN_NEGATIVE) {
            if (timeoutMs == 0 || !awaitReadable(sock, timeoutMs)) {
                return 0;
            }
            rc = Syscalls.recvmmsg(rxState, sock, rxVec.segment(), n, 0);
            if (rc == Errno.EAGAIN_NEGATIVE) {
                return 0;
            }
        }
        if (rc < 0) {
            if (rc != Errno.EINTR_NEGATIVE) {
                counters.recvErrors++;
                if (rc == -PacketSockets.ENETDOWN || rc == -PacketSockets.ENODEV || rc == -PacketSockets.ENXIO) {
                    checkInterface();
                }
            }
            return 0;
        }
        return rc;
    }

    /**
     * After ENETDOWN (which the kernel also reports when the bound interface is unregistered): reopen when the
     * name is gone or now names another interface, so a receiver heals too, not only a beacon sender. Rare.
     */
    private void checkInterface() {
        int now;
        try {
            now = Syscalls.ifNameToIndex(config.interfaceName());
        } catch (ErrnoException e) {
            now = 0;
        }
        if (now != ifindex) {
            reopenRequested = true;
        }
    }

    private boolean awaitReadable(final int sock, final int timeoutMs) {
        rxPoll.set(0, sock, Linux.POLLIN);
        rxPoll.set(1, wake.fd(), Linux.POLLIN);
        final int ready = rxPoll.poll(rxState, timeoutMs);
        if (ready <= 0) {
            return false;
        }
        if (rxPoll.revents(1) != 0) {
            Syscalls.read(rxState, wake.fd(), eventValue, Long.BYTES);   // reset the eventfd; EAGAIN is harmless
        }
        return (rxPoll.revents(0) & (Linux.POLLIN | Linux.POLLERR)) != 0;
    }

    /**
     * Takes the beacons heard since the last call: one per MAC, the newest; oldest MAC first.
     *
     * @return the beacons (empty with discovery off)
     */
    public List<DiscoveredBeacon> drainBeacons() {
        synchronized (discovered) {
            if (discovered.isEmpty()) {
                return List.of();
            }
            final List<DiscoveredBeacon> out = new ArrayList<>(discovered.values());
            discovered.clear();
            return out;
        }
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
            return sendLocked(b, fd);
        } finally {
            fdLock.unlockRead(stamp);
        }
    }

    private int sendLocked(final FrameSendBatch b, final int sock) {
        final MmsgVector vec = txVec;
        int sent = 0;
        int next = 0;
        while (next < b.count) {
            int m = 0;
            while (next < b.count && m < vec.capacity()) {
                final int len = b.length[next];
                if (len > mtu) {
                    counters.mtuExceeded++;
                    next++;
                    continue;
                }
                final MemorySegment seg = b.segment[next];
                final long frame = b.offset[next] - EthernetFrame.DATA_HEADER_SIZE;
                EthernetFrame.writeDataHeader(seg, frame, len);
                vec.iov(m, 0, seg, frame, len + EthernetFrame.DATA_HEADER_SIZE);
                PacketSockets.destination(vec.nameBuffer(m), b.destination[next]);
                m++;
                next++;
            }
            sent += sendMmsg(sock, m);
        }
        return sent;
    }

    private int sendMmsg(final int sock, final int m) {
        final MmsgVector vec = txVec;
        int done = 0;
        int retries = 0;
        int sent = 0;
        while (done < m) {
            final int rc = Syscalls.sendmmsg(txState, sock, vec.from(done), m - done, 0);
            if (rc > 0) {
                for (int t = done; t < done + rc; t++) {
                    counters.bytesSent += vec.messageLength(t) - EthernetFrame.DATA_HEADER_SIZE;
                }
                counters.framesSent += rc;
                sent += rc;
                done += rc;
                retries = 0;
            } else if (rc == Errno.EAGAIN_NEGATIVE) {
                if (config.sendTimeoutMs() == 0 || !awaitWritable(sock)) {
                    counters.sendDrops += m - done;
                    break;
                }
            } else if (rc == Errno.ENOBUFS_NEGATIVE || rc == -Errno.ENOMEM) {
                if (++retries > ENOBUFS_RETRIES) {
                    counters.sendDrops += m - done;
                    break;
                }
                Thread.yield();
            } else if (rc != Errno.EINTR_NEGATIVE) {
                // A hard error (EMSGSIZE, ENXIO, ENETDOWN) belongs to the first unsent frame: count it, go on.
                counters.sendErrors++;
                done++;
            }
        }
        return sent;
    }

    private boolean awaitWritable(final int sock) {
        txPoll.set(0, sock, Linux.POLLOUT);
        return txPoll.poll(txState, config.sendTimeoutMs()) > 0;
    }

    /**
     * Sends one beacon to {@code ff:ff:ff:ff:ff:ff} (any thread; serialised). The
     * {@value #ENXIO_REOPEN_AFTER}rd consecutive ENXIO asks for a reopen (see the class comment).
     *
     * @return 0 when sent, else the positive errno
     * @throws IllegalStateException when the config has no beacon key
     */
    public int sendBeacon() {
        if (!canAnnounce) {
            throw new IllegalStateException("Ethernet transport on " + config.interfaceName()
                    + " has no beacon key (announceAs)");
        }
        synchronized (beaconLock) {
            final long stamp = fdLock.readLock();
            final int rc;
            try {
                if (closed) {
                    return Errno.EBADF;
                }
                rc = Syscalls.sendmsg(beaconState, fd, beaconVec.msghdr(0), 0);
            } finally {
                fdLock.unlockRead(stamp);
            }
            if (rc >= 0) {
                counters.beaconsSent++;
                consecutiveEnxio = 0;
                return 0;
            }
            counters.beaconSendErrors++;
            if (-rc == PacketSockets.ENXIO || -rc == PacketSockets.ENODEV) {
                if (++consecutiveEnxio >= ENXIO_REOPEN_AFTER) {
                    requestReopen();
                }
            } else {
                consecutiveEnxio = 0;
            }
            return -rc;
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
        } catch (EthernetTransportException e) {
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
            final Opened o = openSocket(config);
            if (awaitingInterface) {
                final int now = Math.min(mtu, effectiveMtu(config.mtu(), o.ifMtu));
                if (now < EthernetTransportConfig.MIN_MTU) {
                    Syscalls.closeQuietly(o.fd);
                    throw new EthernetTransportException(EthernetTransportException.Reason.INVALID_CONFIG, 0,
                            "Ethernet transport on " + config.interfaceName() + ": interface MTU " + o.ifMtu
                                    + " leaves less than " + EthernetTransportConfig.MIN_MTU
                                    + " bytes for a FIPS packet", null);
                }
                mtu = now;
                awaitingInterface = false;
                LOG.log(System.Logger.Level.INFO, "Ethernet transport on {0}: the interface is here, opened"
                        + " (ifindex {1}, MAC {2}, mtu {3})", config.interfaceName(), o.ifindex,
                        MacAddress.format(o.mac), now);
            }
            fd = o.fd;
            ifindex = o.ifindex;
            localMac = o.mac;
            interfaceMtu = o.ifMtu;
            encodeDestinations(o.ifindex);
            counters.reopens++;
            reopenRequested = false;
            lastReopenProblem = null;
            synchronized (beaconLock) {
                consecutiveEnxio = 0;
            }
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
        return canAnnounce;
    }

    /**
     * Sets (or replaces) the key {@link #sendBeacon()} announces: the node's x-only key, known only once the identity
     * is loaded. Any thread.
     *
     * @throws IllegalArgumentException unless the key has 32 bytes
     */
    public void announceAs(final byte[] xOnlyKey) {
        synchronized (beaconLock) {
            if (closed) {
                return;
            }
            EthernetFrame.writeBeacon(beaconFrame, 0, xOnlyKey);
            canAnnounce = true;
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
        if (loop != null || closed) {
            throw new IllegalStateException("Ethernet transport on " + config.interfaceName()
                    + (closed ? " is closed" : " is already started"));
        }
        transportId = port.transportId();
        loop = new EthernetLoop(this, port, batch);
        loopThread = Thread.ofPlatform().name("fips-eth-" + config.interfaceName()).daemon().unstarted(loop);
        state = State.UP;
        loopThread.start();
    }

    /** Stops the event loop and waits for it (it returns every slot it holds); state DOWN. Idempotent. */
    @Override
    public void stop() {
        final EthernetLoop l;
        final Thread t;
        synchronized (this) {
            l = loop;
            t = loopThread;
        }
        if (l != null) {
            l.stop();
            try {
                t.join(5_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
        synchronized (beaconLock) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "EthernetTransport{" + config.interfaceName() + " " + MacAddress.format(localMac) + ", ethertype=0x"
                + Integer.toHexString(config.etherType()) + ", mtu=" + mtu + "}";
    }
}
