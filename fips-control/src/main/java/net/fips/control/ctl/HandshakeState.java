package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Progress of a link handshake still in flight ({@code show_connections[].handshake_state}).
 * Serialised as the lower-case name the reference prints.
 */
public enum HandshakeState {
    /** {@code initial}. */
    INITIAL("initial"),
    /** {@code sent_msg1}. */
    SENT_MSG1("sent_msg1"),
    /** {@code received_msg1}. */
    RECEIVED_MSG1("received_msg1"),
    /** {@code complete}. */
    COMPLETE("complete"),
    /** {@code failed}. */
    FAILED("failed");

    private final String wireName;

    HandshakeState(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
