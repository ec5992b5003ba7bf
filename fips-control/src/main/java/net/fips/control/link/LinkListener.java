package net.fips.control.link;

import net.fips.control.identity.PeerIdentity;

/**
 * What the layers above the link layer (spanning tree, bloom filters, discovery, routing) hear from it, on the
 * control thread, at the conductor's clock. Every method has an empty default so a listener implements only what
 * it needs. Calls never re-enter the conductor's state: a listener may call {@link LinkConductor#send} from any of
 * them.
 */
public interface LinkListener {
    /**
     * A link to {@code peer} was promoted: a new peer, a reconnection, or a cross-connection that moved the peer
     * to another link id (then called again with the new id, without an {@link #onPeerDown} first).
     *
     * @param peer        the authenticated peer
     * @param linkId      the data plane's link id now carrying it
     * @param transportId the transport the link runs on
     * @param nowNanos    the control clock
     */
    default void onPeerUp(final PeerIdentity peer, final long linkId, final int transportId, final long nowNanos) {
    }

    /**
     * The peer was removed (dead link, Disconnect, restart detected, decryption failures, operator, shutdown).
     *
     * @param peer     the peer
     * @param nowNanos the control clock
     */
    default void onPeerDown(final PeerIdentity peer, final long nowNanos) {
    }

    /**
     * The link to {@code peer} stopped answering while we sent over it ({@code suspect}), or answers again. A
     * suspect peer stays connected (the dead-link timer still runs) but routing should avoid it: no parent, no next
     * hop (fast failover, ADR 0024).
     *
     * @param peer     the peer
     * @param suspect  true when it became suspect, false when an authenticated frame came again
     * @param nowNanos the control clock
     */
    default void onPeerSuspect(final PeerIdentity peer, final boolean suspect, final long nowNanos) {
    }

    /**
     * An authenticated link message that the link layer does not consume itself: TreeAnnounce, FilterAnnounce,
     * LookupRequest, LookupResponse and unknown types ({@code message[0]} is the msg_type).
     *
     * @param peer     the sender
     * @param message  the message; owned by the listener
     * @param nowNanos the control clock
     */
    default void onLinkMessage(final PeerIdentity peer, final byte[] message, final long nowNanos) {
    }

    /**
     * A new link RTT sample was folded into the peer's smoothed RTT.
     *
     * @param peer       the peer
     * @param srttMicros the smoothed RTT after the sample
     * @param samples    how many samples the estimate holds now (1 for the first)
     * @param nowNanos   the control clock
     */
    default void onRttSample(final PeerIdentity peer, final long srttMicros, final int samples, final long nowNanos) {
    }

    /**
     * The tick's tree and bloom maintenance slot (after peer retries, before MMP reports, as in the reference).
     *
     * @param nowNanos the control clock
     * @return units of work done
     */
    default int onRoutingTick(final long nowNanos) {
        return 0;
    }

    /**
     * The tick's last slot: pending lookup retries and timeouts.
     *
     * @param nowNanos the control clock
     * @return units of work done
     */
    default int onLookupTick(final long nowNanos) {
        return 0;
    }

    /**
     * A new ETX for the link to {@code peer} from its ReceiverReports (routing-session §6.3): link cost is
     * {@code ETX × (1 + SRTT_ms / 100)}.
     */
    default void onEtx(final PeerIdentity peer, final double etx, final long nowNanos) {
    }
}
