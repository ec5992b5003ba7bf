package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One element of {@code show_peers.not_connected}, which the reference does not have: a peer from the config's
 * {@code peers[]} that is not an established peer now. {@code show_peers.peers} keeps the reference's shape; the key
 * is only present when some configured peer is down.
 *
 * @param npub           the peer's npub
 * @param displayName    alias from config or hosts file, else a shortened npub
 * @param nodeAddr       the peer's node_addr in hex
 * @param state          {@link #CONNECTING}, {@link #RETRYING} or {@link #DISCONNECTED}
 * @param transportType  the transport of the dial in flight, else of the configured address tried first, or null
 * @param transportAddr  the address dialled, else the configured address tried first, or null
 * @param retryInMs      with {@link #RETRYING}: ms until the next dial (0 when due), else null
 * @param failedAttempts with {@link #RETRYING}: dials that failed in a row, else null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"npub", "display_name", "node_addr", "state", "transport_type", "transport_addr", "retry_in_ms",
        "failed_attempts"})
public record UnconnectedPeer(
        @JsonProperty("npub") String npub,
        @JsonProperty("display_name") String displayName,
        @JsonProperty("node_addr") String nodeAddr,
        @JsonProperty("state") String state,
        @JsonProperty("transport_type") String transportType,
        @JsonProperty("transport_addr") String transportAddr,
        @JsonProperty("retry_in_ms") Long retryInMs,
        @JsonProperty("failed_attempts") Integer failedAttempts) {

    /** A handshake to the peer is in flight. */
    public static final String CONNECTING = "connecting";
    /** A dial failed or the link was lost; the next dial is scheduled ({@code retry_in_ms}). */
    public static final String RETRYING = "retrying";
    /**
     * Nothing is in flight or scheduled: not dialled by itself ({@code connect_policy}), no usable address, retries
     * given up, or an operator disconnect.
     */
    public static final String DISCONNECTED = "disconnected";

    /** Checks required fields. */
    public UnconnectedPeer {
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(nodeAddr, "nodeAddr");
        Objects.requireNonNull(state, "state");
    }
}
