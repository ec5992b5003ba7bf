package net.fips.dataplane.engine;

import java.util.function.LongSupplier;

/**
 * A worker's view of the injected clock, read at most once per duty cycle rather than two or three times per
 * packet: the packets of one cycle came in one batch, and their timestamps are milliseconds. A command applied
 * mid-cycle (it may carry a newer session start) invalidates it, so the next {@link #now()} reads the clock again
 * and time never runs backwards against a start instant. Single-threaded: owned by its worker.
 */
final class CycleClock {
    private final LongSupplier clock;
    /** The clock as read in this cycle; valid while {@link #valid}. */
    private long nanos;
    private boolean valid;

    CycleClock(final LongSupplier clock) {
        this.clock = clock;
    }

    /** @return the clock as read once in this cycle (read now if it was not yet) */
    long now() {
        if (!valid) {
            nanos = clock.getAsLong();
            valid = true;
        }
        return nanos;
    }

    /** The next {@link #now()} reads the clock again: at the start of a cycle, and before and after commands. */
    void invalidate() {
        valid = false;
    }
}
