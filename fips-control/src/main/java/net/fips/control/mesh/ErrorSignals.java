package net.fips.control.mesh;

import java.util.function.LongFunction;
import java.util.function.Supplier;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;
import net.fips.dataplane.wire.SessionDatagram;

/**
 * The error signals this node sends as a transit (routing-session §4.5): CoordsRequired or PathBroken for a datagram
 * it could not route, MtuExceeded for one too big for the next link, each sent from us to the datagram's source over
 * the current table, and counted for show_routing {@code error_signals}. Part of {@link MeshControl}, on its thread.
 *
 * <p>Deliberate difference (ADR 0064): where the reference drops a CoordsRequired or PathBroken it cannot route back
 * to the source (§4.5, "error routing blind spot"), we hand it to the peer the dropped datagram came from, which
 * routes it on with its own table. A transit restarted with an empty coordinate cache is otherwise a black hole for
 * every established session a neighbour sends through it, and the sources never learn to re-warm it.
 */
final class ErrorSignals {
    /** What the counters count. */
    private enum Counter { COORDS_REQUIRED, PATH_BROKEN, NO_ROUTE_BACK, MTU_EXCEEDED, VIA_ARRIVAL_LINK }

    private static final int PATH_MTU_MAX = 0xFFFF;

    private final NodeAddr self;
    private final int defaultTtl;
    private final MeshLinks links;
    private final NextHop router;
    private final CoordCache cache;
    private final Supplier<ForwardingTable> table;
    private final LongFunction<NodeAddr> peerOfLink;
    private final long[] counters = new long[Counter.values().length];

    ErrorSignals(final NodeAddr self, final int defaultTtl, final MeshLinks links, final NextHop router,
                 final CoordCache cache, final Supplier<ForwardingTable> table,
                 final LongFunction<NodeAddr> peerOfLink) {
        this.self = self;
        this.defaultTtl = defaultTtl;
        this.links = links;
        this.router = router;
        this.cache = cache;
        this.table = table;
        this.peerOfLink = peerOfLink;
    }

    /** Answers the data plane's report {@code e} of a transit datagram it could not route. */
    void routingError(final DataPlaneEvent.RoutingError e, final long now) {
        final NodeAddr origin = e.src();
        final NodeAddr dest = e.dest();
        // As the reference: PathBroken whenever the cache holds unexpired coordinates for dest now, whatever the
        // worker's (possibly older) table view saw; the kind only says which the worker expected.
        final Coords known = cache.get(dest, now);
        final byte[] fsp;
        if (known != null) {
            fsp = new PathBroken(dest, self, known).encode();
        } else {
            fsp = new CoordsRequired(dest, self).encode();
        }
        send(origin, fsp, known != null ? Counter.PATH_BROKEN : Counter.COORDS_REQUIRED, e.arrivalLinkId(), now);
    }

    /** Answers a datagram from {@code origin} to {@code dest} too big for the next link's {@code mtu}. */
    void mtuExceeded(final NodeAddr origin, final NodeAddr dest, final int mtu, final long now) {
        send(origin, new MtuExceeded(dest, self, mtu).encode(), Counter.MTU_EXCEEDED,
                DataPlaneEvent.RoutingError.NO_LINK, now);
    }

    /**
     * Sends the error signal {@code fsp} from us to {@code origin}, counted as {@code sent} once on a link: to the
     * next hop toward {@code origin}, else (ADR 0064) to the peer on {@code arrivalLinkId}, else nowhere.
     */
    private void send(final NodeAddr origin, final byte[] fsp, final Counter sent, final long arrivalLinkId,
                      final long now) {
        final NextHop.Route r = router.route(table.get(), origin, now);
        final NodeAddr hop;
        if (r.found()) {
            hop = r.peer().addr();
        } else {
            // The reference drops it here (routing-session §4.5); the peer it came from knows the way back.
            hop = arrivalLinkId == DataPlaneEvent.RoutingError.NO_LINK ? null : peerOfLink.apply(arrivalLinkId);
            if (hop == null) {
                counters[Counter.NO_ROUTE_BACK.ordinal()]++;
                return;
            }
            counters[Counter.VIA_ARRIVAL_LINK.ordinal()]++;
        }
        // As the reference's SessionDatagram::new: path_mtu starts at u16::MAX; only later hops fold it.
        final SessionDatagram dg = new SessionDatagram(defaultTtl, PATH_MTU_MAX, self, origin, fsp);
        if (links.send(hop, dg.encode())) {
            counters[sent.ordinal()]++;
        }
    }

    /**
     * @return signals sent of {@code kind} (coords_required, path_broken, mtu_exceeded), dropped for want of a way
     *         back (no_route_back) or handed to the arrival link's peer for want of a route (via_arrival_link); else 0
     */
    long count(final String kind) {
        return switch (kind) {
            case "coords_required" -> counters[Counter.COORDS_REQUIRED.ordinal()];
            case "path_broken" -> counters[Counter.PATH_BROKEN.ordinal()];
            case "mtu_exceeded" -> counters[Counter.MTU_EXCEEDED.ordinal()];
            case "no_route_back" -> counters[Counter.NO_ROUTE_BACK.ordinal()];
            case "via_arrival_link" -> counters[Counter.VIA_ARRIVAL_LINK.ordinal()];
            default -> 0;
        };
    }
}
