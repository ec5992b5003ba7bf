package net.fips.control.discovery;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The per-destination path-MTU map the TUN side reads for TCP MSS clamping. Discovery only tightens it: a
 * discovered path_mtu is written when no value is known or the known one is larger.
 */
public interface PathMtuClamp {
    /** A clamp map that knows nothing and stores nothing. */
    PathMtuClamp NONE = new PathMtuClamp() {
        @Override
        public int get(final NodeAddr dest) {
            return 0;
        }

        @Override
        public void put(final NodeAddr dest, final int pathMtu) {
        }
    };

    /** @param dest a destination @return its current path MTU, or 0 when none is known */
    int get(NodeAddr dest);

    /** @param dest a destination @param pathMtu the new value */
    void put(NodeAddr dest, int pathMtu);
}
