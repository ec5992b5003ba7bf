package net.fips.control.tor;

/**
 * A Tor control-port operation failed. {@link #kind()} separates what an operator fixes (connection, credentials)
 * from what Tor got wrong (protocol); every failure is counted once as {@code control_errors} by the caller.
 */
public final class TorControlException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What failed. */
    public enum Kind {
        /** The control socket or port could not be reached. */
        CONNECT_FAILED,
        /** The credentials were unusable (cookie file) or refused (a non-250 answer to AUTHENTICATE). */
        AUTH_FAILED,
        /** A reply broke the grammar, a command was answered with an error code, or a value did not parse. */
        PROTOCOL,
        /** The connection failed, closed or timed out after it was up. */
        IO
    }

    private final Kind kind;

    /**
     * @param kind    what failed
     * @param message the explanation
     */
    public TorControlException(final Kind kind, final String message) {
        super(message);
        this.kind = kind;
    }

    /**
     * @param kind    what failed
     * @param message the explanation
     * @param cause   the underlying error
     */
    public TorControlException(final Kind kind, final String message, final Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** @return what failed */
    public Kind kind() {
        return kind;
    }
}
