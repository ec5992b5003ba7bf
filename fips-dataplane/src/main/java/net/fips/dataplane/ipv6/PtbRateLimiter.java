package net.fips.dataplane.ipv6;

/**
 * Per-source minimum interval between ICMPv6 Packet Too Big messages (routing-session.md §5.8, §9 item 15): a PTB
 * to a source address is allowed when none was allowed to it within the last {@code minIntervalNanos}
 * (default {@value #DEFAULT_MIN_INTERVAL_NANOS} ns = 100 ms); an allowed PTB records the time, a refused one does
 * not.
 * <p>
 * Allocation-free: a fixed open-addressing table of {@code capacity} entries (address hi/lo + last time) probed
 * over a window of {@value #PROBE_WINDOW} slots. An entry older than the interval is equivalent to no entry, so it
 * is reused freely and no clean-up pass is needed (the reference prunes entries after 10 s for the same reason). If
 * more than {@value #PROBE_WINDOW} sources share a window within one interval, the oldest entry is overwritten:
 * the limiter then errs towards sending one PTB too many, never towards suppressing one that the reference sends.
 * <p>
 * Time comes from the caller (nanoseconds on any monotonic clock). Single writer: not thread-safe.
 */
public final class PtbRateLimiter {
    /** The reference's interval: 100 ms. */
    public static final long DEFAULT_MIN_INTERVAL_NANOS = 100_000_000L;
    /** Default table size. */
    public static final int DEFAULT_CAPACITY = 1024;
    /** Slots probed per lookup. */
    public static final int PROBE_WINDOW = 8;

    private final long[] his;
    private final long[] los;
    private final long[] times;
    private final boolean[] used;
    private final int mask;
    private final long minIntervalNanos;

    /** A limiter with the reference's 100 ms interval and {@value #DEFAULT_CAPACITY} entries. */
    public PtbRateLimiter() {
        this(DEFAULT_CAPACITY, DEFAULT_MIN_INTERVAL_NANOS);
    }

    /**
     * @param capacity         table entries, rounded up to a power of two (at least {@value #PROBE_WINDOW})
     * @param minIntervalNanos minimum time between two PTBs to one source
     */
    public PtbRateLimiter(final int capacity, final long minIntervalNanos) {
        if (capacity < 1 || capacity > 1 << 24) {
            throw new IllegalArgumentException("capacity out of range: " + capacity);
        }
        if (minIntervalNanos < 0) {
            throw new IllegalArgumentException("negative interval");
        }
        final int pow2 = Integer.bitCount(capacity) == 1 ? capacity : Integer.highestOneBit(capacity) << 1;
        final int size = Math.max(PROBE_WINDOW, pow2);
        this.his = new long[size];
        this.los = new long[size];
        this.times = new long[size];
        this.used = new boolean[size];
        this.mask = size - 1;
        this.minIntervalNanos = minIntervalNanos;
    }

    /** @return the table size */
    public int capacity() {
        return mask + 1;
    }

    /**
     * Decides whether a PTB may go to source {@code (srcHi, srcLo)} now, and records it when it may.
     *
     * @param nowNanos the caller's clock
     * @return true to send, false when one was sent to this source less than the interval ago
     */
    public boolean shouldSend(final long srcHi, final long srcLo, final long nowNanos) {
        final int start = index(srcHi, srcLo);
        int free = -1;
        int oldest = start;
        for (int k = 0; k < PROBE_WINDOW; k++) {
            final int i = (start + k) & mask;
            if (!used[i]) {
                if (free < 0) {
                    free = i;
                }
                continue;
            }
            final boolean fresh = nowNanos - times[i] < minIntervalNanos;
            if (his[i] == srcHi && los[i] == srcLo) {
                if (fresh) {
                    return false;
                }
                times[i] = nowNanos;
                return true;
            }
            if (!fresh && free < 0) {
                free = i;
            }
            if (times[i] - times[oldest] < 0 || !used[oldest]) {
                oldest = i;
            }
        }
        final int slot = free >= 0 ? free : oldest;
        used[slot] = true;
        his[slot] = srcHi;
        los[slot] = srcLo;
        times[slot] = nowNanos;
        return true;
    }

    private int index(final long hi, final long lo) {
        long h = hi * 0x9E37_79B9_7F4A_7C15L ^ lo;
        h ^= h >>> 33;
        h *= 0xFF51_AFD7_ED55_8CCDL;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
