package net.fips.dataplane.udp;


import net.fips.dataplane.transport.TransportException;

/** A UDP transport could not be configured or opened: bad address text, unusable address, refused bind. */
public final class UdpTransportException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** @param message what failed and where */
    public UdpTransportException(final String message) {
        super(message);
    }

    /**
     * @param message what failed and where
     * @param cause   the underlying error (often an {@link net.fips.ffm.ErrnoException})
     */
    public UdpTransportException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
