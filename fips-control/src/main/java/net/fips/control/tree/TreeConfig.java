package net.fips.control.tree;

/**
 * Spanning-tree tunables (routing-session.md §1.9; {@code node.tree.*}). Durations are nanoseconds of the monotonic
 * clock the caller passes in.
 *
 * @param announceMinIntervalNanos per-peer TreeAnnounce limiter (500 ms)
 * @param parentHysteresis         fraction a candidate must improve on the current parent (0.2), clamped to 0..1
 * @param holdDownNanos            no non-mandatory switch this long after the last {@code set_parent} (30 s; 0 off)
 * @param reevalIntervalNanos      periodic re-evaluation and re-broadcast cadence (60 s; 0 disables both)
 * @param flapThreshold            parent changes inside one window that engage dampening (4)
 * @param flapWindowNanos          flap counting window (60 s)
 * @param flapDampeningNanos       how long dampening lasts (120 s)
 */
public record TreeConfig(long announceMinIntervalNanos, double parentHysteresis, long holdDownNanos,
        long reevalIntervalNanos, int flapThreshold, long flapWindowNanos, long flapDampeningNanos) {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    /** Clamps the hysteresis and refuses negative durations. */
    public TreeConfig {
        if (announceMinIntervalNanos < 0 || holdDownNanos < 0 || reevalIntervalNanos < 0 || flapWindowNanos < 0
                || flapDampeningNanos < 0) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        parentHysteresis = Double.isNaN(parentHysteresis) ? 0.0 : Math.clamp(parentHysteresis, 0.0, 1.0);
    }

    /** @return the v0.4.1 defaults */
    public static TreeConfig defaults() {
        return new TreeConfig(500 * MS, 0.2, 30 * S, 60 * S, 4, 60 * S, 120 * S);
    }

    /**
     * @param nanos new hold-down
     * @return a copy with that hold-down
     */
    public TreeConfig withHoldDownNanos(final long nanos) {
        return new TreeConfig(announceMinIntervalNanos, parentHysteresis, nanos, reevalIntervalNanos, flapThreshold,
                flapWindowNanos, flapDampeningNanos);
    }

    /**
     * @param h new hysteresis
     * @return a copy with that hysteresis
     */
    public TreeConfig withParentHysteresis(final double h) {
        return new TreeConfig(announceMinIntervalNanos, h, holdDownNanos, reevalIntervalNanos, flapThreshold,
                flapWindowNanos, flapDampeningNanos);
    }

    /**
     * @param nanos new re-evaluation interval
     * @return a copy with that interval
     */
    public TreeConfig withReevalIntervalNanos(final long nanos) {
        return new TreeConfig(announceMinIntervalNanos, parentHysteresis, holdDownNanos, nanos, flapThreshold,
                flapWindowNanos, flapDampeningNanos);
    }
}
