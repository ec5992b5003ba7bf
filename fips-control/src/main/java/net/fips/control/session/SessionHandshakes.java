package net.fips.control.session;

import java.util.Arrays;
import java.util.List;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionMsg3;
import net.fips.dataplane.wire.SessionSetup;
import net.fips.dataplane.wire.WireResult;

/**
 * The FSP session handshake (routing-session §5.2-§5.5): Noise XK carried in SessionSetup / SessionAck /
 * SessionMsg3, as initiator and as responder, with simultaneous open, repeated and restarted Setups, msg3 re-sent
 * on a repeated Ack (§10.2) and the responder's binding of the initiator's key to its src_addr (§10.3). Handshake
 * messages on an established session go to {@link SessionRekey}. Owned by {@link Sessions}; control thread only.
 */
final class SessionHandshakes {
    private final SessionContext ctx;
    private final PendingPackets queue;
    private final SessionRekey rekey;

    SessionHandshakes(final SessionContext ctx, final PendingPackets queue, final SessionRekey rekey) {
        this.ctx = ctx;
        this.queue = queue;
        this.rekey = rekey;
    }

    /** See {@link Sessions#initiate}. */
    Sessions.InitiateResult initiate(final NodeAddr dest, final long nowNanos) {
        if (ctx.hasSession(dest)) {
            return Sessions.InitiateResult.ALREADY_EXISTS;
        }
        final IdentityCache.Entry id = ctx.identities.lookup(dest, nowNanos);
        if (id == null) {
            return Sessions.InitiateResult.NO_IDENTITY;
        }
        final SessionContext.Setup s = ctx.newSetup(id.identity().compressedPublicKey(), dest);
        if (s == null) {
            return Sessions.InitiateResult.FAILED;
        }
        if (!ctx.route(dest, s.setup())) {
            ctx.listener.onLookupNeeded(dest, nowNanos);
            return Sessions.InitiateResult.NO_ROUTE;
        }
        ctx.count(SessionCounter.SETUPS_SENT);
        final FspSession e = new FspSession(dest);
        e.state = SessionState.INITIATING;
        e.initiator = true;
        e.hs = s.hs();
        e.peer = id.identity();
        startResend(e, s.setup(), nowNanos);
        ctx.addSession(e);
        return Sessions.InitiateResult.STARTED;
    }

