package net.fips.control.ctl;

/**
 * A command that the daemon refuses; the message is sent verbatim as the error response's {@code message}.
 */
public final class ControlException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message the text the client sees
     */
    public ControlException(final String message) {
        super(message);
    }

    /**
     * @param npub the npub the client named
     * @return the reference's error for a disconnect of a peer that is not authenticated
     */
    public static ControlException peerNotFound(final String npub) {
        return new ControlException("peer not found: " + npub);
    }

    /**
     * @param npub   the npub the client named
     * @param reason why it does not decode
     * @return the reference's error for an undecodable npub in {@code disconnect}
     */
    public static ControlException invalidNpub(final String npub, final String reason) {
        return new ControlException("invalid npub '" + npub + "': " + reason);
    }

    /**
     * @param name the peer name the client sent
     * @return the error for a name that is neither an npub nor one of the daemon's config aliases
     */
    public static ControlException unknownPeerName(final String name) {
        return new ControlException("unknown host '" + name + "': not an npub, and not a peer alias in the daemon's"
                + " config (hosts-file names are resolved by the client)");
    }
}
