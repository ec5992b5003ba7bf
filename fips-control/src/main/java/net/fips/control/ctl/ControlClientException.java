package net.fips.control.ctl;

import java.io.IOException;

/** A control request that got no usable response: no daemon, no access, a timeout or a garbled answer. */
public final class ControlClientException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** The socket could not be connected (no daemon, stale path, no permission). */
        CONNECT,
        /** Connected, but sending or receiving failed or timed out. */
        IO,
        /** The daemon's answer was not a JSON response envelope. */
        PROTOCOL
    }

    private final Kind kind;

    /**
     * @param kind    category
     * @param message text for the operator, naming the socket and a hint where one helps
     * @param cause   underlying exception, or null
     */
    public ControlClientException(final Kind kind, final String message, final Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** @return the category */
    public Kind kind() {
        return kind;
    }
}
