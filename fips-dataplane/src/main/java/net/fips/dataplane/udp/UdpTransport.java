package net.fips.dataplane.udp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * A UDP socket for FMP packets on Linux, driven through FFM: {@code recvmmsg} batches straight into the caller's
 * slots, {@code sendmmsg} batches, UDP GSO trains for equal-size runs to one peer, optional UDP GRO, and a
 * non-blocking descriptor with {@code poll} so an idle receiver sleeps in the kernel.
 *
 * <p>Socket set-up follows the reference (transports.md §2.1): non-blocking, SO_REUSEADDR + SO_REUSEPORT before
 * bind, bind, SO_RCVBUF/SO_SNDBUF (what the kernel granted is read back, see {@link #receiveBufferBytes()}),
 * SO_RXQ_OVFL for the kernel drop counter. An IPv6 bind address makes a dual-stack socket ({@code IPV6_V6ONLY=0});
 * IPv4 destinations are then sent IPv4-mapped and IPv4 sources reported as IPv4.
 *
 * <p>Threading: one thread may {@link #receive} while another {@link #send}s; each side owns its own native
 * buffers and errno state. Neither side allocates per packet. Call {@link #close()} after both have stopped
 * ({@link #wakeup()} unblocks a receiver waiting in poll).
 */
public final class UdpTransport implements Transport {
    private final Arena arena;
    private final int fd;
    private final WakeFd wake;
    private final boolean ipv6;
    private final int mtu;
    private volatile InetSocketAddress localAddress;
    private volatile int receiveBufferBytes;
    private volatile int sendBufferBytes;
    private final boolean groActive;
    private final String groProblem;
    private final UdpCounters counters;
    private final UdpReceiver receiver;
    private final UdpSender sender;
    private final String instanceName;
    private final boolean acceptConnections;
    private volatile TransportAddr localAddr;
    private volatile boolean closed;
    /** An adoption slot (ADR 0046): its descriptor holds a placeholder until {@link #adopt} puts a socket there. */
    private final UdpTransportConfig slotConfig;
    private volatile boolean vacant;

    private UdpTransport(final Arena arena, final int fd, final WakeFd wake, final boolean ipv6,
                         final UdpTransportConfig cfg, final InetSocketAddress localAddress, final int rcvBuf,
                         final int sndBuf, final boolean groActive, final String groProblem, final boolean slot) {
        this.arena = arena;
        this.slotConfig = slot ? cfg : null;
        this.vacant = slot;
        this.fd = fd;
        this.wake = wake;
        this.ipv6 = ipv6;
        this.mtu = cfg.mtuBytes();
        this.localAddress = localAddress;
        this.receiveBufferBytes = rcvBuf;
        this.sendBufferBytes = sndBuf;
        this.groActive = groActive;
        this.groProblem = groProblem;
        this.counters = new UdpCounters();
        this.receiver = new UdpReceiver(arena, fd, wake.fd(), cfg.batch(), groActive, counters);
        this.instanceName = cfg.instanceName();
        this.acceptConnections = cfg.acceptConnections();
        this.localAddr = TransportAddr.ofInet(localAddress);
        this.sender = new UdpSender(arena, fd, cfg.batch(), cfg.mtuBytes(), cfg.sendTimeoutMs(), cfg.gso(), counters);
    }

    /**
     * Opens and binds a transport.
     *
     * @param config settings; {@link UdpTransportConfig#conclude()} is called if it was not
     * @return the bound transport
     * @throws UdpTransportException for bad settings or an unusable bind address (with the reason)
     * @throws ErrnoException        naming the failing call and the address, e.g. EADDRINUSE from bind
     */
    public static UdpTransport open(final UdpTransportConfig config) throws IOException {
        final UdpTransportConfig cfg = config.concluded() ? config : config.conclude();
        if (!Syscalls.isAvailable()) {
            throw new UdpTransportException("UDP transport needs native access (--enable-native-access="
                    + "net.fips.ffm)", Syscalls.unavailabilityCause());
        }
        final InetSocketAddress bind = cfg.bindAddress();
        final String where = UdpAddresses.format(bind);
        final boolean ipv6 = bind.getAddress() instanceof Inet6Address;
        final int fd = Syscalls.socket(ipv6 ? Linux.AF_INET6 : Linux.AF_INET,
                Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, Linux.IPPROTO_UDP);
        final Arena arena = Arena.ofShared();
        WakeFd wake = null;
        try {
            if (cfg.reusePort()) {
                // The reference ignores failures here; so do we (the bind below reports what matters).
                Syscalls.setsockoptIntRaw(fd, Linux.SOL_SOCKET, Linux.SO_REUSEADDR, 1);
                Syscalls.setsockoptIntRaw(fd, Linux.SOL_SOCKET, Linux.SO_REUSEPORT, 1);
            }
            if (ipv6) {
                Syscalls.setsockoptInt(fd, Linux.IPPROTO_IPV6, Linux.IPV6_V6ONLY, 0, "IPV6_V6ONLY=0 for UDP " + where);
            }
            final MemorySegment addr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int len;
            try {
                len = SockAddrs.encode(bind, addr, ipv6);
            } catch (final SockAddrException e) {
                throw new UdpTransportException("UDP bind address " + where + ": " + e.getMessage(), e);
            }
            bindOrExplain(fd, addr, len, where);
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_RCVBUF, cfg.receiveBufferBytes(),
                    "SO_RCVBUF=" + cfg.receiveBufferBytes() + " on UDP " + where);
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_SNDBUF, cfg.sendBufferBytes(),
                    "SO_SNDBUF=" + cfg.sendBufferBytes() + " on UDP " + where);
            final int rcvBuf = Syscalls.getsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_RCVBUF, "SO_RCVBUF on " + where);
            final int sndBuf = Syscalls.getsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_SNDBUF, "SO_SNDBUF on " + where);
            Syscalls.setsockoptIntRaw(fd, Linux.SOL_SOCKET, Linux.SO_RXQ_OVFL, 1);   // optional, like the reference
            boolean gro = false;
            String groProblem = cfg.gro() ? null : "not requested";
            if (cfg.gro()) {
                final int rc = Syscalls.setsockoptIntRaw(fd, Linux.SOL_UDP, Linux.UDP_GRO, 1);
                gro = rc == 0;
                groProblem = gro ? null : "setsockopt(UDP_GRO) failed: " + Errno.strerror(-rc);
            }
            final int nameLen = Syscalls.getsockname(fd, addr);
            final InetSocketAddress local;
            try {
                local = SockAddrs.decode(addr, nameLen);
            } catch (final SockAddrException e) {
                throw new UdpTransportException("UDP " + where + ": getsockname gave " + e.getMessage(), e);
            }
            wake = WakeFd.open();
            return new UdpTransport(arena, fd, wake, ipv6, cfg, local, rcvBuf, sndBuf, gro, groProblem, false);
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            if (wake != null) {
                wake.close();
            }
            arena.close();
            throw e;
        }
    }

    /**
     * Opens an adoption slot (ADR 0046): a UDP transport whose descriptor holds an unbound IPv4 placeholder socket
     * (it receives nothing, so the data plane's agents idle on it) until {@link #adopt} puts the socket of a
     * successful NAT-traversal punch in its place. The data plane takes a slot like any UDP transport at start;
     * adoption and {@link #vacate()} swap the socket under the same descriptor number, so its agents, poll sets and
     * batching stay as they are. Never GRO (the reference's adopted sockets have none); no bind address.
     *
     * @param config MTU, buffers, batch, send timeout, GSO, instance name ({@code nostr-nat}) and
     *               {@code accept_connections} of the adopted sockets; its bind address is ignored
     * @return the vacant slot
     * @throws IOException naming the failing call
     */
    public static UdpTransport openAdoptionSlot(final UdpTransportConfig config) throws IOException {
        final UdpTransportConfig cfg = (config.concluded() ? config : config.conclude()).gro(false);
        if (!Syscalls.isAvailable()) {
            throw new UdpTransportException("UDP transport needs native access (--enable-native-access="
                    + "net.fips.ffm)", Syscalls.unavailabilityCause());
        }
        final int fd = placeholder();
        final Arena arena = Arena.ofShared();
        try {
            final WakeFd wake = WakeFd.open();
            final InetSocketAddress none = new InetSocketAddress(Inet4Address.getByAddress(new byte[4]), 0);
            return new UdpTransport(arena, fd, wake, false, cfg, none, 0, 0, false, "adoption slot", true);
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            arena.close();
            throw e;
        }
    }

    private static int placeholder() throws IOException {
        return Syscalls.socket(Linux.AF_INET, Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                Linux.IPPROTO_UDP);
    }

    /**
     * Adopts the socket of a successful punch (discovery-gateway.md §2.6): sets the configured SO_RCVBUF/SO_SNDBUF
     * and SO_RXQ_OVFL on it, then puts it under this slot's descriptor ({@code dup3}) and wakes the receive agent,
     * whose next {@code recvmmsg} reads the punched socket. The traversal socket no longer owns the descriptor
     * (close it as usual to free its buffers).
     *
     * @param socket the punched socket (IPv4, non-blocking, bound)
     * @throws IllegalStateException when this is no adoption slot, is occupied, or is closed
     * @throws IOException           naming the failing call; the slot stays vacant and the socket is closed
     */
    public synchronized void adopt(final TraversalSocket socket) throws IOException {
        if (slotConfig == null || closed) {
            throw new IllegalStateException(this + " is " + (closed ? "closed" : "no adoption slot"));
        }
        if (!vacant) {
            throw new IllegalStateException("adoption slot " + this + " is occupied");
        }
        final InetSocketAddress local = socket.localAddress();
        final int punched = socket.release();
        try {
            final String where = "adopted UDP " + UdpAddresses.format(local);
            Syscalls.setsockoptInt(punched, Linux.SOL_SOCKET, Linux.SO_RCVBUF, slotConfig.receiveBufferBytes(),
                    "SO_RCVBUF=" + slotConfig.receiveBufferBytes() + " on " + where);
            Syscalls.setsockoptInt(punched, Linux.SOL_SOCKET, Linux.SO_SNDBUF, slotConfig.sendBufferBytes(),
                    "SO_SNDBUF=" + slotConfig.sendBufferBytes() + " on " + where);
            receiveBufferBytes = Syscalls.getsockoptInt(punched, Linux.SOL_SOCKET, Linux.SO_RCVBUF, where);
            sendBufferBytes = Syscalls.getsockoptInt(punched, Linux.SOL_SOCKET, Linux.SO_SNDBUF, where);
            Syscalls.setsockoptIntRaw(punched, Linux.SOL_SOCKET, Linux.SO_RXQ_OVFL, 1);
            Syscalls.dup3(punched, fd, Linux.O_CLOEXEC);
        } finally {
            Syscalls.closeQuietly(punched);
        }
        localAddress = local;
        localAddr = TransportAddr.ofInet(local);
        vacant = false;
        wake.wake();
    }

    /**
     * Closes the adopted socket (a fresh placeholder takes its descriptor) and makes the slot vacant again. Links
     * on it must be gone first; datagrams still queued on the old socket are lost with it.
     *
     * @return false when the slot was vacant already
     * @throws IOException naming the failing call
     */
    public synchronized boolean vacate() throws IOException {
        if (slotConfig == null || closed) {
            throw new IllegalStateException(this + " is " + (closed ? "closed" : "no adoption slot"));
        }
        if (vacant) {
            return false;
        }
        final int p = placeholder();
        vacant = true;   // before the swap: no send reaches the placeholder
        try {
            Syscalls.dup3(p, fd, Linux.O_CLOEXEC);
        } catch (final IOException e) {
            vacant = false;
            throw e;
        } finally {
            Syscalls.closeQuietly(p);
        }
        localAddress = new InetSocketAddress(Inet4Address.getByAddress(new byte[4]), 0);
        localAddr = TransportAddr.ofInet(localAddress);
        wake.wake();
        return true;
    }

    /** @return whether this transport is an adoption slot ({@link #openAdoptionSlot}) */
    public boolean isAdoptionSlot() {
        return slotConfig != null;
    }

    /** {@inheritDoc} Adoption slots are. */
    @Override
    public boolean bootstrapOnly() {
        return slotConfig != null;
    }

    /** @return whether this is an adoption slot with no socket adopted */
    public boolean isVacant() {
        return vacant;
    }

    /**
     * @param e what {@link #open} threw
     * @return true when the bind failed because the address is in use (EADDRINUSE)
     */
    public static boolean isAddressInUse(final IOException e) {
        return e instanceof ErrnoException x && x.errno() == Errno.EADDRINUSE;
    }

    private static void bindOrExplain(final int fd, final MemorySegment addr, final int len, final String where)
            throws IOException {
        try {
            Syscalls.bind(fd, addr, len, "UDP " + where);
        } catch (final ErrnoException e) {
            if (e.errno() == Errno.EACCES || e.errno() == Errno.EPERM) {
                throw new UdpTransportException("UDP transport cannot bind " + where + ": " + e.getMessage()
                        + "; ports below 1024 need CAP_NET_BIND_SERVICE (or lower net.ipv4.ip_unprivileged_port_start)",
                        e);
            }
            if (e.errno() == Errno.EADDRNOTAVAIL) {
                throw new UdpTransportException("UDP transport cannot bind " + where + ": " + e.getMessage()
                        + "; the address is not configured on any local interface", e);
            }
            throw e;
        }
    }


    /**
     * Encodes a destination once for this socket's family (IPv4 becomes IPv4-mapped on a dual-stack socket).
     *
     * @throws UdpTransportException if the address cannot be used from this socket (IPv6 on an IPv4 socket)
     */
    public UdpDestination destination(final InetSocketAddress address) throws UdpTransportException {
        return destination(address, arena);
    }

    /**
     * As {@link #destination(InetSocketAddress)}, with the encoded address in {@code memory}, so a caller that makes
     * destinations at run time (roaming, handshakes to new peers) can let them be freed, e.g. with
     * {@link Arena#ofAuto()}. Thread-safe.
     *
     * @throws UdpTransportException if the address cannot be used from this socket (IPv6 on an IPv4 socket)
     */
    public UdpDestination destination(final InetSocketAddress address, final Arena memory)
            throws UdpTransportException {
        final MemorySegment sa = memory.allocate(SockAddrs.IN6_SIZE, 8);
        try {
            return new UdpDestination(sa, SockAddrs.encode(address, sa, ipv6), address);
        } catch (final SockAddrException e) {
            throw new UdpTransportException("UDP transport " + UdpAddresses.format(localAddress)
                    + " cannot send to " + address + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses and encodes a destination given as text ({@code ip:port}, {@code [v6]:port}, {@code host:port}).
     *
     * @throws UdpTransportException for unparsable or unresolvable text, or an unusable family
     */
    public UdpDestination destination(final String text) throws UdpTransportException {
        return destination(UdpAddresses.parse(text));
    }

    /**
     * Receives up to {@code batch.offered()} datagrams into the offered slots.
     *
     * @param timeoutMs how long to wait in poll when nothing is queued: 0 = do not wait, -1 = until data or
     *                  {@link #wakeup()}
     * @return datagrams delivered (also {@link ReceiveBatch#count()}); 0 on timeout or wakeup
     */
    public int receive(final ReceiveBatch batch, final int timeoutMs) {
        return receiver.receive(batch, timeoutMs);
    }

    /**
     * Sends a batch, as GSO trains where the shape allows and sendmmsg otherwise. Packets above the MTU are
     * refused and counted; back-pressure waits up to the configured send timeout, then drops and counts.
     *
     * @return datagrams the kernel accepted
     */
    public int send(final SendBatch batch) {
        if (vacant) {
            // A vacant adoption slot's placeholder would bind itself to an ephemeral port on its first send and
            // start receiving: nothing is sent from it (counted as send drops).
            counters.sendDrops += batch.count();
            return 0;
        }
        return sender.send(batch);
    }

    // ------------------------------------------------------------------ Transport

    @Override
    public String typeName() {
        return TransportTypes.UDP;
    }

    @Override
    public String instanceName() {
        return instanceName;
    }

    @Override
    public State state() {
        return closed || vacant ? State.DOWN : State.UP;
    }

    /** {@inheritDoc} UDP: the data plane's receive and send agents ({@link #receive}, {@link #send}). */
    @Override
    public Drive drive() {
        return Drive.DATA_PLANE_AGENTS;
    }

    /**
     * @param transport a transport whose {@link #drive()} is {@link Drive#DATA_PLANE_AGENTS}
     * @return it as the UDP socket the data plane's agents drive
     * @throws IllegalArgumentException when it runs its own loop instead
     */
    public static UdpTransport agentDriven(final Transport transport) {
        if (transport.drive() != Drive.DATA_PLANE_AGENTS) {
            throw new IllegalArgumentException(transport + " is not driven by the data plane's agents");
        }
        return (UdpTransport) transport;   // the only transport that answers DATA_PLANE_AGENTS
    }

    /** {@inheritDoc} A dual-stack (IPv6) socket reaches both families, an IPv4 one only IPv4. */
    @Override
    public boolean datagramReaches(final InetSocketAddress address) {
        return ipv6 || address.getAddress() instanceof Inet4Address;
    }

    /**
     * {@inheritDoc} The address is {@code ip:port}, {@code [v6]:port} or {@code host:port} text (a host name is
     * resolved here, on the caller's thread). Thread-safe; the encoded address is freed with the destination.
     */
    @Override
    public UdpDestination destination(final TransportAddr address) throws UdpTransportException {
        final String text = address.text();
        if (text == null) {
            throw new UdpTransportException("UDP address " + address + " is not text");
        }
        return destination(UdpAddresses.parse(text), Arena.ofAuto());
    }

    /** {@inheritDoc} The source bytes are a {@code sockaddr_in}/{@code sockaddr_in6}. */
    @Override
    public TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        try {
            return TransportAddr.ofInet(SockAddrs.decode(offset == 0 ? source : source.asSlice(offset), length));
        } catch (final SockAddrException e) {
            return null;
        }
    }

    @Override
    public boolean acceptConnections() {
        return acceptConnections;
    }

    @Override
    public OptionalLong kernelDrops() {
        return OptionalLong.of(counters.kernelDrops());
    }

    /** {@inheritDoc} UDP: {@code packets_sent, bytes_sent, packets_recv, bytes_recv, send_errors, recv_errors,
     * mtu_exceeded, kernel_drops}. */
    @Override
    public Map<String, Long> stats() {
        final UdpCounters c = counters;
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("packets_sent", c.packetsOut());
        m.put("bytes_sent", c.bytesOut());
        m.put("packets_recv", c.packetsIn());
        m.put("bytes_recv", c.bytesIn());
        m.put("send_errors", c.sendErrors());
        m.put("recv_errors", c.recvErrors());
        m.put("mtu_exceeded", c.mtuExceeded());
        m.put("kernel_drops", c.kernelDrops());
        return m;
    }

    @Override
    public TransportAddr localAddr() {
        return localAddr;
    }

    /** Wakes a receiver blocked in {@link #receive} (safe from any thread). */
    @Override
    public void wakeup() {
        wake.wake();
    }

    /** @return the bound address (the real port after a {@code :0} bind) */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** @return SO_RCVBUF as granted by the kernel (it doubles the request, clamped by net.core.rmem_max) */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /** @return SO_SNDBUF as granted by the kernel */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** @return whether the socket is AF_INET6 (dual-stack) */
    public boolean isIpv6() {
        return ipv6;
    }

    /** @return the largest packet {@link #send} accepts */
    @Override
    public int mtu() {
        return mtu;
    }

    /** @return whether GSO is still in use (false after the kernel refused it) */
    public boolean gsoActive() {
        return sender.gsoActive();
    }

    /** @return the errno that disabled GSO, or 0 */
    public int gsoDisabledErrno() {
        return sender.gsoDisabledErrno();
    }

    /** @return whether UDP_GRO is on */
    public boolean groActive() {
        return groActive;
    }

    /** @return why GRO is off, or {@code null} when on */
    public String groProblem() {
        return groProblem;
    }

    /** @return this transport's counters */
    public UdpCounters counters() {
        return counters;
    }

    /** @return the socket descriptor (for epoll registration or socket options) */
    public int fileDescriptor() {
        return fd;
    }

    /** Closes the socket and frees all native buffers. Idempotent. */
    @Override
    public void close() {
        if (!wake.closeOnce()) {
            return;
        }
        closed = true;
        Syscalls.closeQuietly(fd);
        arena.close();
    }

    @Override
    public String toString() {
        return "UdpTransport{" + UdpAddresses.format(localAddress) + ", gso=" + gsoActive() + ", gro=" + groActive
                + "}";
    }
}
