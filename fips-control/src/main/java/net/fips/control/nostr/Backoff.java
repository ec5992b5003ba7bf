package net.fips.control.nostr;

/**
 * Exponential reconnect backoff: {@code initialMs}, doubled after each failed attempt, capped at {@code maxMs},
 * back to the start after a success. The reference's relay-startup loop waits 2, 4, 8 ... s capped at 60 s
 * (discovery-gateway.md §1.7), which is {@link #RELAY_DEFAULT}.
 *
 * @param initialMs first delay, at least 1
 * @param maxMs     cap, at least {@code initialMs}
 */
public record Backoff(long initialMs, long maxMs) {
    /** 2 s doubling to 60 s. */
    public static final Backoff RELAY_DEFAULT = new Backoff(2_000, 60_000);

    /** Checks the bounds. */
    public Backoff {
        if (initialMs < 1 || maxMs < initialMs) {
            throw new IllegalArgumentException("backoff needs 1 <= initialMs <= maxMs");
        }
    }

    /**
     * @param failures failed attempts so far (0 for the first retry)
     * @return the delay before the next attempt
     */
    public long delayMs(final int failures) {
        long d = initialMs;
        for (int i = 0; i < failures && d < maxMs; i++) {
            d = Math.min(maxMs, d * 2);
        }
        return Math.min(d, maxMs);
    }
}
