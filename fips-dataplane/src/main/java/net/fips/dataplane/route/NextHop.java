package net.fips.dataplane.route;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The one implementation of {@code find_next_hop} (routing-session.md §4.3), over a {@link ForwardingTable}:
 * <ol>
 *   <li>destination is us: {@link #LOCAL};</li>
 *   <li>destination is a peer that can send: that peer (no coordinates needed);</li>
 *   <li>destination coordinates from the cache, looked up with touch (TTL refreshed) - or, when the caller
 *       supplies coordinates carried in the packet itself, those (the reference caches them first, then routes);
 *       none: {@link #NO_ROUTE} (bloom filters are never consulted without coordinates);</li>
 *   <li>bloom candidates: peers whose inbound filter contains the destination, that can send and whose tree
 *       distance to the destination is strictly smaller than ours; the least by (link cost, distance, address);</li>
 *   <li>greedy tree fallback (same root only): the peer with coordinates nearest the destination (ties: smaller
 *       address), used only if strictly closer than us and able to send;</li>
 *   <li>otherwise {@link #NO_ROUTE_HAD_COORDS}.</li>
 * </ol>
 * Every hop strictly decreases the tree distance to the destination (or is the destination), so routes are
 * loop-free when nodes agree on coordinates.
 *
 * <p>An instance holds a SHA-256 digest and scratch space, so it is confined to one thread (each worker has one;
 * the control plane has its own). {@link #find} never allocates.
 */
public final class NextHop {
    /** The destination is this node. */
    public static final int LOCAL = -1;
    /** No route, and no coordinates for the destination (the error signal is CoordsRequired). */
    public static final int NO_ROUTE = -2;
    /** No route although coordinates were known (the error signal is PathBroken). */
    public static final int NO_ROUTE_HAD_COORDS = -3;

    private final MessageDigest sha256;
    private final byte[] addrBytes = new byte[NodeAddr.SIZE];
    private final byte[] digest = new byte[32];
    private long[] lastHi;
    private long[] lastLo;
    private int lastLen;

    /** A router for the calling thread. */
    public NextHop() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
        }
    }

    /** As {@link #find(ForwardingTable, long, long, long, long[], long[], int)} without packet coordinates. */
    public int find(final ForwardingTable t, final long destHi, final long destLo, final long nowNanos) {
        return find(t, destHi, destLo, nowNanos, null, null, 0);
    }

    /**
     * Chooses the next hop for {@code (destHi, destLo)}; allocation-free.
     *
     * @param t        the table
     * @param nowNanos the injected clock's now (for cache expiry and touch)
     * @param coordHi  destination coordinates carried by the packet (self first), high halves; or null
     * @param coordLo  low halves
     * @param coordLen entries in them; 0 when the packet carries none
     * @return a peer index of {@code t}, or {@link #LOCAL}, {@link #NO_ROUTE}, {@link #NO_ROUTE_HAD_COORDS}
     */
    public int find(final ForwardingTable t, final long destHi, final long destLo, final long nowNanos,
                    final long[] coordHi, final long[] coordLo, final int coordLen) {
        lastLen = 0;
        if (destHi == t.selfHi && destLo == t.selfLo) {
            return LOCAL;
        }
        final int direct = t.peerIndex(destHi, destLo);
        if (direct >= 0 && t.canSend[direct]) {
            return direct;
        }
        final CoordCache.Entry entry = t.cache.getAndTouch(destHi, destLo, nowNanos);
        final long[] dHi;
        final long[] dLo;
        final int dLen;
        if (coordLen > 0) {
            dHi = coordHi;
            dLo = coordLo;
            dLen = coordLen;
        } else if (entry != null) {
            dHi = entry.coordHi;
            dLo = entry.coordLo;
            dLen = dHi.length;
        } else {
            return NO_ROUTE;
        }
        lastHi = dHi;
        lastLo = dLo;
        lastLen = dLen;
        final long myDist = TreeDistance.distance(t.selfCoordHi, t.selfCoordLo, t.selfCoordHi.length, dHi, dLo,
                dLen);
        if (t.anyFilter) {
            final long h1;
            final long h2;
            if (entry != null) {
                h1 = entry.bloomH1;
                h2 = entry.bloomH2;
            } else {
                hash(destHi, destLo);
                h1 = le64(digest, 0);
                h2 = le64(digest, 8);
            }
            final int bloom = bestBloomCandidate(t, h1, h2, dHi, dLo, dLen, myDist);
            if (bloom >= 0) {
                return bloom;
            }
        }
        return greedy(t, dHi, dLo, dLen, myDist);
    }

    private static int bestBloomCandidate(final ForwardingTable t, final long h1, final long h2, final long[] dHi,
                                          final long[] dLo, final int dLen, final long myDist) {
        int best = -1;
        double bestCost = 0;
        long bestDist = 0;
        for (int i = 0; i < t.peerCount; i++) {
            if (!t.canSend[i] || !t.filterContains(i, h1, h2)) {
                continue;
            }
            final double cost = t.cost[i];
            final long[] pHi = t.coordHi[i];
            final long dist = pHi == null ? TreeDistance.INFINITE
                    : TreeDistance.distance(pHi, t.coordLo[i], pHi.length, dHi, dLo, dLen);
            if (dist >= myDist) {
                continue;
            }
            // The reference's comparison, literally (so a NaN cost never wins over a number).
            if (best < 0 || cost < bestCost || (cost == bestCost && dist < bestDist)
                    || (cost == bestCost && dist == bestDist && lessThan(t, i, best))) {
                best = i;
                bestCost = cost;
                bestDist = dist;
            }
        }
        return best;
    }

    private static int greedy(final ForwardingTable t, final long[] dHi, final long[] dLo, final int dLen,
                              final long myDist) {
        final long[] me = t.selfCoordHi;
        if (me[me.length - 1] != dHi[dLen - 1] || t.selfCoordLo[me.length - 1] != dLo[dLen - 1]) {
            return NO_ROUTE_HAD_COORDS;
        }
        int best = -1;
        long bestDist = 0;
        for (int i = 0; i < t.peerCount; i++) {
            final long[] pHi = t.coordHi[i];
            if (pHi == null) {
                continue;
            }
            final long dist = TreeDistance.distance(pHi, t.coordLo[i], pHi.length, dHi, dLo, dLen);
            if (best < 0 || dist < bestDist || (dist == bestDist && lessThan(t, i, best))) {
                best = i;
                bestDist = dist;
            }
        }
        // As the reference: the nearest peer or nothing (a nearest peer that cannot send is not replaced).
        return best >= 0 && bestDist < myDist && t.canSend[best] ? best : NO_ROUTE_HAD_COORDS;
    }

    private static boolean lessThan(final ForwardingTable t, final int a, final int b) {
        final int c = Long.compareUnsigned(t.peerHi[a], t.peerHi[b]);
        return c < 0 || (c == 0 && Long.compareUnsigned(t.peerLo[a], t.peerLo[b]) < 0);
    }

    private void hash(final long hi, final long lo) {
        for (int i = 0; i < 8; i++) {
            addrBytes[i] = (byte) (hi >>> (56 - 8 * i));
            addrBytes[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        sha256.update(addrBytes, 0, NodeAddr.SIZE);
        try {
            sha256.digest(digest, 0, digest.length);
        } catch (final DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long le64(final byte[] b, final int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }

    /**
     * The route class (§4.4) of the forward {@link #find} just chose ({@code peer}, a peer index it returned),
     * judged with the destination coordinates that call used. Allocation-free.
     */
    public RouteClass classifyLast(final ForwardingTable t, final long destHi, final long destLo, final int peer) {
        return classify(t, destHi, destLo, peer, lastHi, lastLo, lastLen);
    }

    /**
     * The route class of forwarding towards {@code (destHi, destLo)} through peer index {@code peer}, given the
     * destination's coordinates ({@code dLen} 0 when unknown: "not below the peer").
     */
    public static RouteClass classify(final ForwardingTable t, final long destHi, final long destLo, final int peer,
                                      final long[] dHi, final long[] dLo, final int dLen) {
        final long pHi = t.peerHi[peer];
        final long pLo = t.peerLo[peer];
        if (pHi == destHi && pLo == destLo) {
            return RouteClass.DIRECT_PEER;
        }
        if (TreeDistance.hasAncestor(t.selfCoordHi, t.selfCoordLo, t.selfCoordHi.length, pHi, pLo)) {
            return RouteClass.TREE_UP;
        }
        final boolean below = dLen > 0 && TreeDistance.hasAncestor(dHi, dLo, dLen, pHi, pLo);
        final long[] cHi = t.coordHi[peer];
        if (cHi != null && TreeDistance.hasAncestor(cHi, t.coordLo[peer], cHi.length, t.selfHi, t.selfLo)) {
            return below ? RouteClass.TREE_DOWN : RouteClass.TREE_DOWN_CROSS;
        }
        return below ? RouteClass.CROSSLINK_DESCEND : RouteClass.CROSSLINK_ASCEND;
    }

    /**
     * Object form for the control plane and simulators.
     *
     * @param result     a peer index, or {@link #LOCAL}, {@link #NO_ROUTE}, {@link #NO_ROUTE_HAD_COORDS}
     * @param peer       the chosen peer, or null
     * @param routeClass its route class, or null
     */
    public record Route(int result, ForwardingTable.Peer peer, RouteClass routeClass) {
        /** @return true when a peer was chosen */
        public boolean found() {
            return result >= 0;
        }
    }

    /** Routes to {@code dest} with the cached coordinates (touching them). */
    public Route route(final ForwardingTable t, final NodeAddr dest, final long nowNanos) {
        return route(t, dest, null, nowNanos);
    }

    /** Routes to {@code dest}, preferring {@code destCoords} (may be null) over the cache's. */
    public Route route(final ForwardingTable t, final NodeAddr dest, final Coords destCoords, final long nowNanos) {
        final int r = destCoords == null || destCoords.isEmpty()
                ? find(t, dest.hi(), dest.lo(), nowNanos)
                : find(t, dest.hi(), dest.lo(), nowNanos, TreeDistance.his(destCoords), TreeDistance.los(destCoords),
                        destCoords.size());
        if (r < 0) {
            return new Route(r, null, null);
        }
        return new Route(r, t.peer(r), classifyLast(t, dest.hi(), dest.lo(), r));
    }
}
