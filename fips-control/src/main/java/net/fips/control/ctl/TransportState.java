package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Lifecycle state of a transport instance ({@code show_transports[].state}).
 * Serialised as the lower-case name the reference prints.
 */
public enum TransportState {
    /** {@code configured}. */
    CONFIGURED("configured"),
    /** {@code starting}. */
    STARTING("starting"),
    /** {@code up}. */
    UP("up"),
    /** {@code down}. */
    DOWN("down"),
    /** {@code failed}. */
    FAILED("failed");

    private final String wireName;

    TransportState(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
