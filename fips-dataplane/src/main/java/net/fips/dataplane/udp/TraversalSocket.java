package net.fips.dataplane.udp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;

import net.fips.dataplane.transport.SocketWait;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The socket of one NAT-traversal attempt (discovery-gateway.md §2.1, §2.8): a fresh non-blocking IPv4 UDP socket,
 * bound without SO_REUSEADDR/SO_REUSEPORT (normally to {@code 0.0.0.0:0}), on which STUN and the punch run one
 * datagram at a time; after a successful punch {@link UdpTransport#adopt} takes its descriptor over, so the NAT
 * mapping the punch opened carries the link.
 *
 * <p>Control rate, not the packet path: {@link #receive} and {@link #send} allocate a little (addresses). One thread
 * receives at a time and closes it after its last receive; {@link #send} and {@link #wakeup()} are safe from any
 * thread.
 */
public final class TraversalSocket implements AutoCloseable {
    /** The largest datagram {@link #receive} reads whole. */
    public static final int MAX_DATAGRAM = 2048;

    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final WakeFd wake;
    private final InetSocketAddress localAddress;
    private final CallState cs;
    private final MmsgVector sendVec;
    private final MmsgVector recvVec;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBuf;
    private final MemorySegment dest;
    private final SocketWait wait;
    private boolean released;
    private boolean closed;

    private TraversalSocket(final int fd, final WakeFd wake, final InetSocketAddress local) {
        this.fd = fd;
        this.wake = wake;
        this.localAddress = local;
        this.cs = CallState.allocate(arena);
        this.sendVec = new MmsgVector(arena, 1, 1, 0);
        this.recvVec = new MmsgVector(arena, 1, 1, 0);
        this.sendBuf = arena.allocate(MAX_DATAGRAM, 8);
        this.recvBuf = arena.allocate(MAX_DATAGRAM, 8);
        this.dest = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
        this.wait = new SocketWait(arena, cs, wake.fd());
    }

    /**
     * Opens and binds a traversal socket.
     *
     * @param bind an IPv4 address, {@code 0.0.0.0:0} as the reference binds (tests bind loopback or a namespace's
     *             address)
     * @return the bound socket
     * @throws IOException naming the failing call (socket, bind, getsockname)
     */
    public static TraversalSocket open(final InetSocketAddress bind) throws IOException {
        if (!(bind.getAddress() instanceof Inet4Address)) {
            throw new UdpTransportException("NAT traversal binds IPv4 only, not " + bind);
        }
        final int fd = Syscalls.socket(Linux.AF_INET, Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                Linux.IPPROTO_UDP);
        WakeFd wake = null;
        try (Arena tmp = Arena.ofConfined()) {
            final MemorySegment addr = tmp.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int len = SockAddrs.encode(bind, addr, false);
            Syscalls.bind(fd, addr, len, "NAT traversal UDP " + UdpAddresses.format(bind));
            final int nameLen = Syscalls.getsockname(fd, addr);
            final InetSocketAddress local = SockAddrs.decode(addr, nameLen);
            wake = WakeFd.open();
            return new TraversalSocket(fd, wake, local);
        } catch (final SockAddrException e) {
            Syscalls.closeQuietly(fd);
            throw new UdpTransportException("NAT traversal socket " + bind + ": " + e.getMessage(), e);
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            if (wake != null) {
                wake.close();
            }
            throw e;
        }
    }

    /** @return the bound address (the kernel's port after a {@code :0} bind) */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /**
     * Sends one datagram. Errors are the caller's to ignore (the punch does, as the reference does).
     *
     * @param data   the bytes, at most {@link #MAX_DATAGRAM}
     * @param length how many of them
     * @param to     an IPv4 destination
     * @return bytes sent, or {@code -errno} (also for a closed socket: {@code -EBADF}; an IPv6 destination:
     *         {@code -EAFNOSUPPORT})
     */
    public synchronized int send(final byte[] data, final int length, final InetSocketAddress to) {
        if (released || closed) {
            return -Errno.EBADF;
        }
        if (length > MAX_DATAGRAM) {
            throw new IllegalArgumentException("datagram of " + length + " bytes above " + MAX_DATAGRAM);
        }
        final int nameLen;
        try {
            nameLen = SockAddrs.encode(to, dest, false);
        } catch (final SockAddrException e) {
            return -Errno.EAFNOSUPPORT;
        }
        MemorySegment.copy(data, 0, sendBuf, JAVA_BYTE, 0, length);
        sendVec.iov(0, 0, sendBuf, 0, length);
        sendVec.name(0, dest, nameLen);
        sendVec.controlLength(0, 0);
        final int rc = Syscalls.sendmmsg(cs, fd, sendVec.segment(), 1, 0);
        return rc == 1 ? sendVec.messageLength(0) : rc < 0 ? rc : -Errno.EAGAIN;
    }

    /**
     * Waits up to {@code timeoutMs} for one datagram.
     *
     * @param into      where the bytes go (at most its length; a longer datagram is cut)
     * @param timeoutMs the most to wait, 0 for none
     * @return the datagram's length and source, or null on timeout, wake-up, close or a receive error
     */
    public Received receive(final byte[] into, final int timeoutMs) {
        synchronized (this) {
            if (released || closed) {
                return null;
            }
        }
        recvVec.prepareReceive(0);
        recvVec.iov(0, 0, recvBuf, 0, MAX_DATAGRAM);
        int rc = Syscalls.recvmmsg(cs, fd, recvVec.segment(), 1, 0);
        if (rc == Errno.EAGAIN_NEGATIVE && timeoutMs > 0 && wait.readable(fd, timeoutMs)) {
            recvVec.prepareReceive(0);
            rc = Syscalls.recvmmsg(cs, fd, recvVec.segment(), 1, 0);
        }
        if (rc != 1) {
            return null;
        }
        final int len = Math.min(recvVec.messageLength(0), into.length);
        MemorySegment.copy(recvBuf, JAVA_BYTE, 0, into, 0, len);
        try {
            return new Received(len, SockAddrs.decode(recvVec.nameBuffer(0), recvVec.nameLength(0)));
        } catch (final SockAddrException e) {
            return null;
        }
    }

    /**
     * One datagram.
     *
     * @param length its length
     * @param from   its source
     */
    public record Received(int length, InetSocketAddress from) {
    }

    /** Ends a {@link #receive} waiting on another thread. */
    public void wakeup() {
        wake.wake();
    }

    /**
     * Hands the descriptor over: this object no longer sends, receives or closes it.
     *
     * @return the descriptor, which the caller now owns
     * @throws IllegalStateException when closed or released before
     */
    synchronized int release() {
        if (released || closed) {
            throw new IllegalStateException("traversal socket " + localAddress + " already " + (closed ? "closed"
                    : "adopted"));
        }
        released = true;
        wake.wake();
        return fd;
    }

    /** @return the descriptor (while neither released nor closed) */
    int fd() {
        return fd;
    }

    /** Closes the socket (unless {@link UdpTransport#adopt} took it) and frees the buffers. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (!released) {
                Syscalls.closeQuietly(fd);
            }
        }
        wake.close();
        arena.close();
    }

    /** @return whether {@link #close()} ran */
    public synchronized boolean isClosed() {
        return closed;
    }
}
