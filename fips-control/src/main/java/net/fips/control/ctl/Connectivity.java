package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Health of an authenticated peer ({@code show_peers[].connectivity}).
 * Serialised as the lower-case name the reference prints.
 */
public enum Connectivity {
    /** {@code connected}. */
    CONNECTED("connected"),
    /** {@code stale}. */
    STALE("stale"),
    /** {@code reconnecting}. */
    RECONNECTING("reconnecting"),
    /** {@code disconnected}. */
    DISCONNECTED("disconnected");

    private final String wireName;

    Connectivity(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
