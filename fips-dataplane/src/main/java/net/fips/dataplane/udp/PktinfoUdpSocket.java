package net.fips.dataplane.udp;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Cmsg;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;

/**
 * An IPv6 UDP socket that reports each datagram's arrival interface, opened as the reference opens the
 * responder's socket: {@code IPV6_V6ONLY=0} and {@code IPV6_RECVPKTINFO=1}. Used by one thread; receive waits in
 * {@code poll}, which {@link #close()} from another thread ends at once by shutting the socket down (and, should
 * a kernel not wake it, within one {@value #POLL_SLICE_MS} ms slice). An idle responder wakes once a slice.
 */
public final class PktinfoUdpSocket implements AutoCloseable {
    /** Largest datagram {@link #send} accepts (a UDP payload over IPv6). */
    public static final int MAX_SEND = 65_507;
    /** {@link Datagram#arrivalIfIndex()} when the kernel did not report the arrival interface. */
    public static final int UNKNOWN_IFINDEX = -1;

    /**
     * One datagram as received.
     *
     * @param length         bytes received (cut at the buffer's size)
     * @param source         the sender
     * @param arrivalIfIndex the interface it arrived on, -1 when the kernel did not say
     */
    public record Datagram(int length, InetSocketAddress source, int arrivalIfIndex) {
    }

    /** The wait of one poll: only a fallback bound on close's latency (close wakes the poll), so long. */
    private static final int POLL_SLICE_MS = 2_000;
    private static final long IN6_PKTINFO_IFINDEX = 16;

    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final InetSocketAddress local;
    private final MmsgVector rx;
    private final MmsgVector tx;
    private final MemorySegment rxBuf;
    private final MemorySegment txBuf;
    private final MemorySegment txName;
    private final PollFds pollFds;
    private final CallState cs;
    private volatile boolean closed;
    private final AtomicBoolean shutDown = new AtomicBoolean();

    private PktinfoUdpSocket(final int fd, final InetSocketAddress local, final int bufferBytes) {
        this.fd = fd;
        this.local = local;
        this.rx = new MmsgVector(arena, 1, 1, (int) Cmsg.space(20) * 2);
        this.tx = new MmsgVector(arena, 1, 1, 0);
        this.rxBuf = arena.allocate(bufferBytes, 8);
        this.txBuf = arena.allocate(MAX_SEND, 8);
        this.txName = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
        this.pollFds = new PollFds(arena, 1);
        this.cs = CallState.allocate(arena);
    }

    /** @return whether this kernel interface can be used (FFM bindings loaded) */
    public static boolean available() {
        return Syscalls.isAvailable();
    }

    /**
     * @param bind        an IPv6 address (or IPv4, written IPv4-mapped) and port
     * @param bufferBytes the receive buffer; longer datagrams are cut to it
     * @return the bound socket
     * @throws IOException when it cannot be opened or bound
     */
    public static PktinfoUdpSocket open(final InetSocketAddress bind, final int bufferBytes) throws IOException {
        final int fd;
        try {
            fd = Syscalls.socket(Linux.AF_INET6, Linux.SOCK_DGRAM | Linux.SOCK_CLOEXEC, Linux.IPPROTO_UDP);
        } catch (final ErrnoException e) {
            throw new IOException("DNS socket: " + e.getMessage(), e);
        }
        try (Arena a = Arena.ofConfined()) {
            Syscalls.setsockoptInt(fd, Linux.IPPROTO_IPV6, Linux.IPV6_V6ONLY, 0, "IPV6_V6ONLY=0 for DNS " + bind);
            Syscalls.setsockoptInt(fd, Linux.IPPROTO_IPV6, Linux.IPV6_RECVPKTINFO, 1,
                    "IPV6_RECVPKTINFO for DNS " + bind);
            Syscalls.setNonBlocking(fd);
            final MemorySegment addr = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int len = SockAddrs.encode(bind, addr, true);
            Syscalls.bind(fd, addr, len, "DNS " + bind);
            final int nameLen = Syscalls.getsockname(fd, addr);
            return new PktinfoUdpSocket(fd, SockAddrs.decode(addr, nameLen), bufferBytes);
        } catch (final ErrnoException | SockAddrException | RuntimeException e) {
            try {
                Syscalls.close(fd);
            } catch (final ErrnoException ignored) {
                // already failing
            }
            throw new IOException("DNS socket " + bind + ": " + e.getMessage(), e);
        }
    }

