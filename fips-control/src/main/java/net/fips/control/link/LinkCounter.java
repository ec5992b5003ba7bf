package net.fips.control.link;

/** Events the link layer counts; read them from {@link LinkSnapshot#counter(LinkCounter)}. */
public enum LinkCounter {
    /** msg1 packets received (any kind). */
    MSG1_RECEIVED,
    /** msg1 from a stranger on a transport that admits none (accept_connections false: Ethernet by default, TCP
     * without a listener). */
    MSG1_NOT_ADMITTED,
    /** msg1 refused by the token bucket before any parsing. */
    MSG1_RATE_LIMITED,
    /** msg1 refused because too many were being processed at once. */
    MSG1_PENDING_LIMIT,
    /** Handshake packets that failed to parse. */
    HANDSHAKE_MALFORMED,
    /** Noise failures (msg1 or msg2 did not decrypt). */
    HANDSHAKE_CRYPTO_FAILED,
    /** msg2 matching no pending handshake (late duplicates, strays). */
    MSG2_UNKNOWN,
    /** Peers refused by the ACL, all enforcement points together. */
    ACL_REJECTED,
    /** msg1 from a new identity dropped because {@code max_peers} was reached. */
    MAX_PEERS_DROPPED,
    /** Dials refused because {@code max_connections} handshakes were pending. */
    MAX_CONNECTIONS_REFUSED,
    /** Index allocation failed (100 collisions). */
    INDEX_EXHAUSTED,
    /** Duplicate msg1 from an active peer (stored msg2 resent if any). */
    DUPLICATE_MSG1,
    /** Peer restarts detected by a changed epoch. */
    RESTARTS_DETECTED,
    /** Links promoted to established. */
    LINKS_ESTABLISHED,
    /** Cross-connections resolved. */
    CROSS_CONNECTIONS,
    /** Losing connections of a cross-connection closed (transports with one connection per dial: TCP, Tor). */
    CROSS_CONNECTION_CLOSES,
    /** Rekeys we initiated. */
    REKEYS_INITIATED,
    /** Rekey msg1s we answered. */
    REKEYS_RESPONDED,
    /** Rekey msg1s dropped (pending key epoch held, or dual initiation won by us). */
    REKEY_MSG1_DROPPED,
    /** Cutovers to a new key epoch. */
    CUTOVERS,
    /** Own rekeys abandoned (no msg2 after all resends, msg2 failed, or dual initiation lost). */
    REKEYS_ABANDONED,
    /** Pending outbound handshakes that timed out or failed. */
    HANDSHAKE_TIMEOUTS,
    /** Handshake packets retransmitted (msg1 of dials and rekeys). */
    HANDSHAKE_RESENDS,
    /** Peers removed for silence. */
    LINK_DEAD_REMOVALS,
    /** Disconnect messages received. */
    DISCONNECTS_RECEIVED,
    /** Disconnect messages sent. */
    DISCONNECTS_SENT,
    /** Peers removed after 20 consecutive decryption failures. */
    DECRYPT_FAILURE_REMOVALS,
    /** Heartbeats sent. */
    HEARTBEATS_SENT,
    /** Heartbeats received. */
    HEARTBEATS_RECEIVED,
    /** MMP reports sent (sender and receiver). */
    MMP_REPORTS_SENT,
    /** MMP reports received and decoded. */
    MMP_REPORTS_RECEIVED,
    /** MMP reports that did not decode. */
    MMP_REPORTS_INVALID,
    /** Link messages of other types handed to the listener (or ignored without one). */
    OTHER_LINK_MESSAGES,
    /** Reconnect attempts started from the retry schedule. */
    RETRIES_STARTED,
    /** Links that stopped answering while we sent over them: routing avoids them (fast failover). */
    LINKS_SUSPECTED,
    /** Suspect links that answered again. */
    LINKS_RECOVERED,
    /** Rekey msg2s sent again for a retransmitted msg1 while we waited to cut over to its keys (ADR 0065). */
    REKEY_MSG2_RESENT
}
