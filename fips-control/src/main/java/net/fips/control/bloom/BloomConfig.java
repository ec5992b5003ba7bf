package net.fips.control.bloom;

/**
 * Bloom tunables ({@code node.bloom.*}, routing-session §2.4-§2.6, §7).
 *
 * @param updateDebounceNanos   minimum gap between two FilterAnnounces to one peer (500 ms)
 * @param maxInboundFpr         anti-poison cap on {@code fill^k} of a received filter (0.20)
 * @param ownFprWarnIntervalNanos minimum gap between two warnings about our own outgoing filter (60 s)
 */
public record BloomConfig(long updateDebounceNanos, double maxInboundFpr, long ownFprWarnIntervalNanos) {
    /** Refuses negative durations and a cap outside 0..1. */
    public BloomConfig {
        if (updateDebounceNanos < 0 || ownFprWarnIntervalNanos < 0) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        if (!(maxInboundFpr >= 0.0 && maxInboundFpr <= 1.0)) {
            throw new IllegalArgumentException("max_inbound_fpr must be in 0..1");
        }
    }

    /** @return the v0.4.1 defaults */
    public static BloomConfig defaults() {
        return new BloomConfig(500_000_000L, 0.20, 60_000_000_000L);
    }
}
