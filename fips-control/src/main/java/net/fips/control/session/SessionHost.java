package net.fips.control.session;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;

/**
 * The node as the session layer sees it: our address and coordinate, the coordinate cache, and a way to route a
 * SessionDatagram we originate. Implemented by the node and by tests; called only from the control thread.
 */
public interface SessionHost {
    /** @return our node_addr */
    NodeAddr self();

    /** @return our current tree coordinate, self first, root last (at least our own address) */
    Coords selfCoords();

    /**
     * @param dest a node_addr
     * @return its cached coordinate, or null when none is cached
     */
    Coords coordsOf(NodeAddr dest);

    /**
     * Routes a datagram we originate toward {@code datagram.dest()} (find_next_hop and send on that link).
     *
     * @param datagram src = us, ttl as configured, path_mtu 65535
     * @return false when there is no route (nothing was sent)
     */
    boolean route(SessionDatagram datagram);

    /**
     * Caches a coordinate learned from a handshake message (SessionAck src_coords at the initiator, SessionSetup
     * src_coords at the responder).
     */
    default void cacheCoords(final NodeAddr addr, final Coords coords) {
    }

    /** Removes {@code dest} from the coordinate cache (reaction to PathBroken). */
    default void forgetCoords(final NodeAddr dest) {
    }
}
