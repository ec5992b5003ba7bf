package net.fips.control.link;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeState;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.control.mmp.DeliveryRatios;
import net.fips.control.mmp.PeerReport;
import net.fips.control.mmp.ReceiverReports;
import net.fips.control.mmp.SmoothedRtt;

/**
 * An established peer as the control thread tracks it: the current key epoch's indices (the data plane holds the
 * keys), the pending key epoch of a completed rekey, the previous key epoch being drained, an own rekey in progress,
 * and the per-peer timers. Mutable, confined to the control thread.
 */
final class PeerLink {
    final PeerIdentity identity;
    final NodeAddr nodeAddr;
    /** Changes only when a cross-connection swaps the key epoch (the data plane gets a new link). */
    long linkId;
    int transportId;
    TransportAddr address;
    int ourIndex;
    int theirIndex;
    /** True when the adopted handshake was our dial. */
    boolean outbound;
    byte[] remoteEpoch;
    long promotedNanos;
    /**
     * Start of the current key epoch, the one instant both planes count its timestamps from: chosen here at
     * promotion (and passed in the LinkSpec) and at a tick's cutover (passed with the command), or adopted from the
     * data plane's CutOver event after a K-bit trial.
     */
    long keyEpochStartNanos;
    /** What the rekey age rules measure from (promotion or last cutover). */
    long keyEpochEstablishedNanos;
    int rekeyJitterSeconds;
    int kBit;
    /** msg2 we sent as responder of the original handshake; resent for duplicate msg1s, never cleared. */
    byte[] storedMsg2;

    boolean hasPending;
    int pendingOurIndex;
    int pendingTheirIndex;
    /**
     * The pending key epoch is one we answered a rekey msg1 for: our tick waits for the initiator's first frame under
     * it, at most {@link LinkConfig#responderCutoverGraceNanos()} from {@link #pendingSinceNanos} (ADR 0065).
     */
    boolean pendingAsResponder;
    long pendingSinceNanos;
    /** The msg2 that offered the pending key epoch (responder only): sent again for a retransmitted msg1. */
    byte[] pendingMsg2;

    boolean draining;
    int previousOurIndex;
    long drainStartNanos;

    boolean rekeyInProgress;
    HandshakeState rekeyHandshake;
    int rekeyOurIndex;
    byte[] rekeyMsg1;
    int rekeyResends;
    long rekeyNextResendNanos;
    boolean peerRekeyed;
    long lastPeerRekeyNanos;
    /** Fast failover (Maintenance#checkSuspect): the link stopped answering while we sent; routing avoids it. */
    boolean suspect;
    /** The data plane's last-authenticated instant as the previous tick saw it. */
    long suspectSeenAuthNanos = Long.MIN_VALUE;
    /** The one seen before it (the peer's last gap between frames, as ticks see it). */
    long suspectPrevAuthNanos = Long.MIN_VALUE;
    /** Frames sent on the link when that instant was first seen. */
    long suspectOutAtAuth;
    /** The tick that first saw frames sent after the last authenticated one, or {@link Long#MIN_VALUE}. */
    long unansweredSinceNanos = Long.MIN_VALUE;
    long rekeys;

    boolean heartbeatSent;
    long lastHeartbeatNanos;

    final Mmp mmp = new Mmp();

    /** ECN: the congestion flag last sent to the data plane for this link. */

    boolean ecnCongested;

    PeerLink(final PeerIdentity identity) {
        this.identity = identity;
        this.nodeAddr = identity.nodeAddr();
    }

    /** Link MMP bookkeeping: where the current report intervals started, and the RTT estimate. */
    static final class Mmp {
        boolean srSent;
        long lastSrNanos;
        long srStartCounter;
        long srStartTimestampMs;
        long srLastPacketsOut;
        long srLastBytesOut;
        boolean rrSent;
        long lastRrNanos;
        long rrLastPacketsIn;
        long rrLastBytesIn;
        /** SRTT from the timestamp echo of the peer's ReceiverReports. */
        final SmoothedRtt rtt = new SmoothedRtt();
        /** Forward/reverse delivery and ETX from the peer's ReceiverReports (routing-session §6.3). */
        final DeliveryRatios delivery = new DeliveryRatios();
        /** Builds our ReceiverReports from the data plane's receiver figures. */
        final ReceiverReports receiverReports = new ReceiverReports();
        /** Jitter, OWD trend, bursts, reorder and CE counts from the peer's ReceiverReports. */
        final PeerReport peerReport = new PeerReport();
        long senderReportsIn;
        long receiverReportsIn;
        long senderReportsOut;
        long receiverReportsOut;

        void resetForRekey() {
            srStartCounter = 0;
            srStartTimestampMs = 0;
        }
    }
}
