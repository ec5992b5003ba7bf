package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.gen.linux_h;

/**
 * {@code AF_UNIX} + {@code SOCK_SEQPACKET} sockets in the abstract namespace: the kernel stand-in for L2CAP CoC
 * sockets where there is no Bluetooth (transports.md §8.6): one send is one record, connection-oriented, the same
 * listen/accept4/connect/poll/send/recv calls, {@code recv} = 0 at end of stream.
 * <pre>{@code struct sockaddr_un { sa_family_t sun_family; char sun_path[108]; };   // abstract: sun_path[0] = 0}</pre>
 * ({@code sys/un.h} is not among the generated headers; the two fields are written here.)
 */
public final class UnixSeqPacket {
    /** {@code AF_UNIX} (1). */
    public static final int AF_UNIX = linux_h.AF_UNIX();
    private static final int SUN_PATH = 2;
    private static final int SUN_PATH_MAX = 108;

    private UnixSeqPacket() {
    }

    /** @return a non-blocking, close-on-exec AF_UNIX SOCK_SEQPACKET socket */
    public static int open() throws ErrnoException {
        return Syscalls.socket(AF_UNIX, L2cap.SOCK_SEQPACKET | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, 0);
    }

    /**
     * Writes an abstract {@code sockaddr_un} for {@code name}.
     *
     * @return the address length
     */
    public static int encode(final MemorySegment dst, final String name) {
        final byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length + 1 > SUN_PATH_MAX) {
            throw new IllegalArgumentException("abstract socket name too long: " + name);
        }
        dst.asSlice(0, SUN_PATH + SUN_PATH_MAX).fill((byte) 0);
        dst.set(JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(n, 0, dst, JAVA_BYTE, SUN_PATH + 1, n.length);
        return SUN_PATH + 1 + n.length;
    }

    /**
     * A listener bound to the abstract name {@code name}.
     *
     * @throws ErrnoException e.g. EADDRINUSE
     */
    public static int listen(final String name, final int backlog) throws ErrnoException {
        final int fd = open();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(SUN_PATH + SUN_PATH_MAX, 2);
            Syscalls.bind(fd, sa, encode(sa, name), "@" + name);
            Syscalls.listen(fd, backlog, "@" + name);
            return fd;
        } catch (final ErrnoException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    /**
     * Binds {@code fd} to the abstract name {@code name} (a client may, so its peer sees a name).
     *
     * @throws ErrnoException e.g. EADDRINUSE
     */
    public static void bind(final int fd, final String name) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(SUN_PATH + SUN_PATH_MAX, 2);
            Syscalls.bind(fd, sa, encode(sa, name), "@" + name);
        }
    }

    /**
     * @return the abstract name in a {@code sockaddr_un} of {@code length} bytes, or "" for an unnamed socket
     */
    public static String decodeAbstractName(final MemorySegment sa, final int length) {
        if (length <= SUN_PATH + 1 || sa.get(JAVA_BYTE, SUN_PATH) != 0) {
            return "";
        }
        final byte[] b = new byte[length - SUN_PATH - 1];
        MemorySegment.copy(sa, JAVA_BYTE, SUN_PATH + 1, b, 0, b.length);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** @return bytes of a {@code sockaddr_un} (110) */
    public static int sockaddrSize() {
        return SUN_PATH + SUN_PATH_MAX;
    }

    /**
     * Starts a connect to the abstract name {@code name} on the non-blocking socket {@code fd}.
     *
     * @return true when connected at once (the usual case for AF_UNIX)
     */
    public static boolean connect(final int fd, final String name) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(SUN_PATH + SUN_PATH_MAX, 2);
            final int len = encode(sa, name);
            try {
                return Syscalls.connect(fd, sa, len, "@" + name);
            } catch (final ErrnoException e) {
                if (e.errno() == Errno.EAGAIN) {
                    return false; // AF_UNIX's "backlog full, try again": poll for POLLOUT like EINPROGRESS
                }
                throw e;
            }
        }
    }

    /**
     * A connected pair made through a one-shot listener on a fresh abstract name (the same shape as
     * {@code socketpair(AF_UNIX, SOCK_SEQPACKET)}, through listen/connect/accept4).
     *
     * @return {connecting end, accepted end}, both non-blocking
     */
    public static int[] pair() throws ErrnoException {
        final String name = "fips-seqpacket-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final int listener = listen(name, 1);
        int client = -1;
        try (Arena arena = Arena.ofConfined()) {
            client = open();
            connect(client, name);
            final MemorySegment addr = arena.allocate(SUN_PATH + SUN_PATH_MAX, 2);
            final MemorySegment len = arena.allocate(JAVA_INT);
            final CallState cs = CallState.forCurrentThread();
            final PollFds pfd = new PollFds(arena, 1);
            pfd.set(0, listener, Linux.POLLIN);
            final int ready = pfd.poll(cs, 5_000);
            if (ready <= 0) {
                throw Errno.exception("poll", ready < 0 ? -ready : Errno.ETIMEDOUT, "@" + name);
            }
            final int accepted = Syscalls.accept4(cs, listener, addr, len, Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
            if (accepted < 0) {
                throw Errno.exception("accept4", -accepted, "@" + name);
            }
            return new int[] {client, accepted};
        } catch (final ErrnoException | RuntimeException e) {
            Syscalls.closeQuietly(client);
            throw e;
        } finally {
            Syscalls.closeQuietly(listener);
        }
    }
}
