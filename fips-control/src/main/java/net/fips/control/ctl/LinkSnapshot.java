package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One element of {@code show_links.links}. Every key is always present.
 *
 * @param linkId      link id
 * @param transportId id of the transport instance carrying the link
 * @param remoteAddr  remote transport address as text
 * @param direction   who opened the link
 * @param state       link state
 * @param createdAtMs Unix ms the link was created
 * @param stats       traffic totals of the link
 * @param replaySuppressed frames from the peer the replay window refused on this link, or null (not in the
 *                    reference's {@code show_links})
 * @param decryptFailures  frames that failed authentication on this link, or null (not in the reference)
 * @param rekeys      rekey cutovers on this link, or null (not in the reference)
 */
@JsonPropertyOrder({"link_id", "transport_id", "remote_addr", "direction", "state", "created_at_ms", "stats",
        "replay_suppressed", "decrypt_failures", "rekeys"})
public record LinkSnapshot(
        @JsonProperty("link_id") long linkId,
        @JsonProperty("transport_id") long transportId,
        @JsonProperty("remote_addr") String remoteAddr,
        @JsonProperty("direction") LinkDirection direction,
        @JsonProperty("state") LinkState state,
        @JsonProperty("created_at_ms") long createdAtMs,
        @JsonProperty("stats") Stats stats,
        @JsonProperty("replay_suppressed") @JsonInclude(JsonInclude.Include.NON_NULL) Long replaySuppressed,
        @JsonProperty("decrypt_failures") @JsonInclude(JsonInclude.Include.NON_NULL) Long decryptFailures,
        @JsonProperty("rekeys") @JsonInclude(JsonInclude.Include.NON_NULL) Long rekeys) {

    /**
     * The reference's fields only: the link's event totals are left out.
     *
     * @param linkId      link id
     * @param transportId transport id
     * @param remoteAddr  remote address
     * @param direction   who dialled
     * @param state       link state
     * @param createdAtMs Unix ms of creation
     * @param stats       traffic totals
     */
    public LinkSnapshot(final long linkId, final long transportId, final String remoteAddr,
                        final LinkDirection direction, final LinkState state, final long createdAtMs,
                        final Stats stats) {
        this(linkId, transportId, remoteAddr, direction, state, createdAtMs, stats, null, null, null);
    }

    /** Checks required fields. */
    public LinkSnapshot {
        Objects.requireNonNull(remoteAddr, "remoteAddr");
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(state, "state");
        stats = stats == null ? new Stats(0, 0, 0, 0, 0) : stats;
    }

    /**
     * Traffic totals of a link.
     *
     * @param packetsSent packets sent
     * @param packetsRecv packets received
     * @param bytesSent   bytes sent
     * @param bytesRecv   bytes received
     * @param lastRecvMs  Unix ms of the last received frame (0 = none)
     */
    @JsonPropertyOrder({"packets_sent", "packets_recv", "bytes_sent", "bytes_recv", "last_recv_ms"})
    public record Stats(
            @JsonProperty("packets_sent") long packetsSent,
            @JsonProperty("packets_recv") long packetsRecv,
            @JsonProperty("bytes_sent") long bytesSent,
            @JsonProperty("bytes_recv") long bytesRecv,
            @JsonProperty("last_recv_ms") long lastRecvMs) {
    }
}
