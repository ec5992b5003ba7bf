package net.fips.control.session;

import java.util.Arrays;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionMsg3;
import net.fips.dataplane.wire.SessionSetup;

/**
 * The rekey of established FSP sessions (routing-session §5.7): a fresh XK handshake inside the session, started
 * by time (with jitter) or by the send counter, answered as responder, the resulting pending key generation, its
 * cutover (when the peer proves it uses it, or after the cutover delay), the drain of the previous generation, msg3
 * resends, and simultaneous rekeys (the smaller node_addr stays initiator). Owned by {@link Sessions}; control
 * thread only.
 */
final class SessionRekey {
    private static final long NANOS_PER_SEC = 1_000_000_000L;

    private final SessionContext ctx;

    SessionRekey(final SessionContext ctx) {
        this.ctx = ctx;
    }

    /** @return the time to the next rekey: whole seconds, uniform in [-j, +j] around the interval, as the reference */
    long interval() {
        final SessionConfig config = ctx.config;
        final int j = (int) (config.rekeyJitterNanos() / NANOS_PER_SEC);
        final long jitterSecs = j == 0 ? 0 : ctx.random.nextInt(2 * j + 1) - j;
        return config.rekeyAfterNanos() + jitterSecs * NANOS_PER_SEC;
    }

    private void start(final FspSession e, final long now) {
        if (e.peer == null) {
            return;
        }
        final SessionContext.Setup s = ctx.newSetup(e.peer.compressedPublicKey(), e.remote);
        if (s == null || !ctx.route(e.remote, s.setup())) {
            return;
        }
        ctx.count(SessionCounter.REKEYS_STARTED);
        ctx.count(SessionCounter.SETUPS_SENT);
        e.rekeyHs = s.hs();
        e.rekeySetup = s.setup();
        e.rekeyStarted = now;
        e.rekeyResends = 0;
        e.rekeyNextResend = now + ctx.config.resendBaseNanos();
    }

    /** A SessionSetup with a new msg1 on an established session: the peer rekeys. */
    void onSetup(final FspSession e, final NodeAddr src, final SessionSetup s, final byte[] msg1, final long now) {
        if (e.rekeyRespHs != null && Arrays.equals(msg1, e.rekeyMsg1)) {
            ctx.count(SessionCounter.DUPLICATE_SETUP_ACK_RESENT);
            ctx.route(src, e.rekeyAck);
            return;
        }
        if (e.rekeyHs != null) {
            if (ctx.host.self().compareTo(src) < 0) {
                ctx.count(SessionCounter.SIMULTANEOUS_KEPT_INITIATOR);
                return;
            }
            e.rekeyHs = null;
            e.rekeySetup = null;
            ctx.count(SessionCounter.SIMULTANEOUS_BECAME_RESPONDER);
        }
        if (e.pending) {
            ctx.count(SessionCounter.BAD_STATE);
            return;
        }
        final SessionContext.Answer answer = ctx.answerSetup(src, s, msg1);
        if (answer == null) {
            return;
        }
        ctx.count(SessionCounter.REKEYS_ANSWERED);
        ctx.count(SessionCounter.ACKS_SENT);
        e.rekeyRespHs = answer.hs();
        e.rekeyMsg1 = msg1;
        e.rekeyAck = answer.ack();
        e.peerRekeyAt = now;
    }

    /** @return true when the Ack completed our rekey handshake */
    boolean onAck(final FspSession e, final NodeAddr src, final byte[] msg2, final long now) {
        final byte[] msg3;
        final HandshakeResult r;
        try {
            e.rekeyHs.readMessage2(msg2);
            msg3 = new SessionMsg3(0, e.rekeyHs.writeMessage3()).encode();
            r = e.rekeyHs.finish();
        } catch (final NoiseException | RuntimeException ex) {
            return false;
        }
        if (ctx.route(src, msg3)) {
            ctx.count(SessionCounter.MSG3_SENT);
        }
        e.rekeyHs = null;
        e.rekeySetup = null;
        e.pendingAckHs = msg2;
        e.pendingMsg3 = msg3;
        e.pendingConfirmed = false;
        e.msg3Resends = 0;
        e.msg3NextResend = now + ctx.config.resendBaseNanos();
        e.cutoverAt = now + ctx.config.rekeyCutoverNanos();
        setPending(e, r, now);
        return true;
    }

