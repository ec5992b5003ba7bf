package net.fips.dataplane.tor;

/**
 * A Tor (or Nym) transport address that cannot be dialled. {@link #problem()} names the kind of mistake; the
 * message quotes the text and says what was expected.
 */
public final class TorAddressException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the address. */
    public enum Problem {
        /** The transport address bytes are not UTF-8 text. */
        NOT_UTF8,
        /** No {@code :port} after the host. */
        MISSING_PORT,
        /** The port is not a decimal number from 1 to 65535. */
        BAD_PORT,
        /** The host part is empty. */
        EMPTY_HOST,
        /** A host name without a dot: Tor resolves only fully qualified names. */
        NOT_QUALIFIED,
        /** The host is longer than the 255 bytes a SOCKS5 domain name can carry. */
        HOST_TOO_LONG,
        /** A bracketed host that is not an IPv6 literal. */
        BAD_IPV6
    }

    private final Problem problem;

    /**
     * @param problem what is wrong
     * @param message the explanation, quoting the address
     */
    public TorAddressException(final Problem problem, final String message) {
        super(message);
        this.problem = problem;
    }

    /** @return what is wrong */
    public Problem problem() {
        return problem;
    }
}
