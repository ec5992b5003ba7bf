package net.fips.ffm.linux;

/** A socket address that cannot be encoded for, or decoded from, the kernel's {@code sockaddr} form. */
public final class SockAddrException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the address */
    public SockAddrException(final String message) {
        super(message);
    }
}