    /** The msg3 that completes a rekey we answered. */
    void onMsg3(final FspSession e, final NodeAddr src, final byte[] msg3, final long now) {
        try {
            e.rekeyRespHs.readMessage3(msg3);
        } catch (final NoiseException | RuntimeException ex) {
            ctx.count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        final PeerIdentity peer = ctx.boundIdentity(e.rekeyRespHs.remoteStatic(), src);
        final HandshakeResult r;
        try {
            r = peer == null ? null : e.rekeyRespHs.finish();
        } catch (final NoiseException ex) {
            ctx.count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        e.rekeyRespHs = null;
        e.rekeyAck = null;
        if (peer == null) {
            return;
        }
        e.rekeyMsg1 = null;
        e.cutoverAt = Long.MAX_VALUE;
        e.pendingConfirmed = true;
        setPending(e, r, now);
    }

    private void setPending(final FspSession e, final HandshakeResult r, final long now) {
        e.pending = true;
        ctx.count(SessionCounter.REKEYS_COMPLETED);
        ctx.listener.onRekeyPending(new SessionKeys(e.remote, r.remoteStatic(),
                r.role() == HandshakeState.Role.INITIATOR, r.sendKey(), r.recvKey(), !e.keyEpoch, r.remoteEpoch()),
                now);
    }

    /** See {@link Sessions#onPendingKeysAuthenticated}. */
    void onPendingKeysAuthenticated(final FspSession e, final long now) {
        e.pendingConfirmed = true;
        e.pendingMsg3 = null;
        if (e.pending) {
            cutover(e, now);
        }
    }

    /** See {@link Sessions#onPreviousKeysUsed}. */
    void onPreviousKeysUsed(final FspSession e, final long now) {
        if (e.previousExpires != 0) {
            e.previousExpires = Math.max(e.previousExpires, now + ctx.config.rekeyDrainNanos());
        }
    }

    private void cutover(final FspSession e, final long now) {
        e.pending = false;
        e.cutoverAt = Long.MAX_VALUE;
        e.keyEpoch = !e.keyEpoch;
        e.sessionStart = now;
        e.rekeyDue = now + interval();
        e.sendCounter = 0;
        e.previousExpires = now + ctx.config.rekeyDrainNanos();
        ctx.count(SessionCounter.REKEY_CUTOVERS);
        ctx.listener.onRekeyCutover(e.remote, now);
    }

    /** The rekey timers of one established session: drain end, cutover, resends, timeouts and the trigger. */
    void tick(final FspSession e, final long now) {
        final SessionConfig config = ctx.config;
        if (e.previousExpires != 0 && now >= e.previousExpires) {
            e.previousExpires = 0;
            ctx.listener.onPreviousKeysExpired(e.remote, now);
        }
        if (e.pending && now >= e.cutoverAt) {
            cutover(e, now);
        }
        if (e.pendingMsg3 != null && !e.pendingConfirmed && now >= e.msg3NextResend) {
            if (e.msg3Resends >= config.maxResends()) {
                e.pendingMsg3 = null;
                ctx.count(SessionCounter.REKEYS_ABANDONED);
            } else if (ctx.route(e.remote, e.pendingMsg3)) {
                e.msg3Resends++;
                e.msg3NextResend = now + (config.resendBaseNanos() << e.msg3Resends);
                ctx.count(SessionCounter.HANDSHAKE_RESENDS);
            }
        }
        if (e.rekeyHs != null) {
            if (now - e.rekeyStarted > config.handshakeTimeoutNanos()) {
                e.rekeyHs = null;
                e.rekeySetup = null;
                ctx.count(SessionCounter.REKEYS_ABANDONED);
            } else if (e.rekeyResends < config.maxResends() && now >= e.rekeyNextResend
                    && ctx.route(e.remote, e.rekeySetup)) {
                e.rekeyResends++;
                e.rekeyNextResend = now + (config.resendBaseNanos() << e.rekeyResends);
                ctx.count(SessionCounter.HANDSHAKE_RESENDS);
            }
        }
        if (e.rekeyRespHs != null && now - e.peerRekeyAt > config.handshakeTimeoutNanos()) {
            e.rekeyRespHs = null;
            e.rekeyAck = null;
            e.rekeyMsg1 = null;
            ctx.count(SessionCounter.REKEYS_ABANDONED);
        }
        final boolean busy = e.rekeyInProgress() || (e.pendingMsg3 != null && !e.pendingConfirmed);
        final boolean dampened = e.peerRekeyAt != Long.MIN_VALUE && now - e.peerRekeyAt < config.rekeyDampeningNanos();
        if (!busy && !dampened && (now >= e.rekeyDue || e.sendCounter >= config.rekeyAfterMessages())) {
            start(e, now);
        }
    }
}
