package net.fips.control.noise;

import net.fips.dataplane.crypto.ReplayWindow;

/**
 * Transport encryption after a handshake, as the reference's session object does it (spec crypto-link §4.6,
 * §5.4, §5.7, §7.6): the sender numbers its messages from 0 with its own counter and writes that counter into the
 * frame header; the receiver takes the counter from the header, checks it against a 2048-packet
 * {@link ReplayWindow}, opens the AEAD with it, and records it in the window only after the tag verified.
 *
 * <p>The associated data is whatever the framing authenticates: the 16-byte FMP header or the 12-byte FSP header.
 * This class serves the control path and tests; the data plane seals frames itself with the same keys.
 * Not thread-safe.
 */
public final class TransportSession {
    private final CipherState send;
    private final CipherState recv;
    private final ReplayWindow window = new ReplayWindow();

    /**
     * @param sendKey 32-byte key for what we send (copied)
     * @param recvKey 32-byte key for what we receive (copied)
     * @throws NoiseException WRONG_LENGTH when a key is not 32 bytes
     */
    public TransportSession(final byte[] sendKey, final byte[] recvKey) throws NoiseException {
        this.send = new CipherState(sendKey);
        this.recv = new CipherState(recvKey);
    }

    /** @return the counter that the next {@link #encrypt} will use and the caller must put in the header */
    public long nextSendCounter() {
        return send.nonce();
    }

    /**
     * Seals one message under the next send counter, then advances it.
     *
     * @param aad       the authenticated header bytes (may be empty)
     * @param plaintext at most {@link CipherState#MAX_PLAINTEXT_BYTES}
     * @return ciphertext followed by the 16-byte tag
     * @throws NoiseException MESSAGE_TOO_LARGE, NONCE_OVERFLOW, or WRONG_STATE after {@link #destroy()}
     */
    public byte[] encrypt(final byte[] aad, final byte[] plaintext) throws NoiseException {
        if (!send.hasKey()) {
            // A keyless Noise cipher state passes plaintext through; a destroyed session must not.
            throw new NoiseException(NoiseException.Reason.WRONG_STATE, "transport session destroyed");
        }
        return send.encrypt(aad, plaintext);
    }

    /**
     * Reserves the next send counter without sealing here, for a sender that seals in the data plane.
     *
     * @throws NoiseException NONCE_OVERFLOW
     */
    public long takeSendCounter() throws NoiseException {
        return send.takeCounter();
    }

    /** @return true when {@code counter} passes the replay window (cheap pre-check, changes nothing) */
    public boolean checkReplay(final long counter) {
        return window.check(counter);
    }

    /**
     * Opens one received message: replay check, AEAD open with {@code counter}, then the window records it.
     *
     * @param counter the counter from the frame header (unsigned)
     * @param aad     the authenticated header bytes
     * @return the plaintext
     * @throws NoiseException REPLAY (duplicate or too old), WRONG_LENGTH or DECRYPT_FAILED; the window only moves
     *     on success
     */
    public byte[] decrypt(final long counter, final byte[] aad, final byte[] ciphertext) throws NoiseException {
        if (!window.check(counter)) {
            throw new NoiseException(NoiseException.Reason.REPLAY,
                    "counter " + Long.toUnsignedString(counter) + " already seen or too old");
        }
        final byte[] plaintext = recv.decryptWithCounter(counter, aad, ciphertext);
        window.accept(counter);
        return plaintext;
    }

    /** @return the highest counter received and authenticated so far (unsigned; 0 initially) */
    public long highestReceived() {
        return window.highest();
    }

    /** Overwrites both keys with zeros; the session is unusable afterwards. */
    public void destroy() {
        send.destroy();
        recv.destroy();
    }
}
