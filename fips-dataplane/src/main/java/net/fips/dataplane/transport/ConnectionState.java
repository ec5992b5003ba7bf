package net.fips.dataplane.transport;

/** A connection-oriented transport's view of one address (transports.md §1.1 {@code connection_state}). */
public enum ConnectionState {
    /** No connection and no attempt in progress. */
    NONE,
    /** A non-blocking connect (or pre-link exchange) is in progress. */
    CONNECTING,
    /** Frames can be sent. */
    CONNECTED,
    /** The last attempt failed (refused, timed out, reset); a later {@link Transport#connect} starts over. */
    FAILED
}
