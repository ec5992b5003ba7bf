package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The {@code data} object of a successful {@code connect}: the request echoed. As in reference v0.4.1, success
 * means the dial was started, not that the handshake finished. When the peer already has a link nothing is dialled
 * and {@code already_connected: true} is added (the key is absent otherwise, so the reference's shape is kept).
 *
 * @param npub             the peer's npub
 * @param address          the transport address dialled
 * @param transport        the transport type
 * @param alreadyConnected true when the peer was already linked and no dial started; null otherwise
 */
@JsonPropertyOrder({"npub", "address", "transport", "already_connected"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConnectResult(
        @JsonProperty("npub") String npub,
        @JsonProperty("address") String address,
        @JsonProperty("transport") String transport,
        @JsonProperty("already_connected") Boolean alreadyConnected) {

    /** Checks required fields. */
    public ConnectResult {
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(transport, "transport");
    }

    /** A dial that was started. */
    public ConnectResult(final String npub, final String address, final String transport) {
        this(npub, address, transport, null);
    }
}
