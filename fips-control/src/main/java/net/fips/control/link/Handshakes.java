package net.fips.control.link;

import net.fips.dataplane.transport.TransportAddr;
import java.util.Arrays;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.WireResult;

/**
 * Handshake packets: inbound msg1 (new peer, crossing dial, restart, rekey, duplicate) and msg2 (our dial or our
 * rekey), promotion and cross-connection resolution. Follows the reference's {@code handle_msg1} /
 * {@code handle_msg2} step by step (crypto-link §5.8-§5.11).
 */
final class Handshakes {
    private static final System.Logger LOG = System.getLogger(Handshakes.class.getName());

    private final LinkConductor c;

    Handshakes(final LinkConductor conductor) {
        this.c = conductor;
    }

    // ------------------------------------------------------------------------------------------------------------
    // msg1

    void onMsg1(final int transportId, final TransportAddr from, final byte[] packet) {
        c.count(LinkCounter.MSG1_RECEIVED);
        // Rate limit before any parsing or crypto, as the reference: a flood costs a counter increment.
        if (c.pendingInbound >= c.config.maxPendingInbound()) {
            c.count(LinkCounter.MSG1_PENDING_LIMIT);
            return;
        }
        if (!c.msg1Bucket.tryAcquire(c.now)) {
            c.count(LinkCounter.MSG1_RATE_LIMITED);
            return;
        }
        c.pendingInbound++;
        try {
            handleMsg1(transportId, from, packet);
        } finally {
            c.pendingInbound--;
        }
    }

