package net.fips.dataplane.route;

/**
 * Route classes of a transit forward (routing-session.md §4.4), telemetry only: they partition forwarded packets
 * by how the chosen peer relates to us and to the destination in the spanning tree.
 */
public enum RouteClass {
    /** The next hop is the destination. */
    DIRECT_PEER,
    /** The next hop is one of our ancestors. */
    TREE_UP,
    /** The next hop is our descendant and the destination is below it. */
    TREE_DOWN,
    /** The next hop is our descendant but the destination is not below it. */
    TREE_DOWN_CROSS,
    /** A lateral next hop with the destination below it. */
    CROSSLINK_DESCEND,
    /** A lateral next hop without the destination below it. */
    CROSSLINK_ASCEND
}
