package net.fips.control.link;

import java.util.Arrays;
import java.util.function.IntPredicate;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.FmpPrefix;
import net.fips.dataplane.wire.WireResult;

/**
 * Handshake packets: inbound msg1 (new peer, crossing dial, restart, rekey, duplicate) and msg2 (our dial or our
 * rekey), promotion and cross-connection resolution. Follows the reference's {@code handle_msg1} /
 * {@code handle_msg2} step by step (crypto-link §5.8-§5.11).
 */
final class Handshakes {
    private static final System.Logger LOG = System.getLogger(Handshakes.class.getName());

    private final LinkTables t;
    private final LinkConfig config;
    private final LinkKeys keys;
    private final PeerFilter filter;
    private final DataPlaneCommands dataPlane;
    private final PeerLifecycle life;
    private final Redials redials;
    private final Maintenance maintenance;
    /** The global msg1 budget (crypto-link §5.16). */
    private final TokenBucket msg1Bucket;
    /** msg1s being handled (the reference's pending-inbound gate). */
    private int pendingInbound;
    private IntPredicate admission = id -> true;
    /** "A msg1 that is not for our key" lines: one per source address per minute. */
    private final LogThrottle<TransportAddr> undecryptableMsg1Log = new LogThrottle<>(
            LinkConductor.LOG_THROTTLE_NANOS, LinkConductor.LOG_THROTTLE_KEYS);

    Handshakes(final LinkTables tables, final LinkConfig config, final LinkKeys keys, final PeerFilter filter,
               final DataPlaneCommands dataPlane, final PeerLifecycle life, final Redials redials,
               final Maintenance maintenance) {
        this.t = tables;
        this.config = config;
        this.keys = keys;
        this.filter = filter;
        this.dataPlane = dataPlane;
        this.life = life;
        this.redials = redials;
        this.maintenance = maintenance;
        this.msg1Bucket = new TokenBucket(config.msg1Burst(), config.msg1RatePerSecond(), tables.now());
    }

    /** @return msg1s being handled right now (0 between events; tests) */
    int pendingInbound() {
        return pendingInbound;
    }

    /** Sets which transports admit a stranger's msg1 (see {@link LinkConductor#setAdmission}). */
    void setAdmission(final IntPredicate acceptsStrangers) {
        this.admission = acceptsStrangers;
    }

    private boolean admitted(final int transportId, final TransportAddr from) {
        if (admission.test(transportId)) {
            return true;
        }
        for (final PeerLink p : t.peers()) {
            if (p.transportId == transportId && from.equals(p.address)) {
                return true;
            }
        }
        return false;
    }

