package net.fips.control.tree;

import java.util.List;

import net.fips.dataplane.wire.NodeAddr;

/** Coordinate arithmetic shared by the tree and routing (routing-session §1.5). */
public final class TreeCoordinates {
    /** Distance between coordinates with different roots (the reference's {@code usize::MAX}). */
    public static final int UNREACHABLE = Integer.MAX_VALUE;

    private TreeCoordinates() {
    }

    /**
     * Tree distance: hops from {@code a} up to the deepest common ancestor and down to {@code b}, computed from the
     * common suffix of the two address lists (self first, root last); {@link #UNREACHABLE} for different roots or
     * an empty coordinate.
     *
     * @param a one coordinate
     * @param b the other
     * @return the distance
     */
    public static int distance(final List<NodeAddr> a, final List<NodeAddr> b) {
        if (a.isEmpty() || b.isEmpty() || !a.getLast().equals(b.getLast())) {
            return UNREACHABLE;
        }
        int common = 0;
        int i = a.size() - 1;
        int j = b.size() - 1;
        while (i >= 0 && j >= 0 && a.get(i).equals(b.get(j))) {
            common++;
            i--;
            j--;
        }
        return (a.size() - common) + (b.size() - common);
    }

    /**
     * The reference's link cost {@code etx × (1 + srtt_ms / 100)} (routing-session §6.3).
     *
     * @param etx    expected transmission count (1.0 until loss is measured)
     * @param srttMs smoothed RTT in milliseconds
     * @return the cost
     */
    public static double linkCost(final double etx, final double srttMs) {
        return etx * (1.0 + srttMs / 100.0);
    }
}
