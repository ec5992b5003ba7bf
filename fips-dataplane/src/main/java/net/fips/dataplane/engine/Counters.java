package net.fips.dataplane.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One agent's counters, indexed by {@link DataPlaneCounter}. Single writer (the agent), any readers: the writer
 * stores with opaque (atomic, no fence) so readers on other threads see whole values that are at most a moment
 * old. {@link #increment} on a shared instance would lose updates; give each agent its own.
 */
final class Counters {
    private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int STRIDE = 1;

    private final long[] values = new long[DataPlaneCounter.values().length * STRIDE];

    /** Writer only. */
    void increment(final DataPlaneCounter counter) {
        add(counter, 1);
    }

    /** Writer only. */
    void add(final DataPlaneCounter counter, final long delta) {
        final int i = counter.ordinal();
        // opaque: the single writer reads its own last value; readers only need atomicity, not ordering
        ELEMENT.setOpaque(values, i, (long) ELEMENT.getOpaque(values, i) + delta);
    }

    /** Any thread. */
    long get(final DataPlaneCounter counter) {
        return (long) ELEMENT.getOpaque(values, counter.ordinal());
    }
}
