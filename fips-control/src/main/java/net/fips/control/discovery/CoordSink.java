package net.fips.control.discovery;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Where a verified LookupResponse's coordinate goes: the node's coordinate cache (insert or overwrite with a fresh
 * TTL, remembering the discovered path MTU).
 */
@FunctionalInterface
public interface CoordSink {
    /**
     * @param target   the node looked up
     * @param coords   its verified coordinate, self first
     * @param pathMtu  smallest link MTU on the reverse path (u16)
     * @param nowNanos caller's clock
     */
    void cacheCoords(NodeAddr target, Coords coords, int pathMtu, long nowNanos);
}
