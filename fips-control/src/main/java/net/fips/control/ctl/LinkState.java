package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Lifecycle state of a link ({@code show_links[].state}).
 * Serialised as the lower-case name the reference prints.
 */
public enum LinkState {
    /** {@code connecting}. */
    CONNECTING("connecting"),
    /** {@code connected}. */
    CONNECTED("connected"),
    /** {@code disconnected}. */
    DISCONNECTED("disconnected"),
    /** {@code failed}. */
    FAILED("failed");

    private final String wireName;

    LinkState(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
