package net.fips.control.tree;

/** The spanning tree's {@link TreeCounter}s, shared by its parts. Control thread only. */
final class TreeCounts {
    private final long[] counters = new long[TreeCounter.values().length];

    void count(final TreeCounter c) {
        counters[c.ordinal()]++;
    }

    long get(final TreeCounter c) {
        return counters[c.ordinal()];
    }
}
