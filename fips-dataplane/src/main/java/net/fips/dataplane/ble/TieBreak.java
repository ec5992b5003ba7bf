package net.fips.dataplane.ble;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The duplicate-connection tie-break when two nodes probe each other at once (transports.md §5.4): the connection
 * opened by the node with the smaller {@link NodeAddr} (byte-wise unsigned) survives. So the accepting side keeps an
 * inbound connection only when it is not the smaller, and the probing side keeps its outbound only when it is the
 * smaller; both sides pick the same one of the two connections.
 */
public final class TieBreak {
    private TieBreak() {
    }

    /** @return whether the accepting side keeps an inbound connection ({@code local >= peer}) */
    public static boolean keepInbound(final NodeAddr local, final NodeAddr peer) {
        return local.compareTo(peer) >= 0;
    }

    /** @return whether the probing side keeps its outbound connection ({@code local < peer}) */
    public static boolean keepOutbound(final NodeAddr local, final NodeAddr peer) {
        return local.compareTo(peer) < 0;
    }
}
