package net.fips.control.node;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkListener;
import net.fips.control.mesh.MeshControl;
import net.fips.control.session.SessionLayer;

/**
 * What the link layer tells the node, passed to the routing layers and, where it concerns them, to the session
 * layer: a direct peer that goes away (or restarts) takes its end-to-end session with it (routing-session §5.2),
 * and the routing tick also runs the session timers.
 */
final class SessionAwareLinks implements LinkListener {
    private final MeshControl mesh;
    private final SessionLayer sessions;

    SessionAwareLinks(final MeshControl mesh, final SessionLayer sessions) {
        this.mesh = mesh;
        this.sessions = sessions;
    }

    @Override
    public void onPeerUp(final PeerIdentity peer, final long linkId, final int transportId, final long nowNanos) {
        mesh.onPeerUp(peer, linkId, transportId, nowNanos);
    }

    @Override
    public void onPeerDown(final PeerIdentity peer, final long nowNanos) {
        mesh.onPeerDown(peer, nowNanos);
        sessions.onPeerRemoved(peer.nodeAddr(), nowNanos);
    }

    @Override
    public void onPeerSuspect(final PeerIdentity peer, final boolean suspect, final long nowNanos) {
        mesh.onPeerSuspect(peer, suspect, nowNanos);
    }

    @Override
    public void onLinkMessage(final PeerIdentity peer, final byte[] message, final long nowNanos) {
        mesh.onLinkMessage(peer, message, nowNanos);
    }

    @Override
    public void onRttSample(final PeerIdentity peer, final long srttMicros, final int samples, final long nowNanos) {
        mesh.onRttSample(peer, srttMicros, samples, nowNanos);
    }

    @Override
    public void onEtx(final PeerIdentity peer, final double etx, final long nowNanos) {
        mesh.onEtx(peer, etx, nowNanos);
    }

    @Override
    public int onRoutingTick(final long nowNanos) {
        final int work = mesh.onRoutingTick(nowNanos);
        sessions.tick(nowNanos);
        return work;
    }

    @Override
    public int onLookupTick(final long nowNanos) {
        return mesh.onLookupTick(nowNanos);
    }
}
