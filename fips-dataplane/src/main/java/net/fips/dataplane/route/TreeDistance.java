package net.fips.dataplane.route;

import java.util.List;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Tree distance between two coordinates (routing-session.md §1.5), in hops through their lowest common ancestor.
 * Coordinates are address lists ordered self first, root last. Different roots (or an empty coordinate) give
 * {@link #INFINITE}; otherwise, with {@code c} the length of the common suffix (compared from the root end),
 * the distance is {@code (len_a - c) + (len_b - c)}. Only addresses take part.
 *
 * <p>The array forms hold a coordinate as two parallel arrays of the addresses' big-endian halves
 * ({@link NodeAddr#hi()}, {@link NodeAddr#lo()}) and never allocate.
 */
public final class TreeDistance {
    /** The distance between coordinates in different trees (the reference's {@code usize::MAX}). */
    public static final long INFINITE = Long.MAX_VALUE;

    private TreeDistance() {
    }

    /** Distance between two coordinates. */
    public static long distance(final Coords a, final Coords b) {
        final List<NodeAddr> x = a.addrs();
        final List<NodeAddr> y = b.addrs();
        final int n = x.size();
        final int m = y.size();
        if (n == 0 || m == 0 || !x.get(n - 1).equals(y.get(m - 1))) {
            return INFINITE;
        }
        int c = 1;
        while (c < n && c < m && x.get(n - 1 - c).equals(y.get(m - 1 - c))) {
            c++;
        }
        return (long) (n - c) + (m - c);
    }

    /** Distance between coordinates {@code a[0..aLen)} and {@code b[0..bLen)} in array form. */
    public static long distance(final long[] aHi, final long[] aLo, final int aLen, final long[] bHi,
                                final long[] bLo, final int bLen) {
        if (aLen == 0 || bLen == 0 || aHi[aLen - 1] != bHi[bLen - 1] || aLo[aLen - 1] != bLo[bLen - 1]) {
            return INFINITE;
        }
        int c = 1;
        while (c < aLen && c < bLen && aHi[aLen - 1 - c] == bHi[bLen - 1 - c]
                && aLo[aLen - 1 - c] == bLo[bLen - 1 - c]) {
            c++;
        }
        return (long) (aLen - c) + (bLen - c);
    }

    /** True when {@code (hi, lo)} is one of the first {@code len} entries (self included). */
    static boolean contains(final long[] hi, final long[] lo, final int len, final long addrHi, final long addrLo) {
        for (int i = 0; i < len; i++) {
            if (hi[i] == addrHi && lo[i] == addrLo) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code (hi, lo)} is a strict ancestor (an entry after the first). */
    static boolean hasAncestor(final long[] hi, final long[] lo, final int len, final long addrHi,
                               final long addrLo) {
        for (int i = 1; i < len; i++) {
            if (hi[i] == addrHi && lo[i] == addrLo) {
                return true;
            }
        }
        return false;
    }

    /** The high halves of {@code c}'s addresses, self first. */
    static long[] his(final Coords c) {
        final long[] out = new long[c.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.addrs().get(i).hi();
        }
        return out;
    }

    /** The low halves of {@code c}'s addresses, self first. */
    static long[] los(final Coords c) {
        final long[] out = new long[c.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.addrs().get(i).lo();
        }
        return out;
    }
}
