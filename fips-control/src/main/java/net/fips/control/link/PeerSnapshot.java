package net.fips.control.link;

import net.fips.control.mmp.PeerReport;
import net.fips.control.mmp.ReceiverFigures;

/**
 * One established peer as the control socket shows it. Indices are unsigned values; ages are milliseconds at the
 * snapshot's time; -1 means "none".
 *
 * @param npub               the peer's npub
 * @param nodeAddr           its node_addr, 32 hex digits
 * @param state              "connected" (the reference's only live state)
 * @param direction          "outbound" when the adopted handshake was our dial, else "inbound"
 * @param linkId             the data-plane link id (for {@code DataPlane.sendDatagram} and {@code show_links})
 * @param transportId        the transport the link runs on
 * @param address            the peer's current address on it
 * @param ourIndex           index the peer writes into frames to us
 * @param theirIndex         index we write into frames to the peer
 * @param kBit               current K bit
 * @param pendingOurIndex    index of a completed rekey not yet cut over, or -1
 * @param rekeyInProgress    an own rekey handshake is waiting for msg2
 * @param draining           the previous key epoch still receives
 * @param rekeys             cutovers on this link so far
 * @param linkAgeMs          since promotion
 * @param keyEpochAgeMs      age of the current key epoch: since promotion or the last cutover
 * @param lastHeartbeatAgoMs since our last Heartbeat, or -1
 * @param lastReceivedAgoMs  since the last authenticated frame (or link creation)
 * @param packetsIn          authenticated frames received
 * @param bytesIn            their bytes
 * @param packetsOut         frames sent
 * @param bytesOut           their bytes
 * @param dropsIn            frames dropped (authentication or replay)
 * @param sendCounter        current key epoch's send counter
 * @param highestCounterIn   highest counter accepted on the current key epoch
 * @param srttMicros         smoothed RTT from MMP, or -1 before the first sample
 * @param replayDrops        of {@code dropsIn}, frames the replay window refused
 * @param consecutiveDecryptFailures frames that failed authentication in a row, now
 * @param restarts           restarts of this peer detected since our start (changed epoch; survives the link)
 * @param decryptFailures    of {@code dropsIn}, frames that failed authentication (the rest are replay drops)
 * @param deliveryForward    forward delivery ratio from the peer's ReceiverReports, or null before two
 * @param deliveryReverse    reverse delivery ratio (our receiver), or null
 * @param etx                ETX from both ratios, or null
 * @param goodputBps         smoothed goodput of our frames in bytes per second (from the ReceiverReports), or null
 * @param receiver           our receiver's per-frame figures of the peer's frames, or null before two frames
 * @param peerReport         the peer's last ReceiverReport's jitter, OWD, burst, reorder and CE figures, or null
 */
public record PeerSnapshot(String npub, String nodeAddr, String state, String direction, long linkId, int transportId,
                           String address, long ourIndex, long theirIndex, int kBit, long pendingOurIndex,
                           boolean rekeyInProgress, boolean draining, long rekeys, long linkAgeMs, long keyEpochAgeMs,
                           long lastHeartbeatAgoMs, long lastReceivedAgoMs, long packetsIn, long bytesIn,
                           long packetsOut, long bytesOut, long dropsIn, long sendCounter, long highestCounterIn,
                           long srttMicros, long replayDrops, int consecutiveDecryptFailures, long restarts,
                           long decryptFailures, Double deliveryForward, Double deliveryReverse, Double etx,
                           Double goodputBps, ReceiverFigures receiver,
                           PeerReport.Figures peerReport) {
}
