package net.fips.control.session;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The keys of one established FSP session (or of a rekeyed generation of it), for the data plane. Counters of a
 * fresh generation start at 0 in both directions with a fresh 2048-packet replay window. Arrays are handed over:
 * the receiver owns them and should wipe them when done.
 *
 * @param remote       the peer's node_addr
 * @param remoteStatic the peer's 33-byte compressed static key
 * @param initiator    true when we initiated this generation's handshake (we send with Split's first key)
 * @param sendKey      32-byte ChaCha20-Poly1305 key for what we send
 * @param recvKey      32-byte key for what we receive
 * @param keyEpoch     the K bit to put in the FSP header flags while these keys are current
 * @param remoteEpoch  the peer's 8-byte startup epoch from the handshake
 */
public record SessionKeys(NodeAddr remote, byte[] remoteStatic, boolean initiator, byte[] sendKey, byte[] recvKey,
        boolean keyEpoch, byte[] remoteEpoch) {
    @Override
    public String toString() {
        return "SessionKeys[" + remote.shortHex() + (initiator ? " initiator" : " responder") + " K=" + keyEpoch
                + ", keys redacted]";
    }
}
