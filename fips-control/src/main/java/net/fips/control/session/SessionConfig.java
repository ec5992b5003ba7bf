package net.fips.control.session;

/**
 * Session-layer settings (spec routing-session §7). All durations in nanoseconds.
 *
 * @param idleTimeoutNanos         established sessions without a DataPacket for longer than this are deleted; 0
 *                                 disables idle expiry ({@code node.session.idle_timeout_secs}, 90 s)
 * @param handshakeTimeoutNanos    handshakes not completed within this since their last activity are deleted
 *                                 ({@code handshake_timeout_secs}, 30 s)
 * @param resendBaseNanos          first handshake resend delay; the n-th waits base × 2^n (1 s)
 * @param maxResends               handshake resends per message (5)
 * @param queuePerDestination      queued packets per destination, oldest dropped (16)
 * @param maxQueuedDestinations    destinations with queued packets; new ones beyond are dropped (256)
 * @param warmupPackets            coordinate warm-up counter value (5)
 * @param coordsResponseIntervalNanos per-destination minimum interval between CoordsWarmup sent in reaction to
 *                                 CoordsRequired/PathBroken (2000 ms)
 * @param datagramTtl              ttl of the SessionDatagrams we originate (64)
 * @param rekeyEnabled             session rekey on (true)
 * @param rekeyAfterNanos          rekey when a session is this old (120 s) ...
 * @param rekeyJitterNanos         ... plus a per-session jitter uniform in [-j, +j] (15 s)
 * @param rekeyAfterMessages       ... or when the send counter reaches this (65 536)
 * @param rekeyDampeningNanos      no own rekey within this after the peer started one (30 s)
 * @param rekeyCutoverNanos        initiator promotes the new keys this long after sending msg3 (2000 ms)
 * @param rekeyDrainNanos          previous keys kept this long after cutover and after their last use (10 s)
 */
public record SessionConfig(long idleTimeoutNanos, long handshakeTimeoutNanos, long resendBaseNanos, int maxResends,
        int queuePerDestination, int maxQueuedDestinations, int warmupPackets, long coordsResponseIntervalNanos,
        int datagramTtl, boolean rekeyEnabled, long rekeyAfterNanos, long rekeyJitterNanos, long rekeyAfterMessages,
        long rekeyDampeningNanos, long rekeyCutoverNanos, long rekeyDrainNanos) {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    /** Checks ranges. */
    public SessionConfig {
        if (idleTimeoutNanos < 0 || handshakeTimeoutNanos <= 0 || resendBaseNanos <= 0 || maxResends < 0
                || maxResends > 30 || queuePerDestination < 1 || maxQueuedDestinations < 1 || warmupPackets < 0
                || coordsResponseIntervalNanos < 0 || datagramTtl < 1 || datagramTtl > 255 || rekeyAfterNanos <= 0
                || rekeyJitterNanos < 0 || rekeyJitterNanos >= rekeyAfterNanos || rekeyAfterMessages <= 0
                || rekeyDampeningNanos < 0 || rekeyCutoverNanos < 0 || rekeyDrainNanos < 0) {
            throw new IllegalArgumentException("session config out of range");
        }
    }

    /** @return the reference's v0.4.1 defaults */
    public static SessionConfig defaults() {
        return new SessionConfig(90 * S, 30 * S, S, 5, 16, 256, 5, 2000 * MS, 64, true, 120 * S, 15 * S, 65_536,
                30 * S, 2000 * MS, 10 * S);
    }

    /** @return a copy with another idle timeout (0 disables) */
    public SessionConfig withIdleTimeoutNanos(final long v) {
        return new SessionConfig(v, handshakeTimeoutNanos, resendBaseNanos, maxResends, queuePerDestination,
                maxQueuedDestinations, warmupPackets, coordsResponseIntervalNanos, datagramTtl, rekeyEnabled,
                rekeyAfterNanos, rekeyJitterNanos, rekeyAfterMessages, rekeyDampeningNanos, rekeyCutoverNanos,
                rekeyDrainNanos);
    }

    /** @return a copy with rekey switched on or off */
    public SessionConfig withRekeyEnabled(final boolean v) {
        return new SessionConfig(idleTimeoutNanos, handshakeTimeoutNanos, resendBaseNanos, maxResends,
                queuePerDestination, maxQueuedDestinations, warmupPackets, coordsResponseIntervalNanos, datagramTtl,
                v, rekeyAfterNanos, rekeyJitterNanos, rekeyAfterMessages, rekeyDampeningNanos, rekeyCutoverNanos,
                rekeyDrainNanos);
    }
}
