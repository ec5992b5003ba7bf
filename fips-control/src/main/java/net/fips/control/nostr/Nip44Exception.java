package net.fips.control.nostr;

/** A NIP-44 v2 operation refused its input; {@link #reason()} says why (discovery-gateway.md §1.5). */
public final class Nip44Exception extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why the input was refused. */
    public enum Reason {
        /** The secret key is not 32 bytes with 1 <= k < n. */
        INVALID_SECRET_KEY,
        /** The public key is not the x coordinate of a secp256k1 point. */
        INVALID_PUBLIC_KEY,
        /** The plaintext is shorter than 1 or longer than 65535 bytes. */
        INVALID_PLAINTEXT_LENGTH,
        /** The payload's text or decoded length is outside what a v2 payload can be. */
        INVALID_PAYLOAD_LENGTH,
        /** The payload starts with {@code #} or its version byte is not 2. */
        UNKNOWN_VERSION,
        /** The payload is not standard padded base64. */
        INVALID_BASE64,
        /** The MAC does not authenticate nonce and ciphertext. */
        INVALID_MAC,
        /** The decrypted length prefix or padding is inconsistent. */
        INVALID_PADDING,
        /** The plaintext is not valid UTF-8. */
        INVALID_UTF8
    }

    private final Reason reason;

    /**
     * @param reason  why
     * @param message detail for logs
     */
    public Nip44Exception(final Reason reason, final String message) {
        super(message);
        this.reason = reason;
    }

    /** @return why the input was refused */
    public Reason reason() {
        return reason;
    }
}
