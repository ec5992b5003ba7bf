package net.fips.dataplane.engine;

/**
 * An immutable map from {@code (transportId, receiver_idx)} to link id, for the receive threads' O(1) dispatch of
 * established frames (crypto-link.md §5.6). Open addressing with linear probing over two primitive arrays, load at
 * most one half, so a lookup touches one or two cache lines and never allocates.
 *
 * <p>Changes make a new table ({@link #with}, {@link #without}); the holder publishes it with one release store and
 * readers pick it up with an acquire load. Updates are rare (link set-up, rekey, drain end) and the table small,
 * so copying it is cheaper than any concurrent structure on the per-packet read side.
 */
final class IndexTable {
    /** Returned by {@link #get} for an unknown key. */
    static final long MISSING = Long.MIN_VALUE;
    /** The empty table. */
    static final IndexTable EMPTY = new IndexTable(new long[8], new long[8], new boolean[8], 0);

    private final long[] keys;
    private final long[] values;
    private final boolean[] used;
    private final int mask;
    private final int size;

    private IndexTable(final long[] keys, final long[] values, final boolean[] used, final int size) {
        this.keys = keys;
        this.values = values;
        this.used = used;
        this.mask = keys.length - 1;
        this.size = size;
    }

    /** @return the lookup key of {@code receiverIdx} on {@code transportId} */
    static long key(final int transportId, final int receiverIdx) {
        return ((long) transportId << 32) | (receiverIdx & 0xFFFF_FFFFL);
    }

    /** @return the link id for {@code key}, or {@link #MISSING} */
    long get(final long key) {
        final long[] keys = this.keys;
        final boolean[] used = this.used;
        final int mask = this.mask;
        int i = hash(key) & mask;
        while (used[i]) {
            if (keys[i] == key) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        return MISSING;
    }

    /** @return entries */
    int size() {
        return size;
    }

    /** @return a copy with {@code key -> linkId} added or replaced */
    IndexTable with(final long key, final long linkId) {
        final boolean present = get(key) != MISSING;
        final int newSize = present ? size : size + 1;
        int capacity = keys.length;
        while (newSize * 2 > capacity) {
            capacity <<= 1;
        }
        final IndexTable copy = new IndexTable(new long[capacity], new long[capacity], new boolean[capacity], newSize);
        for (int i = 0; i < keys.length; i++) {
            if (used[i] && keys[i] != key) {
                copy.put(keys[i], values[i]);
            }
        }
        copy.put(key, linkId);
        return copy;
    }

    /** @return a copy without {@code key} (this table if absent) */
    IndexTable without(final long key) {
        if (get(key) == MISSING) {
            return this;
        }
        final IndexTable copy = new IndexTable(new long[keys.length], new long[keys.length], new boolean[keys.length],
                size - 1);
        for (int i = 0; i < keys.length; i++) {
            if (used[i] && keys[i] != key) {
                copy.put(keys[i], values[i]);
            }
        }
        return copy;
    }

    /** Construction only: the table is not yet published. */
    private void put(final long key, final long value) {
        int i = hash(key) & mask;
        while (used[i]) {
            i = (i + 1) & mask;
        }
        used[i] = true;
        keys[i] = key;
        values[i] = value;
    }

    private static int hash(final long key) {
        // Indices are random already, but the transport id sits in the high half: mix both into the low bits.
        final long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