    void onSetup(final NodeAddr src, final byte[] msg, final long now) {
        ctx.count(SessionCounter.SETUPS_RECEIVED);
        if (!(SessionSetup.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionSetup>(final SessionSetup s))) {
            ctx.count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg1 = s.handshake();
        if (msg1.length != SessionSetup.XK_SIZE) {
            ctx.count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final FspSession existing = ctx.session(src);
        if (existing != null) {
            switch (existing.state) {
                case INITIATING -> {
                    if (ctx.host.self().compareTo(src) < 0) {
                        ctx.count(SessionCounter.SIMULTANEOUS_KEPT_INITIATOR);
                        return;
                    }
                }
                case AWAITING_MSG3 -> {
                    if (Arrays.equals(msg1, existing.msg1)) {
                        ctx.count(SessionCounter.DUPLICATE_SETUP_ACK_RESENT);
                        ctx.route(src, existing.payload);
                        return;
                    }
                }
                case ESTABLISHED -> {
                    if (existing.msg1 != null && Arrays.equals(msg1, existing.msg1)) {
                        ctx.count(SessionCounter.DUPLICATE_SETUP_IGNORED);
                        return;
                    }
                    if (ctx.config.rekeyEnabled()) {
                        rekey.onSetup(existing, src, s, msg1, now);
                        return;
                    }
                }
            }
        }
        final SessionContext.Answer answer = ctx.answerSetup(src, s, msg1);
        if (answer == null) {
            return;
        }
        ctx.count(SessionCounter.ACKS_SENT);
        ctx.host.cacheCoords(src, s.srcCoords());
        if (existing != null) {
            ctx.removeSession(src);
            if (existing.state == SessionState.INITIATING) {
                ctx.count(SessionCounter.SIMULTANEOUS_BECAME_RESPONDER);
                ctx.listener.onClosed(src, CloseReason.SIMULTANEOUS_OPEN, now);
            } else {
                ctx.listener.onClosed(src, CloseReason.REPLACED, now);
            }
        }
        final FspSession e = new FspSession(src);
        e.state = SessionState.AWAITING_MSG3;
        e.hs = answer.hs();
        e.msg1 = msg1;
        startResend(e, answer.ack(), now);
        ctx.addSession(e);
    }

    void onAck(final NodeAddr src, final byte[] msg, final long now) {
        ctx.count(SessionCounter.ACKS_RECEIVED);
        if (!(SessionAck.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionAck>(final SessionAck a))) {
            ctx.count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg2 = a.handshake();
        if (msg2.length != SessionAck.XK_SIZE) {
            ctx.count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final FspSession e = ctx.session(src);
        if (e == null) {
            ctx.count(SessionCounter.ACK_UNKNOWN_SESSION);
            return;
        }
        if (e.state == SessionState.ESTABLISHED) {
            if (e.rekeyHs != null && rekey.onAck(e, src, msg2, now)) {
                return;
            }
            if (e.msg3 != null && Arrays.equals(msg2, e.ackHs)) {
                ctx.count(SessionCounter.MSG3_RESENT);
                ctx.route(src, e.msg3);
                return;
            }
            if (e.pendingMsg3 != null && Arrays.equals(msg2, e.pendingAckHs)) {
                ctx.count(SessionCounter.MSG3_RESENT);
                ctx.route(src, e.pendingMsg3);
                return;
            }
            ctx.count(SessionCounter.BAD_STATE);
            return;
        }
        if (e.state != SessionState.INITIATING) {
            ctx.count(SessionCounter.BAD_STATE);
            return;
        }
        final byte[] msg3;
        final HandshakeResult result;
        try {
            e.hs.readMessage2(msg2);
            msg3 = new SessionMsg3(0, e.hs.writeMessage3()).encode();
            result = e.hs.finish();
        } catch (final NoiseException | RuntimeException ex) {
            // The read is all-or-nothing, so a forged or stale Ack leaves the attempt intact (the reference
            // discards it; §10.15).
            ctx.count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        if (ctx.route(src, msg3)) {
            ctx.count(SessionCounter.MSG3_SENT);
        }
        e.hs = null;
        e.ackHs = msg2;
        e.msg3 = msg3;
        ctx.host.cacheCoords(src, a.srcCoords());
        establish(e, result, now);
    }

    void onMsg3(final NodeAddr src, final byte[] msg, final long now) {
        ctx.count(SessionCounter.MSG3_RECEIVED);
        if (!(SessionMsg3.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionMsg3>(final SessionMsg3 m))) {
            ctx.count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg3 = m.handshake();
        if (msg3.length != SessionMsg3.XK_SIZE) {
            ctx.count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final FspSession e = ctx.session(src);
        if (e == null) {
            ctx.count(SessionCounter.MSG3_UNKNOWN_SESSION);
            return;
        }
        if (e.state == SessionState.ESTABLISHED && e.rekeyRespHs != null) {
            rekey.onMsg3(e, src, msg3, now);
            return;
        }
        if (e.state != SessionState.AWAITING_MSG3) {
            ctx.count(SessionCounter.BAD_STATE);
            return;
        }
        try {
            e.hs.readMessage3(msg3);
        } catch (final NoiseException | RuntimeException ex) {
            ctx.count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        final PeerIdentity peer = ctx.boundIdentity(e.hs.remoteStatic(), src);
        final HandshakeResult result;
        try {
            result = peer == null ? null : e.hs.finish();
        } catch (final NoiseException ex) {
            ctx.count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        if (peer == null) {
            ctx.removeSession(src);
            queue.discard(src);
            ctx.listener.onClosed(src, CloseReason.IDENTITY_MISMATCH, now);
            return;
        }
        ctx.identities.register(src, peer, now);
        e.peer = peer;
        e.hs = null;
        establish(e, result, now);
    }

    private void establish(final FspSession e, final HandshakeResult r, final long now) {
        e.state = SessionState.ESTABLISHED;
        e.initiator = r.role() == HandshakeState.Role.INITIATOR;
        e.payload = null;
        e.resendCount = 0;
        e.warmup = ctx.config.warmupPackets();
        e.lastData = now;
        e.lastActivity = now;
        e.keyEpoch = false;
        e.sessionStart = now;
        e.rekeyDue = now + rekey.interval();
        e.sendCounter = 0;
        ctx.count(SessionCounter.ESTABLISHED);
        ctx.listener.onEstablished(new SessionKeys(e.remote, r.remoteStatic(), e.initiator, r.sendKey(),
                r.recvKey(), false, r.remoteEpoch()), now);
        final List<byte[]> q = queue.take(e.remote);
        if (!q.isEmpty()) {
            ctx.listener.onFlush(e.remote, q, now);
        }
    }

    /** Re-sends the stored Setup or Ack of a session whose handshake is in progress, when it is due. */
    void tickResend(final FspSession e, final long nowNanos) {
        final SessionConfig config = ctx.config;
        if (e.payload != null && e.resendCount < config.maxResends() && nowNanos >= e.nextResend
                && ctx.route(e.remote, e.payload)) {
            e.resendCount++;
            e.nextResend = nowNanos + (config.resendBaseNanos() << e.resendCount);
            ctx.count(SessionCounter.HANDSHAKE_RESENDS);
        }
    }

    private void startResend(final FspSession e, final byte[] payload, final long now) {
        e.payload = payload;
        e.resendCount = 0;
        e.nextResend = now + ctx.config.resendBaseNanos();
        e.lastActivity = now;
    }
}
