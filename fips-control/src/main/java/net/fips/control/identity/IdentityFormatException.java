package net.fips.control.identity;

import java.util.Objects;

/**
 * A key, address or bech32 string that does not decode. Checked, so every caller that parses operator or peer
 * input has to decide what a bad value means; {@link #problem()} says which rule was broken.
 */
public final class IdentityFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Which rule the input broke. */
    public enum Problem {
        /** Not a bech32 string at all: no separator, bad characters, mixed case, HRP or length limits. */
        MALFORMED,
        /** Well-formed bech32 whose checksum is neither Bech32 nor Bech32m. */
        BAD_CHECKSUM,
        /** Bech32 with the wrong human-readable part (e.g. an nsec where an npub is expected). */
        WRONG_PREFIX,
        /** The decoded payload or hex has the wrong number of bytes. */
        WRONG_LENGTH,
        /** Right length, but not a usable key or address (x not on the curve, scalar out of range, prefix). */
        INVALID_KEY,
        /** Not hexadecimal: odd length or a character outside 0-9a-fA-F. */
        BAD_HEX
    }

    private final Problem problem;

    /**
     * @param problem which rule was broken
     * @param message what was wrong, for an operator
     */
    public IdentityFormatException(final Problem problem, final String message) {
        super(message);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** @return which rule the input broke */
    public Problem problem() {
        return problem;
    }
}
