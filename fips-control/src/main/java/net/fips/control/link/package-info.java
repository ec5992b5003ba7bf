/**
 * The control side of the FMP link layer: handshakes, promotion to established links, cross-connections, restart
 * detection, rekey with K-bit cutover and drain, heartbeats and liveness, reconnects, link MMP reports and
 * Disconnect. It sends no TreeAnnounce or FilterAnnounce of its own: those, lookups and unknown link messages go to
 * the {@link net.fips.control.link.LinkListener} above it (the spanning tree, bloom filters and discovery).
 * {@link net.fips.control.link.LinkConductor} owns all of it on the single control thread (its helpers share the
 * package-private {@code LinkTables} and reach it through {@code PeerLifecycle}) and drives the data plane only
 * through {@link net.fips.dataplane.DataPlaneCommands}; other threads read the published
 * {@link net.fips.control.link.LinkSnapshot}. One generation of a link's Noise IK keys (current, pending,
 * previous) is a "key epoch" here; "session" is kept for FSP end-to-end sessions ({@code net.fips.control.session})
 * and for the spec's names (session indices, routing-session.md).
 */
package net.fips.control.link;
