package net.fips.control.noise;

/**
 * A Noise handshake or transport operation refused its input: the message has the wrong length, a key does not
 * parse, a tag does not verify, the call does not fit the handshake's state, or a counter is a replay. The
 * {@link #reason()} lets callers count and react without parsing messages; the handshake that threw is left as it
 * was before the call.
 */
public final class NoiseException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why an operation was refused. */
    public enum Reason {
        /** The call does not fit the handshake's pattern, role or progress. */
        WRONG_STATE,
        /** A message, key or epoch has the wrong length. */
        WRONG_LENGTH,
        /** A public key is not a 33-byte SEC1 compressed point on secp256k1. */
        INVALID_PUBLIC_KEY,
        /** A secret key is not 32 bytes encoding a scalar in [1, n). */
        INVALID_SECRET_KEY,
        /** The AEAD tag did not verify (tampered message, wrong key or wrong counter). */
        DECRYPT_FAILED,
        /** The 64-bit nonce counter is exhausted. */
        NONCE_OVERFLOW,
        /** The plaintext exceeds the Noise maximum of 65519 bytes. */
        MESSAGE_TOO_LARGE,
        /** A transport counter was already accepted or lies below the replay window. */
        REPLAY
    }

    private final Reason reason;

    /**
     * @param reason the category
     * @param message what exactly was wrong
     */
    public NoiseException(final Reason reason, final String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    /** @return why the operation was refused */
    public Reason reason() {
        return reason;
    }
}
