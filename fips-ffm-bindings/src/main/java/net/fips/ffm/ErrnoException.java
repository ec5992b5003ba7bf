package net.fips.ffm;

import java.io.IOException;

/**
 * A failed system call on the control path: names the call, what it acted on, and the kernel's errno.
 */
public final class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String syscall;
    private final int errno;

    /**
     * @param syscall the call that failed, e.g. {@code "bind"}
     * @param errno   the positive errno value the kernel returned
     * @param detail  what the call acted on (an address, an interface name), or {@code null}
     * @param reason  the kernel's text for the errno (strerror)
     */
    public ErrnoException(final String syscall, final int errno, final String detail, final String reason) {
        super(syscall + (detail == null ? "" : " " + detail) + " failed: " + reason + " (errno " + errno + ")");
        this.syscall = syscall;
        this.errno = errno;
    }

    /** @return the system call that failed */
    public String syscall() {
        return syscall;
    }

    /** @return the positive errno value */
    public int errno() {
        return errno;
    }
}
