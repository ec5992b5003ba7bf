package net.fips.control.link;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;

import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.Heartbeat;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The tick's timer work: dial timeouts and retransmissions, heartbeats and liveness, and the rekey cycle (trigger,
 * retransmission, msg2, cutover, drain), following the reference's {@code check_timeouts},
 * {@code resend_pending_handshakes}, {@code resend_pending_rekeys}, {@code check_link_heartbeats} and
 * {@code check_rekey} (crypto-link §5.8, §5.11, §5.13).
 */
final class Maintenance {
    private static final System.Logger LOG = System.getLogger(Maintenance.class.getName());
    private static final long SECOND = 1_000_000_000L;
    private static final byte[] HEARTBEAT = Heartbeat.INSTANCE.encode();
    /** msg1s of one dial left without an answer when it is said at WARN (at the 3rd resend, ~7 s in). */
    static final int UNANSWERED_WARN_AFTER = 3;

    private final LinkTables t;
    private final LinkConfig config;
    private final LinkKeys keys;
    private final DataPlaneCommands dataPlane;
    private final LongFunction<LinkStats> stats;
    private final Random random;
    private final PeerLifecycle life;
    private final Redials redials;
    /** "No answer to our handshakes" lines: one per peer per minute. */
    private final LogThrottle<NodeAddr> unansweredDialLog = new LogThrottle<>(LinkConductor.LOG_THROTTLE_NANOS,
            LinkConductor.LOG_THROTTLE_KEYS);

    Maintenance(final LinkTables tables, final LinkConfig config, final LinkKeys keys,
                final DataPlaneCommands dataPlane, final LongFunction<LinkStats> stats, final Random random,
                final PeerLifecycle life, final Redials redials) {
        this.t = tables;
        this.config = config;
        this.keys = keys;
        this.dataPlane = dataPlane;
        this.stats = stats;
        this.random = random;
        this.life = life;
        this.redials = redials;
    }

