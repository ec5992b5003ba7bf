package net.fips.control.session;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeState;
import net.fips.dataplane.wire.NodeAddr;

/**
 * One FSP end-to-end session with a remote node_addr as the control plane tracks it (routing-session §5.2): the
 * XK handshake in progress, or the established session with its coordinate warm-up, its key generation (the K bit)
 * and the state of a rekey (§5.7). Mutable, confined to the control thread; shared by {@link Sessions},
 * {@link SessionHandshakes} and {@link SessionRekey}. Not to be confused with a link's key epoch (Noise IK, package
 * {@code net.fips.control.link}).
 */
final class FspSession {
    final NodeAddr remote;
    SessionState state;
    boolean initiator;
    HandshakeState hs;
    PeerIdentity peer;
    // handshake resend
    byte[] payload;
    int resendCount;
    long nextResend;
    long lastActivity;
    // the msg1 that created a responder entry; the msg2 / msg3 of an initiator entry (msg3 loss recovery)
    byte[] msg1;
    byte[] ackHs;
    byte[] msg3;
    // established
    int warmup;
    long lastData;
    long lastWarmupSent = Long.MIN_VALUE;
    boolean keyEpoch;
    long sessionStart;
    long rekeyDue;
    long sendCounter;
    // rekey as initiator
    HandshakeState rekeyHs;
    byte[] rekeySetup;
    long rekeyStarted;
    int rekeyResends;
    long rekeyNextResend;
    // rekey as responder
    HandshakeState rekeyRespHs;
    byte[] rekeyMsg1;
    byte[] rekeyAck;
    long peerRekeyAt = Long.MIN_VALUE;
    // pending generation
    boolean pending;
    long cutoverAt = Long.MAX_VALUE;
    byte[] pendingAckHs;
    byte[] pendingMsg3;
    boolean pendingConfirmed;
    int msg3Resends;
    long msg3NextResend;
    long previousExpires;

    FspSession(final NodeAddr remote) {
        this.remote = remote;
    }

    /** @return true when established */
    boolean established() {
        return state == SessionState.ESTABLISHED;
    }

    /** @return a rekey handshake is running or a pending generation awaits cutover */
    boolean rekeyInProgress() {
        return rekeyHs != null || rekeyRespHs != null || pending;
    }
}
