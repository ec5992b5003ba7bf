package net.fips.dataplane.transport;

import java.io.IOException;

/** A transport could not be set up, or an address cannot be used with it (control path; never per packet). */
public class TransportException extends IOException {
    private static final long serialVersionUID = 1L;

    public TransportException(final String message) {
        super(message);
    }

    public TransportException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
