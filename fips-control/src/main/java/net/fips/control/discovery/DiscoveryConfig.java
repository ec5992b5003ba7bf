package net.fips.control.discovery;

import java.util.List;

import net.fips.control.config.NodeConfig;

/**
 * Discovery settings ({@code node.discovery.*}), defaults as the reference v0.4.1.
 *
 * @param ttl                     hop limit of a fresh LookupRequest (u8; default 64)
 * @param attemptTimeoutsSecs     per-attempt wait before the next attempt or the unreachable verdict; its length is
 *                                the number of attempts (default [1, 2, 4, 8], about 15 s in all; an empty list
 *                                makes every lookup unreachable at the first tick, as the reference)
 * @param recentExpirySecs        how long a seen request_id is remembered for dedup and reverse path (default 10)
 * @param backoffBaseSecs         suppression after a failed lookup, doubled per consecutive failure (default 0: off)
 * @param backoffMaxSecs          cap of that suppression (default 0)
 * @param forwardMinIntervalSecs  a transit forwards at most one request per target per this interval (default 2;
 *                                0 disables the limit)
 * @param maxRecentRequests       capacity of the request_id table (default 4096)
 */
public record DiscoveryConfig(int ttl, List<Long> attemptTimeoutsSecs, long recentExpirySecs, long backoffBaseSecs,
        long backoffMaxSecs, long forwardMinIntervalSecs, int maxRecentRequests) {
    /** The reference's default ttl. */
    public static final int DEFAULT_TTL = 64;
    /** The reference's request_id table capacity. */
    public static final int DEFAULT_MAX_RECENT_REQUESTS = 4096;

    /** Checks ranges and copies the list. */
    public DiscoveryConfig {
        if (ttl < 0 || ttl > 255) {
            throw new IllegalArgumentException("ttl must be 0..255");
        }
        attemptTimeoutsSecs = List.copyOf(attemptTimeoutsSecs);
        for (final Long t : attemptTimeoutsSecs) {
            if (t < 0) {
                throw new IllegalArgumentException("attempt timeouts must not be negative");
            }
        }
        if (recentExpirySecs < 0 || backoffBaseSecs < 0 || backoffMaxSecs < 0 || forwardMinIntervalSecs < 0) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        if (maxRecentRequests < 1) {
            throw new IllegalArgumentException("maxRecentRequests must be at least 1");
        }
    }

    /** @return the v0.4.1 defaults */
    public static DiscoveryConfig defaults() {
        return new DiscoveryConfig(DEFAULT_TTL, List.of(1L, 2L, 4L, 8L), 10, 0, 0, 2, DEFAULT_MAX_RECENT_REQUESTS);
    }

    /**
     * @param lookup the parsed {@code node.discovery} scalars
     * @return the same settings with the reference's request table capacity
     */
    public static DiscoveryConfig from(final NodeConfig.Lookup lookup) {
        return new DiscoveryConfig(lookup.ttl(), lookup.attemptTimeoutsSecs(), lookup.recentExpirySecs(),
                lookup.backoffBaseSecs(), lookup.backoffMaxSecs(), lookup.forwardMinIntervalSecs(),
                DEFAULT_MAX_RECENT_REQUESTS);
    }

    /** @param v new ttl @return a copy with it */
    public DiscoveryConfig withTtl(final int v) {
        return new DiscoveryConfig(v, attemptTimeoutsSecs, recentExpirySecs, backoffBaseSecs, backoffMaxSecs,
                forwardMinIntervalSecs, maxRecentRequests);
    }

    /** @param base base seconds @param max cap seconds @return a copy with that backoff */
    public DiscoveryConfig withBackoff(final long base, final long max) {
        return new DiscoveryConfig(ttl, attemptTimeoutsSecs, recentExpirySecs, base, max, forwardMinIntervalSecs,
                maxRecentRequests);
    }

    /** @param secs new forward interval (0 = unlimited) @return a copy with it */
    public DiscoveryConfig withForwardMinIntervalSecs(final long secs) {
        return new DiscoveryConfig(ttl, attemptTimeoutsSecs, recentExpirySecs, backoffBaseSecs, backoffMaxSecs, secs,
                maxRecentRequests);
    }
}
