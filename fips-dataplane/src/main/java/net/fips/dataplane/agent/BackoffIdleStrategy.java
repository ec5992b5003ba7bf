package net.fips.dataplane.agent;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with an exponentially growing period up to a maximum; a busy agent never leaves the
 * spin phase. Once the period has grown to the maximum the strategy is {@link #isExhausted() exhausted}: the
 * data plane's workers and tx loops then park until signalled (within the data plane's idle park bound),
 * after about a millisecond of idleness with the defaults. Until then no producer pays for a wake-up, so traffic
 * with short gaps is handled as by pure polling. Polling alone, with the default maximum of 1 ms, an idle thread
 * would wake about a thousand times a second (about 1% of a core).
 */
public final class BackoffIdleStrategy implements IdleStrategy {
    /** Empty cycles spent spinning before yielding. */
    public static final int MAX_SPINS_DEFAULT = 100;
    /** Empty cycles spent yielding before parking. */
    public static final int MAX_YIELDS_DEFAULT = 10;
    /** First park period. */
    public static final long MIN_PARK_PERIOD_NS_DEFAULT = 1_000;
    /** Longest park period: bounds the latency of the first packet after an idle spell. */
    public static final long MAX_PARK_PERIOD_NS_DEFAULT = 1_000_000;

    private final int maxSpins;
    private final int maxYields;
    private final long minParkPeriodNs;
    private final long maxParkPeriodNs;
    private int spins;
    private int yields;
    private long parkPeriodNs;

    /** Creates a strategy with the defaults. */
    public BackoffIdleStrategy() {
        this(MAX_SPINS_DEFAULT, MAX_YIELDS_DEFAULT, MIN_PARK_PERIOD_NS_DEFAULT, MAX_PARK_PERIOD_NS_DEFAULT);
    }

    /**
     * @param maxSpins        empty cycles to spin
     * @param maxYields       further empty cycles to yield
     * @param minParkPeriodNs first park period, at least 1
     * @param maxParkPeriodNs longest park period, at least {@code minParkPeriodNs}
     */
    public BackoffIdleStrategy(final int maxSpins, final int maxYields, final long minParkPeriodNs,
                               final long maxParkPeriodNs) {
        if (maxSpins < 0 || maxYields < 0 || minParkPeriodNs < 1 || maxParkPeriodNs < minParkPeriodNs) {
            throw new IllegalArgumentException("bad back-off: spins " + maxSpins + ", yields " + maxYields
                    + ", park " + minParkPeriodNs + ".." + maxParkPeriodNs + " ns");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkPeriodNs = minParkPeriodNs;
        this.maxParkPeriodNs = maxParkPeriodNs;
        this.parkPeriodNs = minParkPeriodNs;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            reset();
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkPeriodNs);
            parkPeriodNs = Math.min(parkPeriodNs << 1, maxParkPeriodNs);
        }
    }

    @Override
    public boolean isExhausted() {
        return parkPeriodNs >= maxParkPeriodNs && spins >= maxSpins && yields >= maxYields;
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkPeriodNs = minParkPeriodNs;
    }
}
