package net.fips.control.nostr;

/**
 * Input from a relay or a peer that is not what NIP-01, NIP-44, NIP-59 or the FIPS payloads allow. The
 * {@link Problem} says which rule it broke, so callers count drops by kind instead of parsing messages.
 */
public final class NostrFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What was wrong with the input. */
    public enum Problem {
        /** Not valid JSON, or JSON of the wrong shape (missing key, wrong type). */
        MALFORMED_JSON,
        /** A field has the right type but a value outside its rule (hex length, kind range, identifier). */
        INVALID_FIELD,
        /** The event id is not the SHA-256 of its canonical serialisation. */
        ID_MISMATCH,
        /** The BIP-340 signature does not verify. */
        BAD_SIGNATURE,
        /** A NIP-44 payload failed to decode or authenticate ({@link Nip44Exception} has the detail). */
        DECRYPTION_FAILED,
        /** The event is not of the kind the caller expects. */
        WRONG_KIND,
        /** The rumor's author differs from the seal's signer (NIP-59's rule, ADR 0037). */
        SENDER_MISMATCH
    }

    private final Problem problem;

    /**
     * @param problem the rule broken
     * @param message what was wrong, for logs
     */
    public NostrFormatException(final Problem problem, final String message) {
        super(message);
        this.problem = problem;
    }

    /**
     * @param problem the rule broken
     * @param message what was wrong, for logs
     * @param cause   the underlying error
     */
    public NostrFormatException(final Problem problem, final String message, final Throwable cause) {
        super(message, cause);
        this.problem = problem;
    }

    /** @return the rule the input broke */
    public Problem problem() {
        return problem;
    }
}
