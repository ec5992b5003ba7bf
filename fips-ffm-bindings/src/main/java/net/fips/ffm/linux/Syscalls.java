package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Supplier;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.gen.linux_h;

/**
 * errno-capturing downcalls for the libc system calls the node uses.
 *
 * <p>Two conventions. Hot-path calls ({@link #recvmmsg}, {@link #sendmmsg}, {@link #sendmsg}, {@link #recvmsg},
 * {@link #poll}, {@link #read}, {@link #write}, {@link #readv}, {@link #writev}, {@link #epollWait}) take the
 * caller's {@link CallState} and return
 * the result, or {@code -errno} on failure; they never allocate or throw for kernel errors. Control-path calls
 * ({@link #socket}, {@link #bind}, {@link #setsockoptInt}, ...) throw {@link ErrnoException} naming the call, what
 * it acted on and the kernel's reason.
 *
 * <p>Handles are built from the generated addresses and descriptors plus {@code captureCallState("errno")}: the
 * generated handles do not capture errno, and reading errno afterwards is unreliable because the JVM may run
 * code in between. If they cannot be built (native access denied), nothing throws at class initialisation:
 * every call then throws {@link IllegalStateException} carrying {@link #unavailabilityCause()}.
 */
public final class Syscalls {
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static Throwable firstFailure;

