package net.fips.dataplane.wire;

/**
 * Checked carrier of a {@link WireError}, for callers that prefer exceptions to {@link WireResult}. Instances carry
 * no stack trace and are shared per reason, so raising one on a hostile packet costs no allocation.
 */
public final class WireException extends Exception {
    private static final long serialVersionUID = 1L;
    private static final WireException[] SHARED = new WireException[WireError.values().length];

    static {
        for (final WireError e : WireError.values()) {
            SHARED[e.ordinal()] = new WireException(e);
        }
    }

    private final transient WireError error;

    private WireException(final WireError error) {
        super(error.name() + ": " + error.description(), null, false, false);
        this.error = error;
    }

    /** The shared exception for {@code error}. */
    public static WireException of(final WireError error) {
        return SHARED[error.ordinal()];
    }

    /** The reason. */
    public WireError error() {
        return error;
    }
}
