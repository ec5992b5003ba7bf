package net.fips.dataplane.tor;

/**
 * Why a SOCKS5 dial failed, and which {@code show_transports} counter it bumps (transports.md §6.3 step 5): a
 * reply code 05 is {@code connect_refused}, a timeout is {@code connect_timeouts}, everything else (an
 * unreachable proxy, a protocol violation, any other reply code) is {@code socks5_errors}.
 */
public enum Socks5Failure {
    /** The TCP connection to the proxy itself failed (refused, unreachable). */
    PROXY_UNREACHABLE(null, "cannot reach the SOCKS5 proxy"),
    /** The proxy closed the connection before the exchange finished. */
    PROXY_CLOSED(null, "the SOCKS5 proxy closed the connection during the handshake"),
    /** An I/O error on the proxy connection after it was up. */
    IO_ERROR(null, "I/O error on the SOCKS5 proxy connection"),
    /** The whole dial did not finish within the connect timeout. */
    TIMEOUT(null, "SOCKS5 dial timed out"),
    /** A reply whose version byte is not 05 (method and CONNECT replies). */
    BAD_VERSION(null, "SOCKS5 reply with a version other than 05"),
    /** The proxy accepted none of the offered methods (method FF). */
    NO_ACCEPTABLE_METHOD(null, "the SOCKS5 proxy accepts none of the offered authentication methods"),
    /** The proxy chose a method that was not offered. */
    UNEXPECTED_METHOD(null, "the SOCKS5 proxy chose an authentication method that was not offered"),
    /** The username/password sub-negotiation reply does not have version 01. */
    BAD_AUTH_VERSION(null, "SOCKS5 username/password reply with a version other than 01"),
    /** The proxy rejected the username/password (status other than 00). */
    AUTH_FAILED(null, "the SOCKS5 proxy rejected the username/password"),
    /** The CONNECT reply's reserved byte is not 00. */
    BAD_RESERVED(null, "SOCKS5 CONNECT reply with a non-zero reserved byte"),
    /** The CONNECT reply's address type is not 01, 03 or 04. */
    BAD_ADDRESS_TYPE(null, "SOCKS5 CONNECT reply with an unknown address type"),
    /** Reply 01. */
    GENERAL_FAILURE(1, "general SOCKS server failure"),
    /** Reply 02. */
    NOT_ALLOWED_BY_RULESET(2, "connection not allowed by ruleset"),
    /** Reply 03. */
    NETWORK_UNREACHABLE(3, "network unreachable"),
    /** Reply 04 (what Tor answers when an onion service cannot be reached). */
    HOST_UNREACHABLE(4, "host unreachable"),
    /** Reply 05: the destination refused; counted as {@code connect_refused}. */
    CONNECTION_REFUSED(5, "connection refused"),
    /** Reply 06. */
    TTL_EXPIRED(6, "TTL expired"),
    /** Reply 07. */
    COMMAND_NOT_SUPPORTED(7, "command not supported"),
    /** Reply 08. */
    ADDRESS_TYPE_NOT_SUPPORTED(8, "address type not supported"),
    /** Any other non-zero reply code (09-FF). */
    UNKNOWN_REPLY(null, "unknown SOCKS5 reply code");

    /** The counter a failure bumps. */
    public enum Counter {
        /** {@code socks5_errors} */
        SOCKS5_ERRORS,
        /** {@code connect_refused} */
        CONNECT_REFUSED,
        /** {@code connect_timeouts} */
        CONNECT_TIMEOUTS
    }

    private final Integer replyCode;
    private final String description;

    Socks5Failure(final Integer replyCode, final String description) {
        this.replyCode = replyCode;
        this.description = description;
    }

    /** @return a short explanation */
    public String description() {
        return description;
    }

    /** @return the CONNECT reply code this failure stands for, or -1 when it is not a reply code */
    public int replyCode() {
        return replyCode == null ? -1 : replyCode;
    }

    /** @return the counter to bump */
    public Counter counter() {
        return switch (this) {
            case CONNECTION_REFUSED -> Counter.CONNECT_REFUSED;
            case TIMEOUT -> Counter.CONNECT_TIMEOUTS;
            default -> Counter.SOCKS5_ERRORS;
        };
    }

    /**
     * @param rep a non-zero CONNECT reply code
     * @return the failure for it
     */
    public static Socks5Failure ofReply(final int rep) {
        for (final Socks5Failure f : values()) {
            if (f.replyCode != null && f.replyCode == rep) {
                return f;
            }
        }
        return UNKNOWN_REPLY;
    }
}
