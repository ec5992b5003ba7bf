package net.fips.control.session;

/** Events the session layer counts; read them with {@link Sessions#counter(SessionCounter)}. */
public enum SessionCounter {
    /** FSP messages that did not parse (prefix, carrier or error signal). */
    MALFORMED,
    /** Messages whose handling threw unexpectedly (a bug; caught and dropped, never propagated). */
    INTERNAL_ERROR,
    /** Handshake carriers whose Noise message had the wrong length. */
    BAD_HANDSHAKE_LENGTH,
    /** Encrypted phase-0 messages handed to {@link Sessions#onFspMessage} (they belong to the data plane). */
    ENCRYPTED_NOT_HANDLED,
    /** Noise reads that failed (bad key, bad tag); the entry is left as it was. */
    HANDSHAKE_FAILED,
    /** SessionSetups received. */
    SETUPS_RECEIVED,
    /** SessionAcks received. */
    ACKS_RECEIVED,
    /** SessionMsg3s received. */
    MSG3_RECEIVED,
    /** SessionSetups sent (first transmissions). */
    SETUPS_SENT,
    /** SessionAcks sent (first transmissions). */
    ACKS_SENT,
    /** SessionMsg3 sent (first transmissions). */
    MSG3_SENT,
    /** Handshake messages re-sent by the resend timer. */
    HANDSHAKE_RESENDS,
    /** Stored SessionAcks re-sent for a duplicate SessionSetup. */
    DUPLICATE_SETUP_ACK_RESENT,
    /** Duplicates of the SessionSetup that created an established session, ignored. */
    DUPLICATE_SETUP_IGNORED,
    /** msg3 re-sent because the responder repeated its SessionAck (msg3 loss recovery). */
    MSG3_RESENT,
    /** A SessionAck for a destination with no session entry. */
    ACK_UNKNOWN_SESSION,
    /** A SessionAck or SessionMsg3 that does not fit the entry's state. */
    BAD_STATE,
    /** A SessionMsg3 for a source with no session entry. */
    MSG3_UNKNOWN_SESSION,
    /** Simultaneous open: we have the smaller address and dropped the peer's SessionSetup. */
    SIMULTANEOUS_KEPT_INITIATOR,
    /** Simultaneous open: the peer has the smaller address; we dropped our attempt and answered. */
    SIMULTANEOUS_BECAME_RESPONDER,
    /** Handshake messages that could not be routed (nothing stored for a first transmission). */
    NO_ROUTE,
    /** msg3 keys whose node_addr did not match the datagram's src_addr. */
    IDENTITY_MISMATCH,
    /** Sessions established (initiator and responder, first handshakes). */
    ESTABLISHED,
    /** Handshakes deleted by the handshake timeout. */
    HANDSHAKE_TIMEOUTS,
    /** Established sessions deleted by the idle timeout. */
    IDLE_EXPIRED,
    /** Packets queued while waiting for a session. */
    PACKETS_QUEUED,
    /** Queued packets dropped (oldest, per-destination limit). */
    QUEUE_OVERFLOW,
    /** Packets dropped because the queue table held the maximum number of destinations. */
    QUEUE_DESTINATIONS_FULL,
    /** Queued packets discarded with a deleted session. */
    QUEUE_DISCARDED,
    /** Plaintext error signals received. */
    ERROR_SIGNALS,
    /** CoordsWarmups requested in reaction to error signals. */
    WARMUPS_REQUESTED,
    /** Of those reactions, suppressed by the per-destination rate limit. */
    WARMUPS_RATE_LIMITED,
    /** Decrypted inner messages handed to {@link Sessions#onInnerMessage}. */
    INNER_MESSAGES,
    /** Inner messages of a type the control plane does not handle (MMP reports, unknown). */
    INNER_IGNORED,
    /** Rekey handshakes started (as initiator). */
    REKEYS_STARTED,
    /** Rekey handshakes answered (as responder). */
    REKEYS_ANSWERED,
    /** Rekey generations completed (pending keys handed out). */
    REKEYS_COMPLETED,
    /** Rekey cutovers (pending promoted to current). */
    REKEY_CUTOVERS,
    /** Rekey attempts abandoned (no Ack in time, or msg3 resends exhausted). */
    REKEYS_ABANDONED
}
