package net.fips.control.metrics;

/** Which ring a history query reads: 1 s samples (the last hour) or 1 min samples (the last day). */
public enum Granularity {
    /** 1 s samples, {@value StatsHistory#FAST_RING_SECONDS} of them. */
    FAST(1, StatsHistory.FAST_RING_SECONDS),
    /** 1 min samples, {@value StatsHistory#SLOW_RING_MINUTES} of them. */
    SLOW(60, StatsHistory.SLOW_RING_MINUTES);

    private final int seconds;
    private final int capacity;

    Granularity(final int seconds, final int capacity) {
        this.seconds = seconds;
        this.capacity = capacity;
    }

    /** @return seconds per sample */
    public int seconds() {
        return seconds;
    }

    /** @return samples the ring holds */
    public int capacity() {
        return capacity;
    }

    /**
     * Parses the {@code granularity} parameter.
     *
     * @param s {@code 1s} or {@code 1m}
     * @return the granularity
     * @throws IllegalArgumentException with the reference's message, {@code unknown granularity: X (expected 1s
     *                                  or 1m)}
     */
    public static Granularity parse(final String s) {
        return switch (s) {
            case "1s" -> FAST;
            case "1m" -> SLOW;
            default -> throw new IllegalArgumentException("unknown granularity: " + s + " (expected 1s or 1m)");
        };
    }

    /**
     * Parses a {@code window} parameter, {@code <N>s}, {@code <N>m} or {@code <N>h}, with the reference's error
     * messages ({@code empty duration}, {@code invalid duration: X}, {@code unknown duration unit: U (expected s,
     * m, h)}).
     *
     * @param s the text
     * @return the window in seconds
     * @throws IllegalArgumentException when it does not parse
     */
    public static long parseWindowSeconds(final String s) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        final int last = s.offsetByCodePoints(s.length(), -1);
        final String digits = s.substring(0, last);
        final String unit = s.substring(last);
        final long n;
        // The reference parses a u64: digits only (a leading '+' is accepted by Rust's parser as well).
        final String body = digits.startsWith("+") ? digits.substring(1) : digits;
        if (body.isEmpty() || !body.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("invalid duration: " + s);
        }
        try {
            n = Long.parseUnsignedLong(body);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("invalid duration: " + s, e);
        }
        final long mult = switch (unit) {
            case "s" -> 1;
            case "m" -> 60;
            case "h" -> 3600;
            default -> throw new IllegalArgumentException("unknown duration unit: " + unit + " (expected s, m, h)");
        };
        // The reference multiplies u64s (a huge value would overflow there); clamp, the ring caps the count anyway.
        return n > Long.MAX_VALUE / mult || n < 0 ? Long.MAX_VALUE : n * mult;
    }
}
