package net.fips.dataplane.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

class TreeDistanceTest {
    static NodeAddr a(final int v) {
        final byte[] b = new byte[16];
        b[0] = (byte) v;
        b[15] = (byte) (v * 7);
        return NodeAddr.of(b);
    }

    static Coords c(final int... ids) {
        final NodeAddr[] out = new NodeAddr[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = a(ids[i]);
        }
        return Coords.of(out);
    }

    private static long both(final Coords x, final Coords y) {
        final long d = TreeDistance.distance(x, y);
        assertEquals(d, TreeDistance.distance(TreeDistance.his(x), TreeDistance.los(x), x.size(),
                TreeDistance.his(y), TreeDistance.los(y), y.size()), "array form agrees");
        assertEquals(d, TreeDistance.distance(y, x), "symmetric");
        return d;
    }

    @Test
    void sameNodeSiblingsAncestorCousins() {
        assertEquals(0, both(c(3, 1, 0), c(3, 1, 0)));
        assertEquals(2, both(c(3, 1, 0), c(4, 1, 0)), "siblings");
        assertEquals(1, both(c(3, 1, 0), c(1, 0)), "parent");
        assertEquals(2, both(c(3, 1, 0), c(0)), "root from depth 2");
        assertEquals(4, both(c(5, 3, 1, 0), c(6, 4, 1, 0)), "cousins");
        assertEquals(4, both(c(5, 3, 1, 0), c(2, 0)), "through the root");
    }

    @Test
    void differentRootsAndEmptyAreInfinite() {
        assertEquals(TreeDistance.INFINITE, both(c(3, 1, 0), c(3, 1, 9)));
        assertEquals(TreeDistance.INFINITE, both(c(0), c(9)));
        assertEquals(TreeDistance.INFINITE, both(c(0), Coords.EMPTY));
    }

    @Test
    void onlyTheCommonSuffixCounts() {
        // Same entry at the same depth under different parents is not common ancestry.
        assertEquals(6, both(c(7, 2, 1, 0), c(8, 2, 3, 0)));
    }
}
