package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Which side opened a link or handshake.
 * Serialised as the lower-case name the reference prints.
 */
public enum LinkDirection {
    /** {@code inbound}. */
    INBOUND("inbound"),
    /** {@code outbound}. */
    OUTBOUND("outbound");

    private final String wireName;

    LinkDirection(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
