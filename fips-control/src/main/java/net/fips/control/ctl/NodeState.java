package net.fips.control.ctl;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Lifecycle state of the node as {@code show_status.state} reports it.
 * Serialised as the lower-case name the reference prints.
 */
public enum NodeState {
    /** {@code created}. */
    CREATED("created"),
    /** {@code starting}. */
    STARTING("starting"),
    /** {@code running}. */
    RUNNING("running"),
    /** {@code stopping}. */
    STOPPING("stopping"),
    /** {@code stopped}. */
    STOPPED("stopped");

    private final String wireName;

    NodeState(final String wireName) {
        this.wireName = wireName;
    }

    /** @return the string the control socket carries for this value */
    @JsonValue
    public String wireName() {
        return wireName;
    }
}
