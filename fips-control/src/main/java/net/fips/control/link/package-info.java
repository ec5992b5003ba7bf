/**
 * The control side of the FMP link layer: handshakes, promotion to established links, cross-connections, restart
 * detection, rekey with K-bit cutover and drain, heartbeats and liveness, reconnects, and the first link messages a
 * new peer gets (TreeAnnounce, FilterAnnounce, MMP reports). {@link net.fips.control.link.LinkConductor} owns all
 * of it on the single control thread and drives the data plane only through
 * {@link net.fips.dataplane.DataPlaneCommands}; other threads read the published
 * {@link net.fips.control.link.LinkSnapshot}.
 */
package net.fips.control.link;
