package net.fips.dataplane;

/**
 * Live figures of one end-to-end session, written by the worker that owns it and readable from any thread (each
 * value atomic, possibly a moment old). The control plane reads them once per tick: DataPacket activity drives the
 * idle timeout, the send counter the message-count rekey trigger (routing-session.md §5.2, §5.7).
 */
public interface SessionStats {
    /** @return when a DataPacket was last sealed or opened for this session (the shared clock), or the install time */
    long lastDataNanos();

    /** @return the current generation's next send counter */
    long sendCounter();

    /** @return the current generation's K bit */
    boolean keyEpoch();

    /** @return DataPackets sealed and handed to routing */
    long packetsOut();

    /** @return IPv6 bytes of those packets (before compression) */
    long bytesOut();

    /** @return DataPackets opened and written to the IPv6 side */
    long packetsIn();

    /** @return IPv6 bytes of those packets (after decompression) */
    long bytesIn();

    /** @return DataPackets that will still carry coordinates (the warm-up counter) */
    int coordsWarmupRemaining();

    /** @return the session's path MTU (65535 until a smaller one is learnt) */
    int pathMtu();

    /** @return whether a previous key generation is still accepted (the drain after a rekey) */
    boolean draining();

    /** @return authenticated session messages of any type received (the MMP receiver's cumulative packets) */
    long messagesIn();

    /** @return their FSP message bytes */
    long messageBytesIn();

    /** @return the highest FSP counter received on the current key generation, or -1 before one */
    long highestCounterIn();

    /** @return the inner timestamp (ms) of the last message received, or -1 before one */
    long peerTimestampMs();

    /** @return when that message arrived (the shared clock) */
    long peerTimestampNanos();

    /** @return messages received in CE-marked FMP frames */
    long ceCount();

    /** @return the instant the current generation's timestamps (ours) count from */
    long generationStartNanos();

    /** @return encrypted messages for this session that failed authentication or replay checks */
    long dropsIn();

    /**
     * @return the session's MMP receiver figures (jitter, OWD trend, loss bursts, reordering, CE) over its FSP
     *         counters and timestamps, measured per message by the owning worker (routing-session.md §6.3)
     */
    MmpReceiver receiver();
}
