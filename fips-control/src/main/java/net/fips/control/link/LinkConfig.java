package net.fips.control.link;

/**
 * Link-layer settings, defaulting to the reference's values (crypto-link §8, operator.md §1.5 and §1.10). Durations
 * are in nanoseconds unless the name says otherwise.
 *
 * @param tickNanos                    period of the maintenance tick (1 s)
 * @param heartbeatIntervalNanos       Heartbeat period per link (10 s)
 * @param linkDeadTimeoutNanos         silence after which a link is dead (30 s)
 * @param handshakeTimeoutNanos        age after which a pending outbound handshake is dropped (30 s)
 * @param handshakeResendIntervalNanos first msg1 retransmission gap (1 s)
 * @param handshakeResendBackoff       gap multiplier (2.0)
 * @param handshakeMaxResends          retransmissions per attempt (5)
 * @param rekeyEnabled                 periodic rekey on/off
 * @param rekeyAfterSeconds            time trigger before jitter (120)
 * @param rekeyAfterMessages           send-counter trigger (65536)
 * @param rekeyJitterSeconds           jitter drawn uniformly from [-j, +j] per key epoch (15)
 * @param drainWindowNanos             how long the previous key epoch keeps receiving after cutover (10 s)
 * @param rekeyDampeningNanos          no own rekey this soon after the peer's rekey msg1 (30 s)
 * @param rekeyMinSessionAgeNanos      a msg1 on a younger key epoch is a duplicate, not a rekey (30 s)
 * @param retryBaseNanos               reconnect backoff base (5 s)
 * @param retryMaxBackoffNanos         reconnect backoff cap (300 s)
 * @param maxRetries                   retries for a peer that is not in reconnect mode (5)
 * @param maxRetriesPerTick            retry connections started per tick (16)
 * @param msg1Burst                    msg1 token bucket capacity (100)
 * @param msg1RatePerSecond            msg1 token refill (10/s)
 * @param maxPendingInbound            concurrent msg1 being processed (1000)
 * @param maxPeers                     established peers (128)
 * @param maxConnections               pending outbound handshakes (256)
 */
public record LinkConfig(long tickNanos, long heartbeatIntervalNanos, long linkDeadTimeoutNanos,
                         long handshakeTimeoutNanos, long handshakeResendIntervalNanos, double handshakeResendBackoff,
                         int handshakeMaxResends, boolean rekeyEnabled, long rekeyAfterSeconds,
                         long rekeyAfterMessages, int rekeyJitterSeconds, long drainWindowNanos,
                         long rekeyDampeningNanos, long rekeyMinSessionAgeNanos, long retryBaseNanos,
                         long retryMaxBackoffNanos, int maxRetries, int maxRetriesPerTick, int msg1Burst,
                         double msg1RatePerSecond, int maxPendingInbound, int maxPeers, int maxConnections) {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    /** @return the reference's defaults */
    public static LinkConfig defaults() {
        return new LinkConfig(S, 10 * S, 30 * S, 30 * S, 1000 * MS, 2.0, 5, true, 120, 65536, 15, 10 * S, 30 * S,
                30 * S, 5 * S, 300 * S, 5, 16, 100, 10.0, 1000, 128, 256);
    }

    /** @return a copy with rekey switched on or off */
    public LinkConfig withRekeyEnabled(final boolean enabled) {
        return new LinkConfig(tickNanos, heartbeatIntervalNanos, linkDeadTimeoutNanos, handshakeTimeoutNanos,
                handshakeResendIntervalNanos, handshakeResendBackoff, handshakeMaxResends, enabled, rekeyAfterSeconds,
                rekeyAfterMessages, rekeyJitterSeconds, drainWindowNanos, rekeyDampeningNanos,
                rekeyMinSessionAgeNanos, retryBaseNanos, retryMaxBackoffNanos, maxRetries, maxRetriesPerTick,
                msg1Burst, msg1RatePerSecond, maxPendingInbound, maxPeers, maxConnections);
    }

    /** @return a copy with another established-peer cap */
    public LinkConfig withMaxPeers(final int peers) {
        return new LinkConfig(tickNanos, heartbeatIntervalNanos, linkDeadTimeoutNanos, handshakeTimeoutNanos,
                handshakeResendIntervalNanos, handshakeResendBackoff, handshakeMaxResends, rekeyEnabled,
                rekeyAfterSeconds, rekeyAfterMessages, rekeyJitterSeconds, drainWindowNanos, rekeyDampeningNanos,
                rekeyMinSessionAgeNanos, retryBaseNanos, retryMaxBackoffNanos, maxRetries, maxRetriesPerTick,
                msg1Burst, msg1RatePerSecond, maxPendingInbound, peers, maxConnections);
    }

    /**
     * A copy with other fixed rekey timings. The reference hard-codes them (30 s minimum key-epoch age, 30 s
     * dampening, ±15 s jitter); only tests that must see several rekeys in seconds change them, on both nodes.
     *
     * @param minSessionAgeNanos youngest key epoch that may be rekeyed, and below which a msg1 is a duplicate
     * @param dampeningNanos     no own rekey this soon after the peer's rekey msg1
     * @param jitterSeconds      jitter bound added to the time trigger
     * @return the copy
     */
    public LinkConfig withRekeyTiming(final long minSessionAgeNanos, final long dampeningNanos,
                                      final int jitterSeconds) {
        return new LinkConfig(tickNanos, heartbeatIntervalNanos, linkDeadTimeoutNanos, handshakeTimeoutNanos,
                handshakeResendIntervalNanos, handshakeResendBackoff, handshakeMaxResends, rekeyEnabled,
                rekeyAfterSeconds, rekeyAfterMessages, jitterSeconds, drainWindowNanos, dampeningNanos,
                minSessionAgeNanos, retryBaseNanos, retryMaxBackoffNanos, maxRetries, maxRetriesPerTick,
                msg1Burst, msg1RatePerSecond, maxPendingInbound, maxPeers, maxConnections);
    }

    /**
     * How long a rekey responder's tick leaves its pending key epoch for the initiator's first frame under it to cut
     * over (ADR 0065): three ticks, for the initiator's reaction to the msg2, its own cutover tick (up to a tick
     * later) and the two nodes' tick phases.
     *
     * @return the grace in nanoseconds
     */
    public long responderCutoverGraceNanos() {
        return 3 * tickNanos;
    }

    /** Retransmission gap after the {@code count}-th resend: {@code interval * backoff^count}. */
    long resendGapNanos(final int count) {
        return (long) (handshakeResendIntervalNanos * Math.pow(handshakeResendBackoff, count));
    }
}
