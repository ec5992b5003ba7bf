package net.fips.dataplane;

import java.net.InetSocketAddress;

/**
 * What the data plane reports to the control plane, through a bounded queue the control thread drains. Events
 * are rare (handshakes and link control messages, not data), so each is a small immutable record.
 */
public sealed interface DataPlaneEvent {

    /** A handshake packet (FMP phase 1 or 2) arrived; nothing about it has been checked beyond its prefix. */
    record HandshakeReceived(int transportId, InetSocketAddress from, byte[] packet) implements DataPlaneEvent {
    }

    /**
     * An authenticated link message other than a SessionDatagram ({@code message[0]} is the msg_type), with the
     * sender's 32-bit timestamp from the frame's inner header.
     */
    record LinkMessageReceived(long linkId, long timestampMs, byte[] message) implements DataPlaneEvent {
    }

    /**
     * A frame with the other K bit authenticated against the pending session, so the data plane cut over. The
     * control plane adopts {@code sessionStartNanos} as the start of the session it knows by {@code ourIndex}, so
     * both sides count that session's timestamps from one instant (see {@link DataPlaneCommands#cutover}).
     *
     * @param linkId            the link
     * @param ourIndex          our index of the session that became current
     * @param sessionStartNanos the data plane's clock reading at the cutover: its frame timestamps count from here
     */
    record CutOver(long linkId, int ourIndex, long sessionStartNanos) implements DataPlaneEvent {
    }

    /** An authenticated frame came from a new address; later sends go there (roaming). */
    record AddressChanged(long linkId, InetSocketAddress address) implements DataPlaneEvent {
    }

    /** The link reached the limit of consecutive decryption failures (reference: 20) and should be removed. */
    record TooManyDecryptFailures(long linkId) implements DataPlaneEvent {
    }
}
