package net.fips.dataplane.ethernet;

import net.fips.dataplane.transport.TransportException;

/** Why an Ethernet transport could not be opened (or reopened), with the reason as a value for callers to test. */
public final class EthernetTransportException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Reason {
        /** The FFM handles could not be built (no {@code --enable-native-access}). */
        NATIVE_UNAVAILABLE,
        /** A setting is out of range (interface name, EtherType, MTU, buffer size). */
        INVALID_CONFIG,
        /** The kernel refused an AF_PACKET socket: the process lacks CAP_NET_RAW. */
        PERMISSION,
        /** No interface of that name in this network namespace. */
        NO_SUCH_INTERFACE,
        /** The interface is not Ethernet-like (its hardware address is not a 6-byte ARPHRD_ETHER one). */
        NOT_ETHERNET,
        /** Any other failed system call (the message names it and the errno). */
        SYSTEM
    }

    private final Reason reason;
    private final int errno;

    /**
     * @param reason  the reason
     * @param errno   the errno behind it, or 0
     * @param message what happened, naming the interface
     * @param cause   the underlying exception, or null
     */
    public EthernetTransportException(final Reason reason, final int errno, final String message,
                                      final Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.errno = errno;
    }

    /** @return the reason */
    public Reason reason() {
        return reason;
    }

    /** @return the errno behind the failure, or 0 */
    public int errno() {
        return errno;
    }
}
