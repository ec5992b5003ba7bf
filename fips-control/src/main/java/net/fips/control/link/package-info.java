/**
 * The control side of the FMP link layer: handshakes, promotion to established links, cross-connections, restart
 * detection, rekey with K-bit cutover and drain, heartbeats and liveness, reconnects, link MMP reports and
 * Disconnect. It sends no TreeAnnounce or FilterAnnounce of its own: those, lookups and unknown link messages go to
 * the {@link net.fips.control.link.LinkListener} above it (the spanning tree, bloom filters and discovery).
 * {@link net.fips.control.link.LinkConductor} owns all of it on the single control thread and drives the data plane
 * only through
 * {@link net.fips.dataplane.DataPlaneCommands}; other threads read the published
 * {@link net.fips.control.link.LinkSnapshot}.
 */
package net.fips.control.link;
