package net.fips.control.bloom;

/** What happened to one inbound FilterAnnounce (routing-session §2.5). */
public enum FilterOutcome {
    /** Stored; other peers marked where their outgoing filter changed. */
    ACCEPTED,
    /** Undecodable. */
    DECODE_ERROR,
    /** Size class other than 1. */
    NON_V1,
    /** Not from an active peer. */
    UNKNOWN_PEER,
    /** Sequence not above the last accepted one. */
    STALE,
    /** Over the FPR cap: dropped, previous filter and sequence kept. */
    FILL_EXCEEDED
}
