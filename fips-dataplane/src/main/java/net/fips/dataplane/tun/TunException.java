package net.fips.dataplane.tun;

import java.io.IOException;

/**
 * The TUN device could not be created or configured. {@link #reason()} says what kind of problem it is, so a
 * caller can tell an operator what to fix; the message names the operation and the kernel's answer.
 */
public final class TunException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Reason {
        /** The {@link TunConfig} is unusable (name, MTU, address, device path). */
        INVALID_CONFIG,
        /** The FFM downcalls are unavailable (missing {@code --enable-native-access}). */
        NATIVE_ACCESS,
        /** IPv6 is disabled ({@code net.ipv6.conf.all.disable_ipv6 = 1}). */
        IPV6_DISABLED,
        /** There is no TUN character device at the configured path (no {@code /dev/net/tun}, no tun driver). */
        DEVICE_MISSING,
        /** The kernel refused for lack of privilege: creating and configuring the device needs CAP_NET_ADMIN. */
        PERMISSION,
        /** An interface with the configured name exists (and may not be replaced) or is held by another process. */
        NAME_IN_USE,
        /** Any other failure of a step (the message names the step and the errno). */
        CONFIGURE_FAILED
    }

    private final Reason reason;
    private final String operation;
    private final int errno;

    /**
     * @param reason    the kind of problem
     * @param operation the step that failed, e.g. {@code "add address fd12::1/128 to fips0"}
     * @param errno     the kernel's errno, or 0 when there is none
     * @param message   the full explanation
     * @param cause     the underlying error, or {@code null}
     */
    public TunException(final Reason reason, final String operation, final int errno, final String message,
                        final Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.operation = operation;
        this.errno = errno;
    }

    /** @return the kind of problem */
    public Reason reason() {
        return reason;
    }

    /** @return the step that failed */
    public String operation() {
        return operation;
    }

    /** @return the kernel's errno for the failed step, or 0 */
    public int errno() {
        return errno;
    }
}
