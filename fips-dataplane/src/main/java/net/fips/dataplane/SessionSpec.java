package net.fips.dataplane;

import java.util.Objects;

import net.fips.dataplane.wire.NodeAddr;

/**
 * An established end-to-end (FSP) session as the data plane needs it (routing-session.md §5.1, §5.3): the remote
 * node, the transport keys of the first generation and the instant its timestamps count from. The control plane
 * runs the Noise XK handshake and hands the result over with {@link DataPlaneCommands#addSession}; from then on the
 * worker that owns the session seals and opens every DataPacket itself.
 *
 * @param remote            the peer's node_addr
 * @param sendKey           32-byte ChaCha20-Poly1305 key for what we send
 * @param recvKey           32-byte key for what we receive
 * @param keyEpoch          the K bit of this generation (false for a fresh session)
 * @param sessionStartNanos the instant inner timestamps count from, on the shared clock
 * @param datagramTtl       the ttl of the SessionDatagrams we originate (64)
 */
public record SessionSpec(NodeAddr remote, byte[] sendKey, byte[] recvKey, boolean keyEpoch,
                          long sessionStartNanos, int datagramTtl) {
    /** Checks what the data plane relies on. */
    public SessionSpec {
        Objects.requireNonNull(remote, "remote");
        if (sendKey == null || sendKey.length != 32 || recvKey == null || recvKey.length != 32) {
            throw new IllegalArgumentException("session keys must be 32 bytes each");
        }
        if (datagramTtl < 1 || datagramTtl > 255) {
            throw new IllegalArgumentException("datagram ttl " + datagramTtl);
        }
    }

    @Override
    public String toString() {
        return "SessionSpec[" + remote.shortHex() + " K=" + keyEpoch + ", keys redacted]";
    }
}
