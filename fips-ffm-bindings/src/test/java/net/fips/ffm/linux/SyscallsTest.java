package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;

/** The errno wrappers report real kernel errors, and the raw hot-path calls move real datagrams. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SyscallsTest {

    private static int udpSocket() throws ErrnoException {
        return Syscalls.socket(Linux.AF_INET, Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                Linux.IPPROTO_UDP);
    }

    private static int bindLoopback(final MemorySegment addr) throws Exception {
        final int fd = udpSocket();
        final int len = SockAddrs.encode(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), addr, false);
        Syscalls.bind(fd, addr, len, "127.0.0.1:0");
        Syscalls.getsockname(fd, addr);
        return fd;
    }

    @Test
    void handlesAreAvailable() {
        assertTrue(Syscalls.isAvailable(), () -> String.valueOf(Syscalls.unavailabilityCause()));
    }

    /** The mapping is in /proc/self/maps exactly while its arena is open; it starts zero-filled and is writable. */
    @Test
    void mapAnonymousGivesZeroedPagesUnmappedWithTheArena() throws Exception {
        final long bytes = 3 * 4096 + 100;
        final long start;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = Syscalls.mapAnonymous(bytes, arena);
            start = m.address();
            assertEquals(bytes, m.byteSize());
            assertEquals(0, start % 4096);
            for (long i = 0; i < bytes; i += 512) {
                assertEquals(0, m.get(JAVA_BYTE, i));
            }
            m.set(JAVA_LONG, bytes - 12, 0x0123456789abcdefL);
            assertEquals(0x0123456789abcdefL, m.get(JAVA_LONG, bytes - 12));
            assertTrue(mappedAt(start), "mapping at 0x" + Long.toHexString(start) + " not in /proc/self/maps");
        }
        assertFalse(mappedAt(start), "mapping at 0x" + Long.toHexString(start) + " still there after close");
    }

    /** A size beyond the address space: mmap returns MAP_FAILED and the wrapper reports its errno. */
    @Test
    void mapAnonymousReportsMapFailed() {
        try (Arena arena = Arena.ofConfined()) {
            final ErrnoException e = assertThrows(ErrnoException.class, () -> Syscalls.mapAnonymous(1L << 62, arena));
            assertEquals(Errno.ENOMEM, e.errno());
            assertEquals("mmap", e.syscall());
        }
    }

    /** Whether some mapping of this process covers the page at {@code address} (the kernel may merge neighbours). */
    private static boolean mappedAt(final long address) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.anyMatch(l -> {
                final int dash = l.indexOf('-');
                final long lo = Long.parseUnsignedLong(l.substring(0, dash), 16);
                final long hi = Long.parseUnsignedLong(l.substring(dash + 1, l.indexOf(' ')), 16);
                return Long.compareUnsigned(lo, address) <= 0 && Long.compareUnsigned(address, hi) < 0;
            });
        }
    }

    @Test
    void bindToPortInUseNamesAddressAndReason() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment addr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int first = bindLoopback(addr);
            final int port = SockAddrs.port(addr);
            final int second = udpSocket();
            try {
                final String where = "127.0.0.1:" + port;
                final ErrnoException e = assertThrows(ErrnoException.class,
                        () -> Syscalls.bind(second, addr, SockAddrs.IN_SIZE, where));
                assertEquals(Errno.EADDRINUSE, e.errno());
                assertEquals("bind", e.syscall());
                assertTrue(e.getMessage().contains(where), e.getMessage());
                assertTrue(e.getMessage().contains(Errno.strerror(Errno.EADDRINUSE)), e.getMessage());
                assertTrue(e.getMessage().contains("in use"), e.getMessage());
            } finally {
                Syscalls.close(first);
                Syscalls.close(second);
            }
        }
    }

    @Test
    void closeOfInvalidDescriptorIsEbadf() {
        final ErrnoException e = assertThrows(ErrnoException.class, () -> Syscalls.close(-1));
        assertEquals(Errno.EBADF, e.errno());
        assertTrue(e.getMessage().startsWith("close fd -1 failed: "), e.getMessage());
    }

    @Test
    void unknownInterfaceIsReported() throws Exception {
        final ErrnoException e = assertThrows(ErrnoException.class,
                () -> Syscalls.ifNameToIndex("nosuchif0"));
        assertTrue(e.getMessage().contains("nosuchif0"), e.getMessage());
        assertEquals(1, Syscalls.ifNameToIndex("lo"), "loopback is interface 1 in every namespace");
    }

    @Test
    void hotPathReturnsNegativeErrno() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final MemorySegment addr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int fd = bindLoopback(addr);
            try {
                final MmsgVector v = new MmsgVector(arena, 4, 1, 0);
                final MemorySegment buf = arena.allocate(256);
                for (int i = 0; i < 4; i++) {
                    v.prepareReceive(i);
                    v.iov(i, 0, buf, 64L * i, 64);
                }
                assertEquals(-Errno.EAGAIN, Syscalls.recvmmsg(cs, fd, v.segment(), 4, 0));
                assertEquals(Errno.EAGAIN, cs.errno());
                assertEquals(-Errno.EBADF, Syscalls.recvmmsg(cs, -1, v.segment(), 4, 0));
            } finally {
                Syscalls.close(fd);
            }
        }
    }

    @Test
    void sendmmsgAndRecvmmsgMoveDatagramsWithSourceAddresses() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final MemorySegment rxAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final MemorySegment txAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int rx = bindLoopback(rxAddr);
            final int tx = bindLoopback(txAddr);
            try {
                final int n = 8;
                final MemorySegment out = arena.allocate(100L * n);
                final MmsgVector send = new MmsgVector(arena, n, 1, 0);
                for (int i = 0; i < n; i++) {
                    out.asSlice(100L * i, 10 + i).fill((byte) (i + 1));
                    send.iov(i, 0, out, 100L * i, 10 + i);
                    send.name(i, rxAddr, SockAddrs.IN_SIZE);
                    send.controlLength(i, 0);
                }
                assertEquals(n, Syscalls.sendmmsg(cs, tx, send.segment(), n, 0));

                final MemorySegment in = arena.allocate(100L * n);
                final MmsgVector recv = new MmsgVector(arena, n, 1, (int) Cmsg.space(4));
                for (int i = 0; i < n; i++) {
                    recv.prepareReceive(i);
                    recv.iov(i, 0, in, 100L * i, 100);
                }
                final PollFds pfd = new PollFds(arena, 1);
                int got = 0;
                while (got < n) {
                    pfd.set(0, rx, Linux.POLLIN);
                    assertTrue(pfd.poll(cs, 5000) > 0, "datagrams did not arrive");
                    final int rc = Syscalls.recvmmsg(cs, rx, recv.segment().asSlice(got * MmsgVector.MMSGHDR_SIZE),
                            n - got, 0);
                    assertTrue(rc > 0, "recvmmsg " + rc);
                    got += rc;
                }
                final int txPort = SockAddrs.port(txAddr);
                for (int i = 0; i < n; i++) {
                    assertEquals(10 + i, recv.messageLength(i));
                    assertEquals(0, recv.flags(i) & Linux.MSG_TRUNC);
                    for (int b = 0; b < 10 + i; b++) {
                        assertEquals((byte) (i + 1), in.get(ValueLayout.JAVA_BYTE, 100L * i + b));
                    }
                    final InetSocketAddress src = SockAddrs.decode(recv.nameBuffer(i), recv.nameLength(i));
                    assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), txPort), src);
                }
            } finally {
                Syscalls.close(rx);
                Syscalls.close(tx);
            }
        }
    }

    @Test
    void intSocketOptionsRoundTrip() throws Exception {
        final int fd = udpSocket();
        try {
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_REUSEPORT, 1, "SO_REUSEPORT");
            assertEquals(1, Syscalls.getsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_REUSEPORT, "SO_REUSEPORT"));
            final ErrnoException e = assertThrows(ErrnoException.class,
                    () -> Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, 9999, 1, "option 9999 on a UDP socket"));
            assertEquals(Errno.ENOPROTOOPT, e.errno());
            assertTrue(e.getMessage().contains("option 9999 on a UDP socket"), e.getMessage());
        } finally {
            Syscalls.close(fd);
        }
    }

    @Test
    void nonBlockingAndEventfd() throws Exception {
        final int efd = Syscalls.eventfd(0, Linux.EFD_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.setNonBlocking(efd);
            final CallState cs = CallState.allocate(arena);
            final MemorySegment eight = arena.allocate(8, 8);
            assertEquals(-Errno.EAGAIN, Syscalls.read(cs, efd, eight, 8));
            eight.set(ValueLayout.JAVA_LONG, 0, 5);
            assertEquals(8, Syscalls.write(cs, efd, eight, 8));
            final int ep = Syscalls.epollCreate1(Linux.EPOLL_CLOEXEC);
            try {
                Syscalls.epollCtl(ep, Linux.EPOLL_CTL_ADD, efd, Linux.EPOLLIN, 0x1122334455667788L);
                final MemorySegment events = arena.allocate(EpollEvents.SIZE * 4, 8);
                assertEquals(1, Syscalls.epollWait(cs, ep, events, 4, 1000));
                assertEquals(0x1122334455667788L, EpollEvents.data(events, 0));
                assertTrue((EpollEvents.events(events, 0) & Linux.EPOLLIN) != 0);
            } finally {
                Syscalls.close(ep);
            }
        } finally {
            Syscalls.close(efd);
        }
    }
}
