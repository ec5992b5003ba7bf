package net.fips.dataplane;

import net.fips.dataplane.transport.TransportAddr;

/**
 * An established link as the data plane needs it.
 *
 * <p><b>One time base per link.</b> The control plane chooses the instant the link's session starts and passes it
 * here; the data plane stamps every frame with the milliseconds since that instant (crypto-link.md §5.4), and the
 * control plane computes its own session time (MMP timestamps and RTT) from the same instant, so the timestamps
 * the peer echoes and our session time never disagree, however long the handshake took between promotion and
 * this command. The instant is a reading of the clock the data plane and the control plane share (the
 * {@code nanoClock} of both), no later than the data plane's reading when it applies the command.
 *
 * @param linkId      the control plane's handle for the link (unique for the node's lifetime, never reused)
 * @param transportId the transport the link runs over
 * @param remote      the peer's current address on that transport (updated by the data plane when an
 *                    authenticated frame arrives from elsewhere: roaming)
 * @param ourIndex    the index the peer writes into frames to us
 * @param theirIndex  the index we write into frames to the peer
 * @param sendKey     32-byte key for frames we send
 * @param recvKey     32-byte key for frames we receive
 * @param sessionStartNanos the instant frame timestamps count from (the control plane's promotion instant)
 */
public record LinkSpec(long linkId, int transportId, TransportAddr remote, int ourIndex, int theirIndex,
                       byte[] sendKey, byte[] recvKey, long sessionStartNanos) {
}
