package net.fips.dataplane;

/**
 * Per-link figures the data plane publishes for the control plane to read at any time (single writer, many
 * readers: values may be a moment old but are never torn).
 */
public interface LinkStats {
    /** @return {@link System#nanoTime()} of the last frame that authenticated, or of link creation if none */
    long lastAuthenticatedNanos();

    /** @return the current session's send counter (frames sealed so far on it) */
    long sendCounter();

    /** @return the link's current K bit (0 or 1) */
    int keyEpochBit();

    /** @return frames received and authenticated */
    long packetsIn();

    /** @return bytes of authenticated frames received */
    long bytesIn();

    /** @return frames sent */
    long packetsOut();

    /** @return bytes of frames sent */
    long bytesOut();

    /** @return the highest counter accepted on the current session */
    long highestCounterIn();

    /** @return frames dropped for failed authentication or replay */
    long dropsIn();

    /** @return of those, frames dropped by the replay window (replayed or too old) */
    long replayDrops();

    /** @return frames that failed authentication in a row since the last one that passed */
    int consecutiveDecryptFailures();

    /**
     * @return the link's MMP receiver figures (jitter, OWD trend, loss bursts, reordering, CE), measured per frame
     *         by the worker that owns the link (routing-session.md §6.3)
     */
    MmpReceiver receiver();
}
