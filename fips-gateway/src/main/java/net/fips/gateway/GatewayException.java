package net.fips.gateway;

/** A reason the gateway cannot start, worded for the operator. */
public final class GatewayException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and, where known, what to do */
    public GatewayException(final String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the underlying failure
     */
    public GatewayException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