    /** @return the bound address */
    public InetSocketAddress localAddress() {
        return local;
    }

    /**
     * Waits for one datagram and copies it into {@code into}.
     *
     * @param into where the bytes go (at least the buffer size)
     * @return the datagram, or null once closed
     */
    public Datagram receive(final byte[] into) {
        while (!closed) {
            rx.iov(0, 0, rxBuf, 0, rxBuf.byteSize());
            rx.iovCount(0, 1);
            rx.prepareReceive(0);
            final int rc = Syscalls.recvmmsg(cs, fd, rx.segment(), 1, 0);
            if (rc == Errno.EAGAIN_NEGATIVE) {
                pollFds.set(0, fd, Linux.POLLIN);
                pollFds.poll(cs, POLL_SLICE_MS);
                continue;
            }
            if (rc <= 0) {
                if (closed) {
                    return null;
                }
                continue; // EINTR, or an ICMP error report for an earlier reply
            }
            final int len = Math.min(rx.messageLength(0), into.length);
            MemorySegment.copy(rxBuf, ValueLayout.JAVA_BYTE, 0, into, 0, len);
            final InetSocketAddress src;
            try {
                src = SockAddrs.decode(rx.nameBuffer(0), rx.nameLength(0));
            } catch (final SockAddrException e) {
                continue;
            }
            int ifindex = UNKNOWN_IFINDEX;
            final MemorySegment control = rx.controlBuffer(0);
            final long h = Cmsg.find(control, rx.controlLengthReceived(0), Linux.IPPROTO_IPV6, Linux.IPV6_PKTINFO);
            if (h != Cmsg.NONE) {
                ifindex = control.get(JAVA_INT_UNALIGNED, Cmsg.data(h) + IN6_PKTINFO_IFINDEX);
            }
            return new Datagram(len, src, ifindex);
        }
        return null;
    }

    /**
     * Sends one datagram.
     *
     * @return whether the kernel took it
     */
    public boolean send(final byte[] data, final InetSocketAddress to) {
        if (closed || data.length > txBuf.byteSize()) {
            return false;
        }
        final int nameLen;
        try {
            nameLen = SockAddrs.encode(to, txName, true);
        } catch (final SockAddrException e) {
            return false;
        }
        MemorySegment.copy(data, 0, txBuf, ValueLayout.JAVA_BYTE, 0, data.length);
        tx.iov(0, 0, txBuf, 0, data.length);
        tx.iovCount(0, 1);
        tx.name(0, txName, nameLen);
        tx.controlLength(0, 0);
        return Syscalls.sendmmsg(cs, fd, tx.segment(), 1, 0) == 1;
    }

    /**
     * Marks closed and wakes the receiving thread (shutdown), which leaves its loop and then calls
     * {@link #release()}; the descriptor stays open until then.
     */
    @Override
    public void close() {
        // Shut down first, then mark closed: the receiving thread releases (closes) the descriptor only after it
        // saw closed, so the shutdown can never hit a descriptor number the process has reused meanwhile. Until it
        // sees closed, a receive on the shut-down socket returns at once and the loop retries.
        if (shutDown.compareAndSet(false, true)) {
            Syscalls.shutdownBoth(fd);
        }
        closed = true;
    }

    /** Frees the descriptor and memory; only after the receiving thread has stopped. */
    public void release() {
        shutDown.set(true);
        closed = true;
        try {
            Syscalls.close(fd);
        } catch (final ErrnoException e) {
            // nothing more to do
        }
        arena.close();
    }
}