    private static final MethodHandle SOCKET = errnoHandle(linux_h::socket$address, linux_h::socket$descriptor);
    // glibc declares the sockaddr parameters of these as transparent unions under _GNU_SOURCE; jextract turns
    // them into by-value unions, so the descriptors here say what the ABI passes: a plain pointer.
    private static final MethodHandle BIND = errnoHandle(linux_h::bind$address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CONNECT = errnoHandle(linux_h::connect$address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = errnoHandle(linux_h::listen$address, linux_h::listen$descriptor);
    private static final MethodHandle ACCEPT4 = errnoHandle(linux_h::accept4$address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle SEND = errnoHandle(linux_h::send$address, linux_h::send$descriptor);
    private static final MethodHandle GETSOCKNAME = errnoHandle(linux_h::getsockname$address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SETSOCKOPT =
            errnoHandle(linux_h::setsockopt$address, linux_h::setsockopt$descriptor);
    private static final MethodHandle GETSOCKOPT =
            errnoHandle(linux_h::getsockopt$address, linux_h::getsockopt$descriptor);
    private static final MethodHandle CLOSE = errnoHandle(linux_h::close$address, linux_h::close$descriptor);
    private static final MethodHandle READ = errnoHandle(linux_h::read$address, linux_h::read$descriptor);
    private static final MethodHandle WRITE = errnoHandle(linux_h::write$address, linux_h::write$descriptor);
    private static final MethodHandle READV = errnoHandle(linux_h::readv$address, linux_h::readv$descriptor);
    private static final MethodHandle WRITEV = errnoHandle(linux_h::writev$address, linux_h::writev$descriptor);
    private static final MethodHandle RECVMMSG =
            errnoHandle(linux_h::recvmmsg$address, linux_h::recvmmsg$descriptor);
    private static final MethodHandle SENDMMSG =
            errnoHandle(linux_h::sendmmsg$address, linux_h::sendmmsg$descriptor);
    private static final MethodHandle SENDMSG = errnoHandle(linux_h::sendmsg$address, linux_h::sendmsg$descriptor);
    private static final MethodHandle RECVMSG = errnoHandle(linux_h::recvmsg$address, linux_h::recvmsg$descriptor);
    private static final MethodHandle POLL = errnoHandle(linux_h::poll$address, linux_h::poll$descriptor);
    private static final MethodHandle EVENTFD = errnoHandle(linux_h::eventfd$address, linux_h::eventfd$descriptor);
    private static final MethodHandle EPOLL_CREATE1 =
            errnoHandle(linux_h::epoll_create1$address, linux_h::epoll_create1$descriptor);
    private static final MethodHandle EPOLL_CTL =
            errnoHandle(linux_h::epoll_ctl$address, linux_h::epoll_ctl$descriptor);
    private static final MethodHandle EPOLL_WAIT =
            errnoHandle(linux_h::epoll_wait$address, linux_h::epoll_wait$descriptor);
    private static final MethodHandle IF_NAMETOINDEX =
            errnoHandle(linux_h::if_nametoindex$address, linux_h::if_nametoindex$descriptor);
    // Variadic: the fixed part ends after the second argument (pass the ioctl request as unsigned long).
    private static final MethodHandle FCNTL = errnoHandle(linux_h.fcntl::address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle IOCTL = errnoHandle(linux_h.ioctl::address,
            () -> FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle OPEN = errnoHandle(linux_h.open::address,
            () -> FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));

    private static final MethodHandle SHUTDOWN =
            errnoHandle(linux_h::shutdown$address, linux_h::shutdown$descriptor);

    // Connection-oriented SOCK_SEQPACKET sockets (L2CAP CoC, and AF_UNIX as its test stand-in).
    private static final MethodHandle RECV = errnoHandle(linux_h::recv$address, linux_h::recv$descriptor);

    // Anonymous memory for the packet pool, whose pages should only become resident when first touched.
    private static final MethodHandle MMAP = errnoHandle(linux_h::mmap$address, linux_h::mmap$descriptor);
    private static final MethodHandle MUNMAP = errnoHandle(linux_h::munmap$address, linux_h::munmap$descriptor);
    private static final MethodHandle MADVISE = errnoHandle(linux_h::madvise$address, linux_h::madvise$descriptor);

    // dup3 puts a punched NAT-traversal socket in the place of a reserved descriptor (§2.6, ADR 0046).
    private static final MethodHandle DUP3 = errnoHandle(linux_h::dup3$address, linux_h::dup3$descriptor);

    private static final Throwable UNAVAILABLE = firstFailure;

    private Syscalls() {
    }

    private static MethodHandle errnoHandle(final Supplier<MemorySegment> address,
                                            final Supplier<FunctionDescriptor> descriptor,
                                            final Linker.Option... extra) {
        FunctionDescriptor fd = null;
        try {
            fd = descriptor.get();
            final Linker.Option[] options = new Linker.Option[extra.length + 1];
            options[0] = ERRNO;
            System.arraycopy(extra, 0, options, 1, extra.length);
            return Linker.nativeLinker().downcallHandle(address.get(), fd, options);
        } catch (final Throwable t) {
            if (firstFailure == null) {
                firstFailure = t;
            }
            return failingHandle(fd, t);
        }
    }

    /** A handle of the capturing shape that throws, so the static finals stay constants for the JIT. */
    private static MethodHandle failingHandle(final FunctionDescriptor fd, final Throwable cause) {
        final IllegalStateException ex = new IllegalStateException(
                "native access unavailable (run with --enable-native-access=net.fips.ffm, or ALL-UNNAMED on the "
                        + "class path): " + cause, cause);
        final MethodType type;
        if (fd == null) {
            type = MethodType.methodType(int.class, MemorySegment.class);
        } else {
            type = fd.toMethodType().insertParameterTypes(0, MemorySegment.class);
        }
        final MethodHandle thrower = MethodHandles.insertArguments(
                MethodHandles.throwException(type.returnType(), IllegalStateException.class), 0, ex);
        return MethodHandles.dropArguments(thrower, 0, type.parameterList());
    }

    /** @return whether every handle was built */
    public static boolean isAvailable() {
        return UNAVAILABLE == null;
    }

    /** @return why the handles could not be built, or {@code null} when they were */
    public static Throwable unavailabilityCause() {
        return UNAVAILABLE;
    }

    private static RuntimeException rethrow(final Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    // ---------------------------------------------------------------- hot path: result or -errno

    /**
     * {@code recvmmsg(fd, msgvec, vlen, flags, NULL)}.
     *
     * @return messages received, or {@code -errno}
     */
    public static int recvmmsg(final CallState cs, final int fd, final MemorySegment msgvec, final int vlen,
                               final int flags) {
        try {
            final int rc = (int) RECVMMSG.invokeExact(cs.segment, fd, msgvec, vlen, flags, MemorySegment.NULL);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code sendmmsg(fd, msgvec, vlen, flags)}.
     *
     * @return messages sent, or {@code -errno}
     */
    public static int sendmmsg(final CallState cs, final int fd, final MemorySegment msgvec, final int vlen,
                               final int flags) {
        try {
            final int rc = (int) SENDMMSG.invokeExact(cs.segment, fd, msgvec, vlen, flags);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code sendmsg(fd, msghdr, flags)}; UDP datagrams (even GSO trains) stay far below 2^31 bytes.
     *
     * @return bytes sent, or {@code -errno}
     */
    public static int sendmsg(final CallState cs, final int fd, final MemorySegment msghdr, final int flags) {
        try {
            final long rc = (long) SENDMSG.invokeExact(cs.segment, fd, msghdr, flags);
            return rc >= 0 ? (int) rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code recvmsg(fd, msghdr, flags)}.
     *
     * @return bytes received, or {@code -errno}
     */
    public static int recvmsg(final CallState cs, final int fd, final MemorySegment msghdr, final int flags) {
        try {
            final long rc = (long) RECVMSG.invokeExact(cs.segment, fd, msghdr, flags);
            return rc >= 0 ? (int) rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code poll(fds, nfds, timeoutMs)}; blocks in the kernel, so never call it from a virtual thread.
     *
     * @return ready descriptors (0 on timeout), or {@code -errno}
     */
    public static int poll(final CallState cs, final MemorySegment fds, final int nfds, final int timeoutMs) {
        try {
            final int rc = (int) POLL.invokeExact(cs.segment, fds, (long) nfds, timeoutMs);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code read(fd, buf, count)}.
     *
     * @return bytes read, or {@code -errno}
     */
    public static long read(final CallState cs, final int fd, final MemorySegment buf, final long count) {
        try {
            final long rc = (long) READ.invokeExact(cs.segment, fd, buf, count);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code write(fd, buf, count)}.
     *
     * @return bytes written, or {@code -errno}
     */
    public static long write(final CallState cs, final int fd, final MemorySegment buf, final long count) {
        try {
            final long rc = (long) WRITE.invokeExact(cs.segment, fd, buf, count);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code readv(fd, iov, iovcnt)}: with one {@link IoVec}, a read into any offset of a pool without a slice.
     *
     * @return bytes read, or {@code -errno}
     */
    public static long readv(final CallState cs, final int fd, final MemorySegment iov, final int iovcnt) {
        try {
            final long rc = (long) READV.invokeExact(cs.segment, fd, iov, iovcnt);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code writev(fd, iov, iovcnt)}.
     *
     * @return bytes written, or {@code -errno}
     */
    public static long writev(final CallState cs, final int fd, final MemorySegment iov, final int iovcnt) {
        try {
            final long rc = (long) WRITEV.invokeExact(cs.segment, fd, iov, iovcnt);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code epoll_wait(epfd, events, maxEvents, timeoutMs)}; events are packed 12-byte {@code epoll_event}s.
     *
     * @return ready events, or {@code -errno}
     */
    public static int epollWait(final CallState cs, final int epfd, final MemorySegment events, final int maxEvents,
                                final int timeoutMs) {
        try {
            final int rc = (int) EPOLL_WAIT.invokeExact(cs.segment, epfd, events, maxEvents, timeoutMs);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code send(fd, buf, count, flags)} (e.g. {@link Linux#MSG_NOSIGNAL} on a stream).
     *
     * @return bytes sent, or {@code -errno}
     */
    public static long send(final CallState cs, final int fd, final MemorySegment buf, final long count,
                            final int flags) {
        try {
            final long rc = (long) SEND.invokeExact(cs.segment, fd, buf, count, flags);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- control path: throw ErrnoException

    /**
     * {@code listen(fd, backlog)}.
     *
     * @throws ErrnoException naming {@code what}
     */
    public static void listen(final int fd, final int backlog, final String what) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) LISTEN.invokeExact(cs.segment, fd, backlog);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("listen", cs, what);
        }
    }

    private static ErrnoException fail(final String call, final CallState cs, final String detail) {
        return Errno.exception(call, cs.errno(), detail);
    }

    /**
     * @return the new descriptor
     * @throws ErrnoException naming the domain/type/protocol triple
     */
    public static int socket(final int domain, final int type, final int protocol) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int fd;
        try {
            fd = (int) SOCKET.invokeExact(cs.segment, domain, type, protocol);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (fd < 0) {
            throw fail("socket", cs, "(domain " + domain + ", type " + type + ", protocol " + protocol + ")");
        }
        return fd;
    }

    /**
     * @param what the address in text form, for the error message
     * @throws ErrnoException e.g. EADDRINUSE, naming {@code what}
     */
    public static void bind(final int fd, final MemorySegment addr, final int addrLen, final String what)
            throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) BIND.invokeExact(cs.segment, fd, addr, addrLen);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("bind", cs, what);
        }
    }

    /**
     * Connects; for a non-blocking stream socket EINPROGRESS is returned as {@code false} rather than thrown.
     *
     * @return {@code true} when connected at once
     * @throws ErrnoException naming {@code what}
     */
    public static boolean connect(final int fd, final MemorySegment addr, final int addrLen, final String what)
            throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) CONNECT.invokeExact(cs.segment, fd, addr, addrLen);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            if (cs.errno() == Errno.EINPROGRESS) {
                return false;
            }
            throw fail("connect", cs, what);
        }
        return true;
    }

    /**
     * Reads the bound address into {@code addr} (at least 128 bytes, a {@code sockaddr_storage}).
     *
     * @return the address length the kernel wrote
     * @throws ErrnoException naming the descriptor
     */
    public static int getsockname(final int fd, final MemorySegment addr) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, (int) Math.min(addr.byteSize(), Integer.MAX_VALUE));
            final int rc = (int) GETSOCKNAME.invokeExact(cs.segment, fd, addr, len);
            if (rc < 0) {
                throw fail("getsockname", cs, "fd " + fd);
            }
            return len.get(JAVA_INT, 0);
        } catch (final ErrnoException e) {
            throw e;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code setsockopt} with an {@code int} value.
     *
     * @param what option name and target for the error message, e.g. {@code "SO_RCVBUF=2097152 on [::]:2121"}
     * @throws ErrnoException naming {@code what}
     */
    public static void setsockoptInt(final int fd, final int level, final int name, final int value,
                                     final String what) throws ErrnoException {
        final int rc = setsockoptIntRaw(fd, level, name, value);
        if (rc < 0) {
            throw Errno.exception("setsockopt", -rc, what);
        }
    }

    /**
     * {@code setsockopt} with an {@code int} value, for options whose failure is acceptable (probes).
     *
     * @return 0, or {@code -errno}
     */
    public static int setsockoptIntRaw(final int fd, final int level, final int name, final int value) {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(JAVA_INT);
            v.set(JAVA_INT, 0, value);
            final int rc = (int) SETSOCKOPT.invokeExact(cs.segment, fd, level, name, v, (int) JAVA_INT.byteSize());
            return rc < 0 ? -cs.errno() : 0;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code setsockopt} with an arbitrary value (a struct).
     *
     * @throws ErrnoException naming {@code what}
     */
    public static void setsockopt(final int fd, final int level, final int name, final MemorySegment value,
                                  final String what) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) SETSOCKOPT.invokeExact(cs.segment, fd, level, name, value, (int) value.byteSize());
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("setsockopt", cs, what);
        }
    }

    /**
     * {@code getsockopt} of an {@code int} option.
     *
     * @throws ErrnoException naming {@code what}
     */
    public static int getsockoptInt(final int fd, final int level, final int name, final String what)
            throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(JAVA_INT);
            final MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, (int) JAVA_INT.byteSize());
            final int rc = (int) GETSOCKOPT.invokeExact(cs.segment, fd, level, name, v, len);
            if (rc < 0) {
                throw fail("getsockopt", cs, what);
            }
            return v.get(JAVA_INT, 0);
        } catch (final ErrnoException e) {
            throw e;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code fcntl(fd, cmd, arg)}.
     *
     * @return the call's result
     * @throws ErrnoException naming the descriptor and command
     */
    public static int fcntl(final int fd, final int cmd, final int arg) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) FCNTL.invokeExact(cs.segment, fd, cmd, arg);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("fcntl", cs, "fd " + fd + " cmd " + cmd);
        }
        return rc;
    }

    /**
     * Sets {@code O_NONBLOCK} on a descriptor (keeping its other status flags).
     *
     * @throws ErrnoException if either fcntl fails
     */
    public static void setNonBlocking(final int fd) throws ErrnoException {
        final int flags = fcntl(fd, linux_h.F_GETFL(), 0);
        fcntl(fd, linux_h.F_SETFL(), flags | linux_h.O_NONBLOCK());
    }

    /**
     * {@code ioctl(fd, request, arg)}; the request is passed as {@code unsigned long} as the ABI wants.
     *
     * @param what what the request acted on (an interface name), for the error message
     * @return the call's result
     * @throws ErrnoException naming {@code what}
     */
    public static int ioctl(final int fd, final long request, final MemorySegment arg, final String what)
            throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) IOCTL.invokeExact(cs.segment, fd, request, arg);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("ioctl", cs, "0x" + Long.toHexString(request) + (what == null ? "" : " " + what));
        }
        return rc;
    }

    /**
     * {@code open(path, flags, 0)}.
     *
     * @return the descriptor
     * @throws ErrnoException naming the path
     */
    public static int open(final String path, final int flags) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final int fd = (int) OPEN.invokeExact(cs.segment, arena.allocateFrom(path), flags, 0);
            if (fd < 0) {
                throw fail("open", cs, path);
            }
            return fd;
        } catch (final ErrnoException e) {
            throw e;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Closes a descriptor on a path that is already failing or shutting down, where a close error has nobody to be
     * reported to; a negative {@code fd} (never opened) is ignored.
     *
     * @param fd the descriptor, or -1
     */
    public static void closeQuietly(final int fd) {
        if (fd >= 0) {
            try {
                close(fd);
            } catch (final ErrnoException ignored) {
                // the caller's original error, or the shutdown, is what matters
            }
        }
    }

    /**
     * Closes a descriptor.
     *
     * @throws ErrnoException e.g. EBADF for a descriptor that is not open
     */
    public static void close(final int fd) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) CLOSE.invokeExact(cs.segment, fd);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("close", cs, "fd " + fd);
        }
    }

    /**
     * {@code dup3(oldFd, newFd, flags)}: makes {@code newFd} refer to {@code oldFd}'s open file, closing what
     * {@code newFd} referred to, atomically (a thread blocked on the old file keeps it until its call returns).
     *
     * @param flags 0 or {@code O_CLOEXEC}
     * @throws ErrnoException e.g. EBADF, naming both descriptors
     */
    public static void dup3(final int oldFd, final int newFd, final int flags) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int rc;
        try {
            rc = (int) DUP3.invokeExact(cs.segment, oldFd, newFd, flags);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (rc < 0) {
            throw fail("dup3", cs, "fd " + oldFd + " onto fd " + newFd);
        }
    }

    /**
     * @return a new eventfd
     * @throws ErrnoException if the kernel refuses
     */
    public static int eventfd(final int initval, final int flags) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int fd;
        try {
            fd = (int) EVENTFD.invokeExact(cs.segment, initval, flags);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (fd < 0) {
            throw fail("eventfd", cs, null);
        }
        return fd;
    }

    /**
     * @return a new epoll descriptor
     * @throws ErrnoException if the kernel refuses
     */
    public static int epollCreate1(final int flags) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        final int fd;
        try {
            fd = (int) EPOLL_CREATE1.invokeExact(cs.segment, flags);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (fd < 0) {
            throw fail("epoll_create1", cs, null);
        }
        return fd;
    }

    /**
     * {@code epoll_ctl(epfd, op, fd, &{events, data})} with a packed 12-byte {@code epoll_event}.
     *
     * @throws ErrnoException naming both descriptors
     */
    public static void epollCtl(final int epfd, final int op, final int fd, final int events, final long data)
            throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ev = arena.allocate(EpollEvents.SIZE, 8);
            EpollEvents.set(ev, 0, events, data);
            final int rc = (int) EPOLL_CTL.invokeExact(cs.segment, epfd, op, fd, ev);
            if (rc < 0) {
                throw fail("epoll_ctl", cs, "epfd " + epfd + " op " + op + " fd " + fd);
            }
        } catch (final ErrnoException e) {
            throw e;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * @param name an interface name such as {@code "lo"}
     * @return its index
     * @throws ErrnoException (ENODEV) naming the interface
     */
    public static int ifNameToIndex(final String name) throws ErrnoException {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final int idx = (int) IF_NAMETOINDEX.invokeExact(cs.segment, arena.allocateFrom(name));
            if (idx == 0) {
                throw fail("if_nametoindex", cs, name);
            }
            return idx;
        } catch (final ErrnoException e) {
            throw e;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- SOCK_SEQPACKET (L2CAP CoC)

    /**
     * {@code accept4(fd, addr, &len, flags)} (stream and SOCK_SEQPACKET listeners); the peer's address is written
     * into {@code addr} (its whole size is offered to the kernel) and its length into {@code addrLen} (one
     * {@code int}).
     *
     * @return the new descriptor, or {@code -errno} (EAGAIN when nothing is pending on a non-blocking listener)
     */
    public static int accept4(final CallState cs, final int fd, final MemorySegment addr, final MemorySegment addrLen,
                              final int flags) {
        addrLen.set(JAVA_INT, 0, (int) Math.min(addr.byteSize(), Integer.MAX_VALUE));
        try {
            final int rc = (int) ACCEPT4.invokeExact(cs.segment, fd, addr, addrLen, flags);
            return rc >= 0 ? rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code send(fd, buf, len, flags)} with an {@code int} length: on a SOCK_SEQPACKET socket exactly one record
     * (one L2CAP SDU).
     *
     * @return bytes sent, or {@code -errno}
     */
    public static int send(final CallState cs, final int fd, final MemorySegment buf, final int len,
                           final int flags) {
        try {
            final long rc = (long) SEND.invokeExact(cs.segment, fd, buf, (long) len, flags);
            return rc >= 0 ? (int) rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code recv(fd, buf, len, flags)}: on a SOCK_SEQPACKET socket one record; 0 means the peer closed. With
     * {@code MSG_TRUNC} the record's real length is returned even when it did not fit.
     *
     * @return bytes received, 0 at end of stream, or {@code -errno}
     */
    public static int recv(final CallState cs, final int fd, final MemorySegment buf, final int len,
                           final int flags) {
        try {
            final long rc = (long) RECV.invokeExact(cs.segment, fd, buf, (long) len, flags);
            return rc >= 0 ? (int) rc : -cs.errno();
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code getsockopt} into a caller-sized value (e.g. a {@code u16} such as {@code BT_SNDMTU}).
     *
     * @return 0 and the value in {@code value}, or {@code -errno}
     */
    public static int getsockoptRaw(final int fd, final int level, final int name, final MemorySegment value) {
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, (int) value.byteSize());
            final int rc = (int) GETSOCKOPT.invokeExact(cs.segment, fd, level, name, value, len);
            return rc < 0 ? -cs.errno() : 0;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code setsockopt} with an arbitrary value, for options whose failure the caller tolerates.
     *
     * @return 0, or {@code -errno}
     */
    public static int setsockoptRaw(final int fd, final int level, final int name, final MemorySegment value) {
        final CallState cs = CallState.forCurrentThread();
        try {
            final int rc = (int) SETSOCKOPT.invokeExact(cs.segment, fd, level, name, value, (int) value.byteSize());
            return rc < 0 ? -cs.errno() : 0;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code mmap(NULL, bytes, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0)}, then
     * {@code madvise(MADV_NOHUGEPAGE)}: private zero-filled memory of which the kernel makes a page resident only
     * when it is first written (a read maps the shared zero page), 4 KiB at a time even where transparent huge
     * pages are on for every mapping. Control path. The mapping is {@code munmap}ped when {@code arena} closes.
     *
     * @param bytes the size, greater than 0 (the kernel rounds the mapping up to whole pages)
     * @param arena the lifetime of the mapping
     * @return a segment of {@code bytes} bytes, every one 0, page aligned
     * @throws ErrnoException if the kernel refuses (e.g. {@code ENOMEM})
     */
    public static MemorySegment mapAnonymous(final long bytes, final Arena arena) throws ErrnoException {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes " + bytes);
        }
        final CallState cs = CallState.forCurrentThread();
        final MemorySegment addr;
        try {
            addr = (MemorySegment) MMAP.invokeExact(cs.segment, MemorySegment.NULL, bytes,
                    linux_h.PROT_READ() | linux_h.PROT_WRITE(),
                    linux_h.MAP_PRIVATE() | linux_h.MAP_ANONYMOUS() | linux_h.MAP_NORESERVE(), -1, 0L);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        if (addr.address() == linux_h.MAP_FAILED().address()) {
            throw fail("mmap", cs, bytes + " bytes");
        }
        try {
            // Only a hint: a kernel built without THP refuses it (EINVAL) and nothing changes.
            final int ignored = (int) MADVISE.invokeExact(cs.segment, addr, bytes, linux_h.MADV_NOHUGEPAGE());
        } catch (final Throwable t) {
            unmap(addr, bytes);
            throw rethrow(t);
        }
        return addr.reinterpret(bytes, arena, mapping -> unmap(mapping, bytes));
    }

    private static void unmap(final MemorySegment addr, final long bytes) {
        try {
            final int ignored = (int) MUNMAP.invokeExact(CallState.forCurrentThread().segment, addr, bytes);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code shutdown(fd, SHUT_RDWR)}, best effort. On an unconnected UDP socket the kernel answers
     * {@code ENOTCONN} but still marks the socket shut down and wakes every thread waiting in {@code poll} on it
     * (which then sees {@code POLLHUP}): a way for another thread to end a receive loop at once.
     *
     * @return 0, or {@code -errno}
     */
    public static int shutdownBoth(final int fd) {
        final CallState cs = CallState.forCurrentThread();
        try {
            final int rc = (int) SHUTDOWN.invokeExact(cs.segment, fd, linux_h.SHUT_RDWR());
            return rc < 0 ? -cs.errno() : 0;
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }
}
