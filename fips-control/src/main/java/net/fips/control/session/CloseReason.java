package net.fips.control.session;

/** Why a session entry (handshaking or established) was deleted. */
public enum CloseReason {
    /** Handshake not completed within the handshake timeout. */
    HANDSHAKE_TIMEOUT,
    /** No DataPacket sent or received within the idle timeout. */
    IDLE,
    /** Replaced by a new handshake from the peer (rekey off, or a restarted peer). */
    REPLACED,
    /** We yielded our own initiation to the peer's (simultaneous open, the peer has the smaller address). */
    SIMULTANEOUS_OPEN,
    /** The responder's msg3 carried a key whose node_addr is not the datagram's src_addr. */
    IDENTITY_MISMATCH,
    /** Removed by the node ({@link Sessions#remove}), e.g. the direct peer went away or restarted. */
    REMOVED
}
