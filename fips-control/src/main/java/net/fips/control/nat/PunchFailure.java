package net.fips.control.nat;

/**
 * Why a traversal attempt failed, with the reference's reason string (discovery-gateway.md §2.7), e.g.
 * {@code no-punch-targets}, {@code invalid-remote-ip}, {@code PunchTimeout}.
 */
public final class PunchFailure extends Exception {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /**
     * @param reason the reference's reason string
     * @param detail what happened, for the log
     */
    public PunchFailure(final String reason, final String detail) {
        super(reason + ": " + detail);
        this.reason = reason;
    }

    /** @return the reference's reason string */
    public String reason() {
        return reason;
    }
}
