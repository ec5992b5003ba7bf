package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * State of the IPv6 adapter as {@code show_status.tun_state} reports it.
 * Serialised as the lower-case name the reference prints.
 */
public enum TunState {
    /** {@code disabled}. */
    DISABLED("disabled"),
    /** {@code configured}. */
    CONFIGURED("configured"),
    /** {@code active}. */
    ACTIVE("active"),
    /** {@code failed}. */
    FAILED("failed");

    private final String wireName;

    TunState(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