    private void handleMsg1(final int transportId, final TransportAddr from, final byte[] packet) {
        final WireResult<FmpMsg1> parsed = FmpMsg1.decode(packet, 0, packet.length);
        if (!(parsed instanceof WireResult.Ok<FmpMsg1>(final FmpMsg1 msg1))) {
            c.count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        final HandshakeResult result;
        final byte[] msg2Noise;
        final PeerIdentity peer;
        try {
            final HandshakeState hs = HandshakeState.responder(HandshakeState.Pattern.IK, c.secret, c.epoch,
                    c.ephemerals);
            hs.readMessage1(msg1.noise());
            msg2Noise = hs.writeMessage2();
            result = hs.finish();
            peer = PeerIdentity.fromCompressed(result.remoteStatic());
        } catch (final NoiseException | IdentityFormatException e) {
            c.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            if (e instanceof NoiseException n && n.reason() == NoiseException.Reason.DECRYPT_FAILED
                    && c.undecryptableMsg1Log.allow(from, c.now)) {
                // The usual cause is a dialler with a wrong npub for us; the reference drops these without a word.
                LOG.log(System.Logger.Level.WARNING, "Dropped a handshake from {0} that is not for this node''s key"
                        + " ({1}): a peer there may have a wrong npub configured for this node (one line per address"
                        + " per minute)", from, c.identity.npub());
            }
            return;
        }
        if (peer.nodeAddr().equals(c.ourAddr)) {
            c.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return;
        }
        PeerLink existing = c.peers.get(peer.nodeAddr());

        // Early max_peers gate: only a net-new identity that we are not dialling ourselves is refused.
        if (existing == null && c.peers.size() >= c.config.maxPeers() && !dialling(peer)) {
            c.count(LinkCounter.MAX_PEERS_DROPPED);
            wipe(result);
            return;
        }

        if (existing != null) {
            if (!Arrays.equals(existing.remoteEpoch, result.remoteEpoch())) {
                LOG.log(System.Logger.Level.INFO, "Peer restart detected (epoch changed): {0}",
                        peer.shortNpub());
                c.restartDetected(existing.nodeAddr);
                c.removePeer(existing, "peer restarted");
                c.scheduleReconnect(existing.nodeAddr);
                existing = null;
                // falls through to a fresh inbound connection
            } else {
                respondToActivePeer(existing, transportId, from, msg1, msg2Noise, result);
                return;
            }
        }

        if (!c.filter.allows(peer, PeerFilter.Context.INBOUND_HANDSHAKE)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (inbound handshake): {0}", peer.npub());
            c.count(LinkCounter.ACL_REJECTED);
            wipe(result);
            return;
        }
        final long idx = c.indices.allocate();
        if (idx < 0) {
            c.count(LinkCounter.INDEX_EXHAUSTED);
            wipe(result);
            return;
        }
        final int ourIndex = (int) idx;
        final byte[] msg2 = new FmpMsg2(ourIndex, msg1.senderIdx(), msg2Noise).encode();
        // The IK responder is complete once msg2 is written: promote at once, and before msg2 leaves, so the
        // receive index is in the data plane's table when the initiator's first frame (sent the moment msg2
        // arrives) comes back.
        final PeerLink link = c.promoteNew(peer, transportId, from, ourIndex, msg1.senderIdx(), result.sendKey(),
                result.recvKey(), result.remoteEpoch(), false);
        c.dataPlane.sendHandshake(transportId, from, msg2);
        link.storedMsg2 = msg2;
        c.announces.onPromoted(link);
    }

    /** Same-epoch msg1 from an established peer: rekey or duplicate (crypto-link §5.10). */
    private void respondToActivePeer(final PeerLink peer, final int transportId, final TransportAddr from,
                                     final FmpMsg1 msg1, final byte[] msg2Noise, final HandshakeResult result) {
        final long age = c.now - peer.sessionEstablishedNanos;
        if (!c.config.rekeyEnabled() || age < c.config.rekeyMinSessionAgeNanos()) {
            c.count(LinkCounter.DUPLICATE_MSG1);
            if (peer.storedMsg2 != null) {
                c.dataPlane.sendHandshake(transportId, from, peer.storedMsg2);
            }
            wipe(result);
            return;
        }
        if (peer.hasPending) {
            c.count(LinkCounter.REKEY_MSG1_DROPPED);
            wipe(result);
            return;
        }
        if (peer.rekeyInProgress) {
            // Dual initiation: the smaller node_addr stays initiator.
            if (c.ourAddr.compareTo(peer.nodeAddr) < 0) {
                c.count(LinkCounter.REKEY_MSG1_DROPPED);
                wipe(result);
                return;
            }
            c.maintenance.abandonRekey(peer);
        }
        final long idx = c.indices.allocate();
        if (idx < 0) {
            c.count(LinkCounter.INDEX_EXHAUSTED);
            wipe(result);
            return;
        }
        final int newIndex = (int) idx;
        // Pending keys first, msg2 second: the initiator may cut over and send under the new index at once.
        c.dataPlane.installPending(peer.linkId, newIndex, msg1.senderIdx(), result.sendKey(), result.recvKey());
        c.dataPlane.sendHandshake(transportId, from, new FmpMsg2(newIndex, msg1.senderIdx(), msg2Noise).encode());
        wipe(result);
        peer.hasPending = true;
        peer.pendingOurIndex = newIndex;
        peer.pendingTheirIndex = msg1.senderIdx();
        peer.peerRekeyed = true;
        peer.lastPeerRekeyNanos = c.now;
        c.count(LinkCounter.REKEYS_RESPONDED);
        c.markDirty();
    }

    private boolean dialling(final PeerIdentity peer) {
        for (final OutboundHandshake ob : c.pendingOutbound.values()) {
            if (ob.peer.equals(peer)) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------------------
    // msg2

    void onMsg2(final int transportId, final TransportAddr from, final byte[] packet) {
        final WireResult<FmpMsg2> parsed = FmpMsg2.decode(packet, 0, packet.length);
        if (!(parsed instanceof WireResult.Ok<FmpMsg2>(final FmpMsg2 msg2))) {
            c.count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        final long key = LinkConductor.key(transportId, msg2.receiverIdx());
        final OutboundHandshake ob = c.pendingOutbound.get(key);
        if (ob == null) {
            final PeerLink rekeying = c.pendingRekeys.get(key);
            if (rekeying != null) {
                c.maintenance.completeRekey(rekeying, msg2);
            } else {
                c.count(LinkCounter.MSG2_UNKNOWN);
            }
            return;
        }
        if (ob.failed) {
            c.count(LinkCounter.MSG2_UNKNOWN);
            return;
        }
        final HandshakeResult result;
        try {
            ob.handshake.readMessage2(msg2.noise());
            result = ob.handshake.finish();
        } catch (final NoiseException e) {
            // Marked failed, removed on the next tick (and a retry scheduled), as the reference.
            ob.failed = true;
            c.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return;
        }
        if (!c.filter.allows(ob.peer, PeerFilter.Context.OUTBOUND_HANDSHAKE)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (outbound handshake): {0}", ob.peer.npub());
            c.count(LinkCounter.ACL_REJECTED);
            c.dropOutbound(ob);
            wipe(result);
            return;
        }
        c.pendingOutbound.remove(key);
        final PeerLink existing = c.peers.get(ob.peer.nodeAddr());
        if (existing == null) {
            final PeerLink link = c.promoteNew(ob.peer, transportId, from, ob.ourIndex, msg2.senderIdx(),
                    result.sendKey(), result.recvKey(), result.remoteEpoch(), true);
            c.announces.onPromoted(link);
            return;
        }
        resolveCrossConnection(existing, ob, msg2, from, result);
    }

    /**
     * Our dial completed while the peer is already established through its own dial (crypto-link §5.9): the
     * smaller node_addr's outbound handshake wins on both sides. A changed epoch means the peer restarted, and the
     * new handshake wins regardless.
     */
    private void resolveCrossConnection(final PeerLink existing, final OutboundHandshake ob, final FmpMsg2 msg2,
                                        final TransportAddr from, final HandshakeResult result) {
        c.count(LinkCounter.CROSS_CONNECTIONS);
        final boolean restarted = !Arrays.equals(existing.remoteEpoch, result.remoteEpoch());
        if (restarted) {
            LOG.log(System.Logger.Level.INFO, "Peer restart detected (epoch changed): {0}", ob.peer.shortNpub());
            c.restartDetected(existing.nodeAddr);
            c.removePeer(existing, "peer restarted");
            final PeerLink link = c.promoteNew(ob.peer, ob.transportId, from, ob.ourIndex, msg2.senderIdx(),
                    result.sendKey(), result.recvKey(), result.remoteEpoch(), true);
            c.announces.onPromoted(link);
            return;
        }
        if (c.ourAddr.compareTo(existing.nodeAddr) < 0) {
            // We are smaller: switch to our outbound session and indices, and to the connection our dial made
            // (the peer keeps its inbound side of that dial; on a connection-oriented transport the other
            // connection, the peer's dial, is closed by both sides). The data plane has no "replace session", so
            // the link is re-added under a new id with the outbound keys (counters from 0, K = 0).
            final int oldTransport = existing.transportId;
            final TransportAddr oldAddress = existing.address;
            c.peersByLink.remove(existing.linkId);
            c.dataPlane.removeLink(existing.linkId);
            c.indices.free(existing.ourIndex);
            existing.transportId = ob.transportId;
            existing.address = from;
            c.closeLosingConnection(oldTransport, oldAddress, existing);
            existing.linkId = c.newLinkId();
            existing.ourIndex = ob.ourIndex;
            existing.theirIndex = msg2.senderIdx();
            existing.outbound = true;
            existing.sessionStartNanos = c.now;
            existing.kBit = 0;
            existing.mmp.resetForRekey();
            c.dataPlane.addLink(new LinkSpec(existing.linkId, existing.transportId, existing.address,
                    existing.ourIndex, existing.theirIndex, result.sendKey(), result.recvKey(),
                    existing.sessionStartNanos));
            c.peersByLink.put(existing.linkId, existing);
        } else {
            // We are larger: keep the inbound session and the their_index from the peer's msg1, and its
            // connection; our dial's connection lost.
            c.indices.free(ob.ourIndex);
            c.closeLosingConnection(ob.transportId, from, existing);
        }
        wipe(result);
        c.announces.onPromoted(existing);
        c.markDirty();
    }

    private static void wipe(final HandshakeResult r) {
        Arrays.fill(r.sendKey(), (byte) 0);
        Arrays.fill(r.recvKey(), (byte) 0);
    }
}
