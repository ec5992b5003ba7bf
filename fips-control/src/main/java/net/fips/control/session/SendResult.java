package net.fips.control.session;

/** What {@link Sessions#send} did with an outbound packet. */
public enum SendResult {
    /** The session is established: the caller sends the packet through the data plane now (nothing stored). */
    ESTABLISHED,
    /** A handshake is in progress: the packet was queued. */
    QUEUED,
    /** No session existed: a SessionSetup was sent and the packet queued. */
    INITIATED,
    /** No route to the destination: the packet was queued and a lookup requested; no session stored. */
    LOOKUP_REQUESTED,
    /** The destination's identity is unknown: answer with ICMPv6 Destination Unreachable; nothing stored. */
    NO_IDENTITY,
    /** The queue table is full (too many destinations): the packet was dropped. */
    DROPPED
}
