package net.fips.control.dns;

import java.util.Objects;

/**
 * A DNS message that cannot be decoded, or a response that cannot be encoded. The responder turns it into a
 * counted drop; it never escapes the server loop. No stack trace is captured (it is ordinary bad input).
 */
public final class DnsFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the message. */
    public enum Problem {
        /** The message ends inside a field it announces. */
        TRUNCATED,
        /** The header's reserved Z bit (0x0040) is set, which the reference's decoder rejects. */
        RESERVED_FLAG,
        /** A label length byte of 64..191 (over 63, and not a compression pointer). */
        LABEL_TOO_LONG,
        /** The labels of one name add up to 255 bytes or more. */
        NAME_TOO_LONG,
        /** A compression pointer points outside the message. */
        BAD_POINTER,
        /** Compression pointers chain without end. */
        POINTER_LOOP,
        /** A question's type is not one the reference's decoder knows. */
        UNKNOWN_QTYPE,
        /** A question's class is not IN, CS, CH, HS, NONE or ANY. */
        UNKNOWN_QCLASS,
        /** A response would not fit the output buffer. */
        RESPONSE_TOO_LARGE
    }

    private final Problem problem;

    /**
     * @param problem what is wrong
     * @param message detail
     */
    public DnsFormatException(final Problem problem, final String message) {
        super(message, null, false, false);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** @return what is wrong */
    public Problem problem() {
        return problem;
    }
}
