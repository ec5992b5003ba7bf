package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One element of {@code show_connections.connections}: a link handshake still in flight.
 * {@code expected_peer} is left out for inbound handshakes, whose peer is not known yet.
 *
 * @param linkId         link id reserved for the handshake
 * @param direction      who started it
 * @param handshakeState handshake progress
 * @param startedAtMs    Unix ms the handshake started
 * @param idleMs         ms since the last handshake activity; the reference computes it when answering, so a
 *                       {@link ControlApi} fills it from the published last-activity time and the current clock
 * @param resendCount    msg1 resends so far
 * @param expectedPeer   the npub we dialled, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"link_id", "direction", "handshake_state", "started_at_ms", "idle_ms", "resend_count",
        "expected_peer"})
public record ConnectionSnapshot(
        @JsonProperty("link_id") long linkId,
        @JsonProperty("direction") LinkDirection direction,
        @JsonProperty("handshake_state") HandshakeState handshakeState,
        @JsonProperty("started_at_ms") long startedAtMs,
        @JsonProperty("idle_ms") long idleMs,
        @JsonProperty("resend_count") long resendCount,
        @JsonProperty("expected_peer") String expectedPeer) {

    /** Checks required fields. */
    public ConnectionSnapshot {
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(handshakeState, "handshakeState");
    }
}
