package net.fips.dataplane.route;

import java.util.Arrays;

/**
 * An immutable open-addressing map from a node address, given as its two big-endian halves, to a small
 * non-negative int (an index into the owner's arrays). Lookups never allocate; built once, then read by any
 * number of threads (all fields final).
 */
final class AddrIndex {
    static final int MISSING = -1;

    private final long[] his;
    private final long[] los;
    private final int[] values;
    private final int mask;

    /** Maps {@code (his[i], los[i])} to {@code i} for {@code i < n}; later duplicates are ignored. */
    AddrIndex(final long[] keyHi, final long[] keyLo, final int n) {
        int cap = 4;
        while (cap < n * 2) {
            cap <<= 1;
        }
        this.mask = cap - 1;
        this.his = new long[cap];
        this.los = new long[cap];
        this.values = new int[cap];
        Arrays.fill(values, MISSING);
        for (int i = 0; i < n; i++) {
            int s = slot(keyHi[i], keyLo[i]);
            while (values[s] != MISSING && !(his[s] == keyHi[i] && los[s] == keyLo[i])) {
                s = (s + 1) & mask;
            }
            if (values[s] == MISSING) {
                his[s] = keyHi[i];
                los[s] = keyLo[i];
                values[s] = i;
            }
        }
    }

    /** @return the value for {@code (hi, lo)}, or {@link #MISSING} */
    int get(final long hi, final long lo) {
        int s = slot(hi, lo);
        while (true) {
            final int v = values[s];
            if (v == MISSING || (his[s] == hi && los[s] == lo)) {
                return v;
            }
            s = (s + 1) & mask;
        }
    }

    private int slot(final long hi, final long lo) {
        long h = hi * 0x9E3779B97F4A7C15L ^ Long.rotateLeft(lo, 31) * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
