package net.fips.control.tree;

/** What happened to one inbound TreeAnnounce (routing-session §1.3). */
public enum TreeAnnounceOutcome {
    /** Fresh and consistent: stored, parent re-evaluated. */
    ACCEPTED,
    /** Valid but not fresher than the stored declaration: display copy updated only. */
    STALE,
    /** Undecodable. */
    DECODE_ERROR,
    /** Not from an active peer. */
    UNKNOWN_PEER,
    /** Declared by a node other than the link peer. */
    ADDR_MISMATCH,
    /** Signature does not verify with the peer's key. */
    SIG_FAILED,
    /** Breaks a semantic rule (e.g. the root is not the minimum of the path). */
    ANCESTRY_INVALID
}
