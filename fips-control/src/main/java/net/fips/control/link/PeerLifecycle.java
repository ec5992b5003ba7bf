package net.fips.control.link;

import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What the link layer's helpers ({@link Handshakes}, {@link Maintenance}, {@link Announces}) may ask of the
 * {@link LinkConductor}: the steps of a peer's life that touch the data plane, the tables and the layer above
 * together. Package-private; implemented by the conductor only.
 */
interface PeerLifecycle {
    /**
     * Promotes a completed handshake to an established peer on a new data-plane link; the key arrays are wiped.
     *
     * @param outbound true when the adopted handshake was our dial
     * @return the new peer
     */
    PeerLink promote(PeerIdentity peer, int transportId, TransportAddr address, int ourIndex, int theirIndex,
                     byte[] sendKey, byte[] recvKey, byte[] remoteEpoch, boolean outbound);

    /** Tells the layer above that {@code peer} is up on its current link (also after a cross-connection swap). */
    void announceUp(PeerLink peer);

    /**
     * Forgets an established peer: its data-plane link and all its indices (reference {@code remove_active_peer}).
     * Sends nothing.
     *
     * @param reason for the "Link down" log line
     */
    void remove(PeerLink peer, String reason);

    /** A changed startup epoch of {@code peer}: counted for the node and for the peer. */
    void restartDetected(NodeAddr peer);

    /** {@code peer}'s link became suspect or answers again (fast failover): tells the layer above. */
    void suspectChanged(PeerLink peer, boolean suspect);

    /** Closes the connection behind {@code address} unless it is the one {@code keep} uses (cross-connection). */
    void closeLosingConnection(int transportId, TransportAddr address, PeerLink keep);

    /** @return the layer above, or null */
    LinkListener listener();
}
