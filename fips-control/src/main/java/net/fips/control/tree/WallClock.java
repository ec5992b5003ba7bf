package net.fips.control.tree;

/**
 * The wall clock the control logic reads for declaration timestamps and for seeding sequence counters. Injected so a
 * simulator can drive it; production passes {@code System::currentTimeMillis}.
 */
@FunctionalInterface
public interface WallClock {
    /** @return milliseconds since the Unix epoch */
    long unixMillis();

    /** @return seconds since the Unix epoch */
    default long unixSeconds() {
        return Math.floorDiv(unixMillis(), 1000L);
    }
}
