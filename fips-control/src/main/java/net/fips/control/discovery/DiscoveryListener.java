package net.fips.control.discovery;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What discovery tells the session layer. Called synchronously on the control thread from inside
 * {@link Discovery}'s methods; implementations must not call back into the same {@link Discovery} instance.
 */
public interface DiscoveryListener {
    /** A listener that ignores everything. */
    DiscoveryListener NONE = new DiscoveryListener() {
    };

    /**
     * A verified response was cached: retry the session to {@code target} (flush queued packets, reset the
     * coordinate warm-up counter of an established session).
     *
     * @param target   the node found
     * @param coords   its coordinate
     * @param pathMtu  discovered path MTU
     * @param nowNanos caller's clock
     */
    default void onRouteFound(final NodeAddr target, final Coords coords, final int pathMtu, final long nowNanos) {
    }

    /**
     * All attempts timed out: drop packets queued for {@code target}, answering each with ICMPv6 Destination
     * Unreachable (code 0).
     *
     * @param target   the node not found
     * @param nowNanos caller's clock
     */
    default void onUnreachable(final NodeAddr target, final long nowNanos) {
    }
}
