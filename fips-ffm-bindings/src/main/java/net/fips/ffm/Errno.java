package net.fips.ffm;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.linux.gen.linux_h;

/**
 * Linux errno values the node reacts to, their negated forms for hot-path return codes, and {@link #strerror}.
 * Values come from the generated bindings, so a header change shows up here (and in {@code LayoutTest}).
 */
public final class Errno {
    /** Operation not permitted. */
    public static final int EPERM = linux_h.EPERM();
    /** Interrupted system call. */
    public static final int EINTR = linux_h.EINTR();
    /** I/O error. */
    public static final int EIO = linux_h.EIO();
    /** Bad file descriptor. */
    public static final int EBADF = linux_h.EBADF();
    /** Try again (same value as EWOULDBLOCK on Linux). */
    public static final int EAGAIN = linux_h.EAGAIN();
    /** Operation would block. */
    public static final int EWOULDBLOCK = linux_h.EWOULDBLOCK();
    /** Out of memory. */
    public static final int ENOMEM = linux_h.ENOMEM();
    /** Permission denied. */
    public static final int EACCES = linux_h.EACCES();
    /** Invalid argument. */
    public static final int EINVAL = linux_h.EINVAL();
    /** Message too long. */
    public static final int EMSGSIZE = linux_h.EMSGSIZE();
    /** Protocol not available. */
    public static final int ENOPROTOOPT = linux_h.ENOPROTOOPT();
    /** Operation not supported. */
    public static final int EOPNOTSUPP = linux_h.EOPNOTSUPP();
    /** Address family not supported. */
    public static final int EAFNOSUPPORT = linux_h.EAFNOSUPPORT();
    /** Address already in use. */
    public static final int EADDRINUSE = linux_h.EADDRINUSE();
    /** Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = linux_h.EADDRNOTAVAIL();
    /** No buffer space available. */
    public static final int ENOBUFS = linux_h.ENOBUFS();
    /** Transport endpoint is already connected. */
    public static final int EISCONN = linux_h.EISCONN();
    /** Connection refused. */
    public static final int ECONNREFUSED = linux_h.ECONNREFUSED();
    /** Operation now in progress. */
    public static final int EINPROGRESS = linux_h.EINPROGRESS();
    /** Connection reset by peer. */
    public static final int ECONNRESET = linux_h.ECONNRESET();
    /** Broken pipe. */
    public static final int EPIPE = linux_h.EPIPE();

    /** No such file or directory. */
    public static final int ENOENT = linux_h.ENOENT();
    /** No such device or address. */
    public static final int ENXIO = linux_h.ENXIO();
    /** Bad address (a blocked TUN read may fail with it when the device is deleted). */
    public static final int EFAULT = linux_h.EFAULT();
    /** Device or resource busy (TUNSETIFF on a TUN device another descriptor holds). */
    public static final int EBUSY = linux_h.EBUSY();
    /** File exists (netlink: the address, route or rule is already there). */
    public static final int EEXIST = linux_h.EEXIST();
    /** Not a directory (a path component of a device path is a file). */
    public static final int ENOTDIR = linux_h.ENOTDIR();
    /** No such device. */
    public static final int ENODEV = linux_h.ENODEV();
    /** File descriptor in bad state (a TUN read after its device was deleted). */
    public static final int EBADFD = linux_h.EBADFD();
    /** Connection timed out (also: no netlink acknowledgement in time). */
    public static final int ETIMEDOUT = linux_h.ETIMEDOUT();

    /** {@code -EAGAIN}, as returned by the hot-path wrappers. */
    public static final int EAGAIN_NEGATIVE = -EAGAIN;
    /** {@code -EINTR}. */
    public static final int EINTR_NEGATIVE = -EINTR;
    /** {@code -ENOBUFS}. */
    public static final int ENOBUFS_NEGATIVE = -ENOBUFS;

    private Errno() {
    }

    /**
     * @param rc a hot-path return code ({@code >= 0} success, else {@code -errno})
     * @return whether the failure is back-pressure or an interruption worth retrying later
     */
    public static boolean isTransient(final int rc) {
        return rc == -EAGAIN || rc == -EWOULDBLOCK || rc == -EINTR || rc == -ENOBUFS || rc == -ENOMEM;
    }

    /**
     * The C library's text for an errno. Off the hot path only (it makes a downcall and a String).
     *
     * @param errno a positive errno value
     * @return the message, or {@code "errno N"} if native access is unavailable
     */
    public static String strerror(final int errno) {
        try {
            final MemorySegment text = linux_h.strerror(errno);
            if (text.equals(MemorySegment.NULL)) {
                return "errno " + errno;
            }
            return text.reinterpret(1024).getString(0);
        } catch (final RuntimeException | Error e) {
            // Native access denied or libc missing: still give the caller something readable.
            return "errno " + errno;
        }
    }

    /**
     * Builds the control-path exception for a failed call.
     *
     * @param syscall the call, e.g. {@code "bind"}
     * @param errno   the positive errno captured after the call
     * @param detail  what the call acted on, or {@code null}
     * @return the exception, with {@link #strerror} text
     */
    public static ErrnoException exception(final String syscall, final int errno, final String detail) {
        return new ErrnoException(syscall, errno, detail, strerror(errno));
    }
}
