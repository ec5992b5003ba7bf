/**
 * The in-process mesh simulator: N nodes' real control-plane routing code (spanning tree, bloom filters, discovery,
 * the data plane's next-hop decision) over an in-memory link transport on a virtual clock, deterministic for a seed.
 */
module net.fips.sim {
    requires transitive net.fips.control;
    // The nodes log through System.Logger; the launcher quietens java.util.logging to warnings.
    requires java.logging;

    exports net.fips.sim;
}
