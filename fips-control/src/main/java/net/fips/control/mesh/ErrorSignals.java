package net.fips.control.mesh;

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
 */
final class ErrorSignals {
    /** What the counters count. */
    private enum Counter { COORDS_REQUIRED, PATH_BROKEN, NO_ROUTE_BACK, MTU_EXCEEDED }

    private static final int PATH_MTU_MAX = 0xFFFF;

    private final NodeAddr self;
    private final int defaultTtl;
    private final MeshLinks links;
    private final NextHop router;
    private final CoordCache cache;
    private final Supplier<ForwardingTable> table;
    private final long[] counters = new long[Counter.values().length];

    ErrorSignals(final NodeAddr self, final int defaultTtl, final MeshLinks links, final NextHop router,
                 final CoordCache cache, final Supplier<ForwardingTable> table) {
        this.self = self;
        this.defaultTtl = defaultTtl;
        this.links = links;
        this.router = router;
        this.cache = cache;
        this.table = table;
    }

    /** Answers a routing failure of the transit path for a datagram from {@code origin} to {@code dest}. */
    void routingError(final NodeAddr origin, final NodeAddr dest, final DataPlaneEvent.RoutingErrorKind kind,
                      final long now) {
        // As the reference: PathBroken whenever the cache holds unexpired coordinates for dest now, whatever the
        // worker's (possibly older) table view saw; the kind only says which the worker expected.
        final Coords known = cache.get(dest, now);
        final byte[] fsp;
        if (known != null) {
            fsp = new PathBroken(dest, self, known).encode();
        } else {
            fsp = new CoordsRequired(dest, self).encode();
        }
        send(origin, fsp, known != null ? Counter.PATH_BROKEN : Counter.COORDS_REQUIRED, now);
    }

    /** Answers a datagram from {@code origin} to {@code dest} too big for the next link's {@code mtu}. */
    void mtuExceeded(final NodeAddr origin, final NodeAddr dest, final int mtu, final long now) {
        send(origin, new MtuExceeded(dest, self, mtu).encode(), Counter.MTU_EXCEEDED, now);
    }

    /** Sends the error signal {@code fsp} from us to {@code origin}, counted as {@code sent} once on a link. */
    private void send(final NodeAddr origin, final byte[] fsp, final Counter sent, final long now) {
        final NextHop.Route r = router.route(table.get(), origin, now);
        if (!r.found()) {
            // No cascading errors: an error signal that cannot be routed is dropped (routing-session §4.5).
            counters[Counter.NO_ROUTE_BACK.ordinal()]++;
            return;
        }
        // As the reference's SessionDatagram::new: path_mtu starts at u16::MAX; only later hops fold it.
        final SessionDatagram dg = new SessionDatagram(defaultTtl, PATH_MTU_MAX, self, origin, fsp);
        if (links.send(r.peer().addr(), dg.encode())) {
            counters[sent.ordinal()]++;
        }
    }

    /** @return signals sent of {@code kind} (coords_required, path_broken, mtu_exceeded, no_route_back), else 0 */
    long count(final String kind) {
        return switch (kind) {
            case "coords_required" -> counters[Counter.COORDS_REQUIRED.ordinal()];
            case "path_broken" -> counters[Counter.PATH_BROKEN.ordinal()];
            case "mtu_exceeded" -> counters[Counter.MTU_EXCEEDED.ordinal()];
            case "no_route_back" -> counters[Counter.NO_ROUTE_BACK.ordinal()];
            default -> 0;
        };
    }
}
