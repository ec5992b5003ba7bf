package net.fips.dataplane;

import java.net.InetSocketAddress;

/**
 * An established link as the data plane needs it.
 *
 * @param linkId      the control plane's handle for the link (unique for the node's lifetime, never reused)
 * @param transportId the transport the link runs over
 * @param remote      the peer's current address on that transport (updated by the data plane when an
 *                    authenticated frame arrives from elsewhere: roaming)
 * @param ourIndex    the index the peer writes into frames to us
 * @param theirIndex  the index we write into frames to the peer
 * @param sendKey     32-byte key for frames we send
 * @param recvKey     32-byte key for frames we receive
 */
public record LinkSpec(long linkId, int transportId, InetSocketAddress remote, int ourIndex, int theirIndex,
                       byte[] sendKey, byte[] recvKey) {
}
