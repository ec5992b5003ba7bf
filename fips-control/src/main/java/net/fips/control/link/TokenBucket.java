package net.fips.control.link;

/**
 * The global msg1 token bucket (crypto-link §5.16): {@code capacity} tokens, refilled continuously at
 * {@code ratePerSecond}, one token per received msg1 of any kind. Time is given by the caller.
 */
final class TokenBucket {
    private final double capacity;
    private final double ratePerNano;
    private double tokens;
    private long lastNanos;

    TokenBucket(final int capacity, final double ratePerSecond, final long nowNanos) {
        this.capacity = capacity;
        this.ratePerNano = ratePerSecond / 1e9;
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    boolean tryAcquire(final long nowNanos) {
        final long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + elapsed * ratePerNano);
            lastNanos = nowNanos;
        }
        if (tokens >= 1.0) {
            tokens -= 1.0;
            return true;
        }
        return false;
    }
}
