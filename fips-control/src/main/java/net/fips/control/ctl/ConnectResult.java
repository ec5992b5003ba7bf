package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code data} object of a successful {@code connect}: the request echoed. As in reference v0.4.1, success
 * means the dial was started, not that the handshake finished.
 *
 * @param npub      the peer's npub
 * @param address   the transport address dialled
 * @param transport the transport type
 */
@JsonPropertyOrder({"npub", "address", "transport"})
public record ConnectResult(
        @JsonProperty("npub") String npub,
        @JsonProperty("address") String address,
        @JsonProperty("transport") String transport) {

    /** Checks required fields. */
    public ConnectResult {
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(transport, "transport");
    }
}
