package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code data} object of a successful {@code disconnect}: {@code {"npub": ..., "disconnected": true}}.
 *
 * @param npub the peer's npub as given
 */
@JsonPropertyOrder({"npub", "disconnected"})
public record DisconnectResult(@JsonProperty("npub") String npub) {

    /** Checks the npub. */
    public DisconnectResult {
        Objects.requireNonNull(npub, "npub");
    }

    /** @return always true; the reference has no other success value */
    @JsonProperty("disconnected")
    public boolean disconnected() {
        return true;
    }
}