    int drawJitter() {
        final int j = config.rekeyJitterSeconds();
        return j <= 0 ? 0 : random.nextInt(2 * j + 1) - j;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Dials

    int checkHandshakeTimeouts() {
        int work = 0;
        for (final OutboundHandshake ob : List.copyOf(t.dials())) {
            if (ob.failed || t.now() - ob.createdNanos > config.handshakeTimeoutNanos()) {
                t.dropDial(ob);
                t.count(LinkCounter.HANDSHAKE_TIMEOUTS);
                redials.scheduleRetry(ob.peer.nodeAddr(), ob.failed ? "handshake failed"
                        : "no handshake answer within " + config.handshakeTimeoutNanos() / 1_000_000_000L + " s");
                t.markDirty();
                work++;
            }
        }
        return work;
    }

    int resendHandshakes() {
        int work = 0;
        for (final OutboundHandshake ob : t.dials()) {
            if (!ob.failed && ob.resends < config.handshakeMaxResends() && t.now() - ob.nextResendNanos >= 0) {
                dataPlane.sendHandshake(ob.transportId, ob.address, ob.msg1);
                ob.resends++;
                ob.nextResendNanos = t.now() + config.resendGapNanos(ob.resends);
                t.count(LinkCounter.HANDSHAKE_RESENDS);
                warnIfUnanswered(ob);
                work++;
            }
        }
        return work;
    }

    /**
     * A dial whose msg1 went out {@link #UNANSWERED_WARN_AFTER} times without an answer is said at WARN, with a hint,
     * long before its timeout: a wrong npub is otherwise silent on both nodes (the responder cannot decrypt a msg1
     * for another key and drops it). Only on the first dial since the peer was last up (later failures are the
     * retry lines of {@code scheduleRetry}), never while the peer is linked, and at most once per peer per minute.
     */
    private void warnIfUnanswered(final OutboundHandshake ob) {
        // Called once the resend is out: the msg1s before it went unanswered.
        final int unanswered = ob.resends;
        if (unanswered != Math.min(UNANSWERED_WARN_AFTER, config.handshakeMaxResends())) {
            return;
        }
        // A crossing's leftover dial to a peer linked through its own dial: the peer answers, just not this one.
        if (t.peer(ob.peer.nodeAddr()) != null || redials.failing(ob.peer.nodeAddr())
                || !unansweredDialLog.allow(ob.peer.nodeAddr(), t.now())) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "No answer to {0} handshakes from {1} at {2} in {3} s: check the npub"
                + " and that the peer runs (a node drops a handshake that is not for its key without a reply)",
                String.valueOf(unanswered), ob.peer.npub(), ob.address, String.valueOf((t.now() - ob.createdNanos)
                        / 1_000_000_000L));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Heartbeats and liveness

    int checkHeartbeats() {
        int work = 0;
        final List<PeerLink> dead = new ArrayList<>();
        for (final PeerLink peer : t.peers()) {
            final LinkStats s = stats.apply(peer.linkId);
            // Reference: last authenticated receive, or the key epoch's start if nothing came since (cutover resets).
            long last = peer.keyEpochStartNanos;
            if (s != null && s.lastAuthenticatedNanos() - last > 0) {
                last = s.lastAuthenticatedNanos();
            }
            work += checkSuspect(peer, s);
            final boolean silent = t.now() - last >= config.linkDeadTimeoutNanos();
            final boolean rekeyActive = peer.rekeyInProgress && peer.rekeyMsg1 != null
                    && peer.rekeyResends < config.handshakeMaxResends();
            if (silent && !rekeyActive) {
                dead.add(peer);
                continue;
            }
            if (!peer.heartbeatSent || t.now() - peer.lastHeartbeatNanos >= config.heartbeatIntervalNanos()) {
                peer.heartbeatSent = true;
                peer.lastHeartbeatNanos = t.now();
                dataPlane.sendLinkMessage(peer.linkId, HEARTBEAT);
                t.count(LinkCounter.HEARTBEATS_SENT);
                work++;
            }
        }
        for (final PeerLink peer : dead) {
            t.count(LinkCounter.LINK_DEAD_REMOVALS);
            life.remove(peer, "link dead: nothing heard for " + config.linkDeadTimeoutNanos() / 1_000_000_000L
                    + " s");
            redials.scheduleReconnect(peer.nodeAddr);
            work++;
        }
        return work;
    }

    /**
     * Fast failover (issue 18 §2, ADR 0024), invisible on the wire: a link is suspect when nothing authenticated
     * has come over it for {@link #suspectAfterNanos} and either we sent frames over it meanwhile (a live peer
     * answers them within its ReceiverReport interval, clamp(SRTT, 1 s, 5 s) on its 1 s tick; heartbeats count) or
     * the peer had been sending more often than that (MMP reports keep flowing both ways on a live link, so a
     * chatty peer that falls silent is gone, even when we have nothing to send it). The listener routes around a
     * suspect link while the dead-link timer still runs; its first authenticated frame makes it trusted again.
     * Three report intervals pass first, so a lossy link that loses some reports is not suspected, and a peer
     * that only sends a heartbeat every 10 s is never suspected for its silence.
     *
     * @return 1 when the peer's state changed
     */
    private int checkSuspect(final PeerLink peer, final LinkStats s) {
        if (s == null) {
            return 0;
        }
        final long auth = s.lastAuthenticatedNanos();
        final long out = s.packetsOut();
        if (auth != peer.suspectSeenAuthNanos) {
            peer.suspectPrevAuthNanos = peer.suspectSeenAuthNanos;
            peer.suspectSeenAuthNanos = auth;
            peer.suspectOutAtAuth = out;
            peer.unansweredSinceNanos = Long.MIN_VALUE;
            if (peer.suspect) {
                peer.suspect = false;
                t.count(LinkCounter.LINKS_RECOVERED);
                LOG.log(System.Logger.Level.INFO, "Link to {0} answers again: routing uses it again",
                        peer.identity.shortNpub());
                life.suspectChanged(peer, false);
                return 1;
            }
            return 0;
        }
        if (peer.suspect) {
            return 0;
        }
        final long after = suspectAfterNanos(peer);
        final boolean chattyThenSilent = peer.suspectPrevAuthNanos != Long.MIN_VALUE
                && auth - peer.suspectPrevAuthNanos < after && t.now() - auth >= after;
        if (out != peer.suspectOutAtAuth && peer.unansweredSinceNanos == Long.MIN_VALUE) {
            peer.unansweredSinceNanos = t.now();
        }
        final boolean unanswered = peer.unansweredSinceNanos != Long.MIN_VALUE
                && t.now() - peer.unansweredSinceNanos >= after;
        if (!chattyThenSilent && !unanswered) {
            return 0;
        }
        peer.suspect = true;
        t.count(LinkCounter.LINKS_SUSPECTED);
        LOG.log(System.Logger.Level.INFO, "Link to {0} suspect: nothing authenticated for {1} ms where a live peer"
                + " would have sent; routing avoids it (removed after {2} s of silence)", peer.identity.shortNpub(),
                String.valueOf((t.now() - Math.max(peer.suspectSeenAuthNanos, peer.keyEpochStartNanos)) / 1_000_000L),
                String.valueOf(config.linkDeadTimeoutNanos() / 1_000_000_000L));
        life.suspectChanged(peer, true);
        return 1;
    }

    /** Three of the peer's report intervals: 3 x clamp(SRTT, 1 s, 5 s); 3 s before the first RTT sample. */
    static long suspectAfterNanos(final PeerLink peer) {
        final long interval = peer.mmp.rtt.samples() == 0 ? SECOND
                : Math.clamp(peer.mmp.rtt.srttMicros() * 1_000L, SECOND, 5 * SECOND);
        return 3 * interval;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Rekey

    int checkRekey() {
        if (!config.rekeyEnabled()) {
            return 0;
        }
        final List<PeerLink> cutover = new ArrayList<>();
        final List<PeerLink> drain = new ArrayList<>();
        final List<PeerLink> rekey = new ArrayList<>();
        for (final PeerLink peer : t.peers()) {
            // No role check: whoever holds a completed pending key epoch cuts over (spec Q2), but a responder first
            // leaves the initiator time to read the msg2 and cut over itself (ADR 0065): the initiator's first frame
            // under the new keys cuts us over in the data plane, and our own new-key frames then never reach an
            // initiator that has not installed them yet.
            if (peer.hasPending && !peer.rekeyInProgress) {
                if (!peer.pendingAsResponder
                        || t.now() - peer.pendingSinceNanos >= config.responderCutoverGraceNanos()) {
                    cutover.add(peer);
                    continue;
                }
                if (peer.draining && t.now() - peer.drainStartNanos >= config.drainWindowNanos()) {
                    drain.add(peer);
                }
                continue;
            }
            if (peer.draining && t.now() - peer.drainStartNanos >= config.drainWindowNanos()) {
                drain.add(peer);
            }
            if (peer.rekeyInProgress) {
                continue;
            }
            if (peer.peerRekeyed && t.now() - peer.lastPeerRekeyNanos < config.rekeyDampeningNanos()) {
                continue;
            }
            // Deviation for interop (crypto-link §5.10): a Rust responder treats a msg1 on a key epoch younger than
            // 30 s as a duplicate, so the count trigger must not fire earlier than that either.
            if (t.now() - peer.keyEpochEstablishedNanos < config.rekeyMinSessionAgeNanos()) {
                continue;
            }
            final long elapsedSeconds = (t.now() - peer.keyEpochEstablishedNanos) / SECOND;
            final LinkStats s = stats.apply(peer.linkId);
            final long counter = s == null ? 0 : s.sendCounter();
            final long after = Math.max(0, config.rekeyAfterSeconds() + peer.rekeyJitterSeconds);
            if (elapsedSeconds >= after || Long.compareUnsigned(counter, config.rekeyAfterMessages()) >= 0) {
                rekey.add(peer);
            }
        }
        for (final PeerLink peer : cutover) {
            dataPlane.cutover(peer.linkId, t.now());
            applyCutover(peer, t.now());
        }
        for (final PeerLink peer : drain) {
            dataPlane.dropPrevious(peer.linkId);
            t.freeIndex(peer.previousOurIndex);
            peer.draining = false;
            t.markDirty();
        }
        for (final PeerLink peer : rekey) {
            initiateRekey(peer);
        }
        return cutover.size() + drain.size() + rekey.size();
    }

    /**
     * The data plane cut over by the K-bit trial to the key epoch we know as {@code ourIndex}, and its frames count
     * from {@code startNanos}. Either that key epoch is still our pending one (apply the cutover with the data
     * plane's instant), or our own tick already cut over to it: the tick's cutover command then reached the data
     * plane after the trial and was a no-op there, so the data plane's instant is the one its frames use and we
     * adopt it. (A command that arrives first cuts over at our instant, and then no trial and no event follow.)
     * Any other index is a stale event about a key epoch we have moved past.
     */
    void onDataPlaneCutover(final PeerLink peer, final int ourIndex, final long startNanos) {
        if (peer.hasPending && peer.pendingOurIndex == ourIndex) {
            applyCutover(peer, startNanos);
        } else if (peer.ourIndex == ourIndex) {
            peer.keyEpochStartNanos = startNanos;
        }
    }

    /**
     * The control side of a cutover, whether our tick or a K-bit trial in the data plane did it.
     *
     * @param startNanos the instant the data plane's frame timestamps for the new key epoch count from
     */
    void applyCutover(final PeerLink peer, final long startNanos) {
        if (peer.draining) {
            // A second cutover inside the drain window replaces the previous key epoch outright.
            t.freeIndex(peer.previousOurIndex);
        }
        peer.previousOurIndex = peer.ourIndex;
        peer.draining = true;
        peer.drainStartNanos = t.now();
        peer.ourIndex = peer.pendingOurIndex;
        peer.theirIndex = peer.pendingTheirIndex;
        peer.hasPending = false;
        peer.pendingAsResponder = false;
        peer.pendingMsg2 = null;
        peer.kBit ^= 1;
        peer.keyEpochEstablishedNanos = t.now();
        peer.keyEpochStartNanos = startNanos;
        peer.rekeyInProgress = false;
        peer.rekeyResends = 0;
        peer.rekeyJitterSeconds = drawJitter();
        peer.rekeys++;
        peer.mmp.resetForRekey();
        t.count(LinkCounter.CUTOVERS);
        LOG.log(System.Logger.Level.INFO, "Link rekeyed: peer {0}, link {1}, key epoch {2} (rekey {3})",
                peer.identity.shortNpub(), String.valueOf(peer.linkId), String.valueOf(peer.kBit),
                String.valueOf(peer.rekeys));
        t.markDirty();
    }

    private void initiateRekey(final PeerLink peer) {
        final long idx = t.allocateIndex();
        if (idx < 0) {
            t.count(LinkCounter.INDEX_EXHAUSTED);
            return;
        }
        final int index = (int) idx;
        final HandshakeState hs;
        final byte[] msg1;
        try {
            hs = keys.initiator(peer.identity.compressedPublicKey());
            msg1 = new FmpMsg1(index, hs.writeMessage1()).encode();
        } catch (final NoiseException e) {
            t.freeIndex(index);
            return;
        }
        // A plain handshake packet straight to the peer's current address, not an encrypted frame.
        dataPlane.sendHandshake(peer.transportId, peer.address, msg1);
        peer.rekeyInProgress = true;
        peer.rekeyHandshake = hs;
        peer.rekeyOurIndex = index;
        peer.rekeyMsg1 = msg1;
        peer.rekeyResends = 0;
        peer.rekeyNextResendNanos = t.now() + config.handshakeResendIntervalNanos();
        t.addRekey(peer);
        t.count(LinkCounter.REKEYS_INITIATED);
        t.markDirty();
    }

    int resendRekeys() {
        if (!config.rekeyEnabled()) {
            return 0;
        }
        int work = 0;
        for (final PeerLink peer : t.peers()) {
            if (!peer.rekeyInProgress || peer.rekeyMsg1 == null) {
                continue;
            }
            if (peer.rekeyResends >= config.handshakeMaxResends()) {
                LOG.log(System.Logger.Level.DEBUG, "FMP rekey abandoned after max retransmissions: {0}",
                        peer.identity.shortNpub());
                abandonRekey(peer);
                work++;
                continue;
            }
            if (t.now() - peer.rekeyNextResendNanos >= 0) {
                dataPlane.sendHandshake(peer.transportId, peer.address, peer.rekeyMsg1);
                peer.rekeyResends++;
                peer.rekeyNextResendNanos = t.now() + config.resendGapNanos(peer.rekeyResends);
                t.count(LinkCounter.HANDSHAKE_RESENDS);
                work++;
            }
        }
        return work;
    }

    /** Drops our own rekey attempt and frees its index (the reference leaks it on budget exhaustion). */
    void abandonRekey(final PeerLink peer) {
        if (!peer.rekeyInProgress) {
            return;
        }
        t.removeRekey(peer);
        t.freeIndex(peer.rekeyOurIndex);
        peer.rekeyInProgress = false;
        peer.rekeyHandshake = null;
        peer.rekeyMsg1 = null;
        peer.rekeyResends = 0;
        t.count(LinkCounter.REKEYS_ABANDONED);
        t.markDirty();
    }

    /** msg2 answering our rekey: the new key epoch becomes pending; the next tick cuts over. */
    void completeRekey(final PeerLink peer, final FmpMsg2 msg2) {
        final HandshakeResult result;
        try {
            peer.rekeyHandshake.readMessage2(msg2.noise());
            result = peer.rekeyHandshake.finish();
        } catch (final NoiseException e) {
            t.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            abandonRekey(peer);
            return;
        }
        if (!Arrays.equals(peer.remoteEpoch, result.remoteEpoch())) {
            // The peer restarted and answered as a fresh responder; the reference adopts the new epoch here and
            // only clears its end-to-end session with the peer (not this layer's business).
            life.restartDetected(peer.nodeAddr);
            peer.remoteEpoch = result.remoteEpoch().clone();
        }
        t.removeRekey(peer);
        dataPlane.installPending(peer.linkId, peer.rekeyOurIndex, msg2.senderIdx(), result.sendKey(),
                result.recvKey());
        Arrays.fill(result.sendKey(), (byte) 0);
        Arrays.fill(result.recvKey(), (byte) 0);
        peer.hasPending = true;
        peer.pendingOurIndex = peer.rekeyOurIndex;
        peer.pendingTheirIndex = msg2.senderIdx();
        peer.pendingAsResponder = false;
        peer.pendingMsg2 = null;
        peer.rekeyInProgress = false;
        peer.rekeyHandshake = null;
        peer.rekeyMsg1 = null;
        peer.rekeyResends = 0;
        t.markDirty();
    }
}