    /** A handshake packet: msg1 (if admitted) or msg2; anything else is counted as malformed. */
    void onHandshake(final DataPlaneEvent.HandshakeReceived h) {
        final byte[] p = h.packet();
        if (p.length < FmpPrefix.SIZE || (p[0] & 0xF0) != 0) {
            t.count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        if ((p[0] & 0x0F) == FmpPrefix.PHASE_MSG1 && !admitted(h.transportId(), h.from())) {
            t.count(LinkCounter.MSG1_NOT_ADMITTED);
            return;
        }
        switch (p[0] & 0x0F) {
            case FmpPrefix.PHASE_MSG1 -> onMsg1(h.transportId(), h.from(), p);
            case FmpPrefix.PHASE_MSG2 -> onMsg2(h.transportId(), h.from(), p);
            default -> t.count(LinkCounter.HANDSHAKE_MALFORMED);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // msg1

    void onMsg1(final int transportId, final TransportAddr from, final byte[] packet) {
        t.count(LinkCounter.MSG1_RECEIVED);
        // Rate limit before any parsing or crypto, as the reference: a flood costs a counter increment.
        if (pendingInbound >= config.maxPendingInbound()) {
            t.count(LinkCounter.MSG1_PENDING_LIMIT);
            return;
        }
        if (!msg1Bucket.tryAcquire(t.now())) {
            t.count(LinkCounter.MSG1_RATE_LIMITED);
            return;
        }
        pendingInbound++;
        try {
            handleMsg1(transportId, from, packet);
        } finally {
            pendingInbound--;
        }
    }

    private void handleMsg1(final int transportId, final TransportAddr from, final byte[] packet) {
        final WireResult<FmpMsg1> parsed = FmpMsg1.decode(packet, 0, packet.length);
        if (!(parsed instanceof WireResult.Ok<FmpMsg1>(final FmpMsg1 msg1))) {
            t.count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        final HandshakeResult result;
        final byte[] msg2Noise;
        final PeerIdentity peer;
        try {
            final HandshakeState hs = keys.responder();
            hs.readMessage1(msg1.noise());
            msg2Noise = hs.writeMessage2();
            result = hs.finish();
            peer = PeerIdentity.fromCompressed(result.remoteStatic());
        } catch (final NoiseException | IdentityFormatException e) {
            t.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            if (e instanceof NoiseException n && n.reason() == NoiseException.Reason.DECRYPT_FAILED
                    && undecryptableMsg1Log.allow(from, t.now())) {
                // The usual cause is a dialler with a wrong npub for us; the reference drops these without a word.
                LOG.log(System.Logger.Level.WARNING, "Dropped a handshake from {0} that is not for this node''s key"
                        + " ({1}): a peer there may have a wrong npub configured for this node (one line per address"
                        + " per minute)", from, keys.npub());
            }
            return;
        }
        if (peer.nodeAddr().equals(keys.addr())) {
            t.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return;
        }
        PeerLink existing = t.peer(peer.nodeAddr());

        // Early max_peers gate: only a net-new identity that we are not dialling ourselves is refused.
        if (existing == null && t.peerCount() >= config.maxPeers() && !t.dialling(peer)) {
            t.count(LinkCounter.MAX_PEERS_DROPPED);
            wipe(result);
            return;
        }

        if (existing != null) {
            if (!Arrays.equals(existing.remoteEpoch, result.remoteEpoch())) {
                LOG.log(System.Logger.Level.INFO, "Peer restart detected (epoch changed): {0}",
                        peer.shortNpub());
                life.restartDetected(existing.nodeAddr);
                life.remove(existing, "peer restarted");
                redials.scheduleReconnect(existing.nodeAddr);
                existing = null;
                // falls through to a fresh inbound connection
            } else {
                respondToActivePeer(existing, transportId, from, msg1, msg2Noise, result);
                return;
            }
        }

        if (!filter.allows(peer, PeerFilter.Context.INBOUND_HANDSHAKE)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (inbound handshake): {0}", peer.npub());
            t.count(LinkCounter.ACL_REJECTED);
            wipe(result);
            return;
        }
        final long idx = t.allocateIndex();
        if (idx < 0) {
            t.count(LinkCounter.INDEX_EXHAUSTED);
            wipe(result);
            return;
        }
        final int ourIndex = (int) idx;
        final byte[] msg2 = new FmpMsg2(ourIndex, msg1.senderIdx(), msg2Noise).encode();
        // The IK responder is complete once msg2 is written: promote at once, and before msg2 leaves, so the
        // receive index is in the data plane's table when the initiator's first frame (sent the moment msg2
        // arrives) comes back.
        final PeerLink link = life.promote(peer, transportId, from, ourIndex, msg1.senderIdx(), result.sendKey(),
                result.recvKey(), result.remoteEpoch(), false);
        dataPlane.sendHandshake(transportId, from, msg2);
        link.storedMsg2 = msg2;
        life.announceUp(link);
    }

    /** Same-epoch msg1 from an established peer: rekey or duplicate (crypto-link §5.10). */
    private void respondToActivePeer(final PeerLink peer, final int transportId, final TransportAddr from,
                                     final FmpMsg1 msg1, final byte[] msg2Noise, final HandshakeResult result) {
        final long age = t.now() - peer.keyEpochEstablishedNanos;
        if (!config.rekeyEnabled() || age < config.rekeyMinSessionAgeNanos()) {
            t.count(LinkCounter.DUPLICATE_MSG1);
            if (peer.storedMsg2 != null) {
                dataPlane.sendHandshake(transportId, from, peer.storedMsg2);
            }
            wipe(result);
            return;
        }
        if (peer.hasPending) {
            if (peer.pendingAsResponder && peer.pendingMsg2 != null && msg1.senderIdx() == peer.pendingTheirIndex) {
                // The initiator retransmits the msg1 we answered, so our msg2 was lost; we have not cut over yet
                // (ADR 0065), so the same msg2 still offers the keys we hold: send it again rather than drop the
                // msg1 and let the two ends drift apart (crypto-link.md §5.11, Q3).
                dataPlane.sendHandshake(transportId, from, peer.pendingMsg2);
                t.count(LinkCounter.REKEY_MSG2_RESENT);
            } else {
                t.count(LinkCounter.REKEY_MSG1_DROPPED);
            }
            wipe(result);
            return;
        }
        if (peer.rekeyInProgress) {
            // Dual initiation: the smaller node_addr stays initiator.
            if (keys.addr().compareTo(peer.nodeAddr) < 0) {
                t.count(LinkCounter.REKEY_MSG1_DROPPED);
                wipe(result);
                return;
            }
            maintenance.abandonRekey(peer);
        }
        final long idx = t.allocateIndex();
        if (idx < 0) {
            t.count(LinkCounter.INDEX_EXHAUSTED);
            wipe(result);
            return;
        }
        final int newIndex = (int) idx;
        // Pending keys first, msg2 second: the initiator may cut over and send under the new index at once.
        dataPlane.installPending(peer.linkId, newIndex, msg1.senderIdx(), result.sendKey(), result.recvKey());
        final byte[] msg2 = new FmpMsg2(newIndex, msg1.senderIdx(), msg2Noise).encode();
        dataPlane.sendHandshake(transportId, from, msg2);
        wipe(result);
        peer.hasPending = true;
        peer.pendingOurIndex = newIndex;
        peer.pendingTheirIndex = msg1.senderIdx();
        peer.pendingAsResponder = true;
        peer.pendingSinceNanos = t.now();
        peer.pendingMsg2 = msg2;
        peer.peerRekeyed = true;
        peer.lastPeerRekeyNanos = t.now();
        t.count(LinkCounter.REKEYS_RESPONDED);
        t.markDirty();
    }

    // ------------------------------------------------------------------------------------------------------------
    // msg2

    void onMsg2(final int transportId, final TransportAddr from, final byte[] packet) {
        final WireResult<FmpMsg2> parsed = FmpMsg2.decode(packet, 0, packet.length);
        if (!(parsed instanceof WireResult.Ok<FmpMsg2>(final FmpMsg2 msg2))) {
            t.count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        final long key = LinkTables.key(transportId, msg2.receiverIdx());
        final OutboundHandshake ob = t.dial(key);
        if (ob == null) {
            final PeerLink rekeying = t.rekeying(key);
            if (rekeying != null) {
                maintenance.completeRekey(rekeying, msg2);
            } else {
                t.count(LinkCounter.MSG2_UNKNOWN);
            }
            return;
        }
        if (ob.failed) {
            t.count(LinkCounter.MSG2_UNKNOWN);
            return;
        }
        final HandshakeResult result;
        try {
            ob.handshake.readMessage2(msg2.noise());
            result = ob.handshake.finish();
        } catch (final NoiseException e) {
            // Marked failed, removed on the next tick (and a retry scheduled), as the reference.
            ob.failed = true;
            t.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return;
        }
        if (!filter.allows(ob.peer, PeerFilter.Context.OUTBOUND_HANDSHAKE)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (outbound handshake): {0}", ob.peer.npub());
            t.count(LinkCounter.ACL_REJECTED);
            t.dropDial(ob);
            wipe(result);
            return;
        }
        t.completeDial(ob);
        final PeerLink existing = t.peer(ob.peer.nodeAddr());
        if (existing == null) {
            final PeerLink link = life.promote(ob.peer, transportId, from, ob.ourIndex, msg2.senderIdx(),
                    result.sendKey(), result.recvKey(), result.remoteEpoch(), true);
            life.announceUp(link);
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
        t.count(LinkCounter.CROSS_CONNECTIONS);
        final boolean restarted = !Arrays.equals(existing.remoteEpoch, result.remoteEpoch());
        if (restarted) {
            LOG.log(System.Logger.Level.INFO, "Peer restart detected (epoch changed): {0}", ob.peer.shortNpub());
            life.restartDetected(existing.nodeAddr);
            life.remove(existing, "peer restarted");
            final PeerLink link = life.promote(ob.peer, ob.transportId, from, ob.ourIndex, msg2.senderIdx(),
                    result.sendKey(), result.recvKey(), result.remoteEpoch(), true);
            life.announceUp(link);
            return;
        }
        if (keys.addr().compareTo(existing.nodeAddr) < 0) {
            // We are smaller: switch to our outbound key epoch and indices, and to the connection our dial made
            // (the peer keeps its inbound side of that dial; on a connection-oriented transport the other
            // connection, the peer's dial, is closed by both sides). The data plane has no "replace keys", so
            // the link is re-added under a new id with the outbound keys (counters from 0, K = 0).
            final int oldTransport = existing.transportId;
            final TransportAddr oldAddress = existing.address;
            final long oldLinkId = existing.linkId;
            dataPlane.removeLink(existing.linkId);
            t.freeIndex(existing.ourIndex);
            existing.transportId = ob.transportId;
            existing.address = from;
            life.closeLosingConnection(oldTransport, oldAddress, existing);
            existing.linkId = t.newLinkId();
            existing.ourIndex = ob.ourIndex;
            existing.theirIndex = msg2.senderIdx();
            existing.outbound = true;
            existing.keyEpochStartNanos = t.now();
            existing.kBit = 0;
            existing.mmp.resetForRekey();
            dataPlane.addLink(new LinkSpec(existing.linkId, existing.transportId, existing.address,
                    existing.ourIndex, existing.theirIndex, result.sendKey(), result.recvKey(),
                    existing.keyEpochStartNanos));
            t.relink(existing, oldLinkId);
        } else {
            // We are larger: keep the inbound key epoch and the their_index from the peer's msg1, and its
            // connection; our dial's connection lost.
            t.freeIndex(ob.ourIndex);
            life.closeLosingConnection(ob.transportId, from, existing);
        }
        wipe(result);
        life.announceUp(existing);
        t.markDirty();
    }

    private static void wipe(final HandshakeResult r) {
        Arrays.fill(r.sendKey(), (byte) 0);
        Arrays.fill(r.recvKey(), (byte) 0);
    }
}
