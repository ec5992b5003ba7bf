package net.fips.control.ctl;

import java.util.HexFormat;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One element of {@code show_peers.peers}: an authenticated peer. Keys whose component is {@code null} are left
 * out, as the reference leaves them out when it has no value ({@code transport_addr}, {@code direction},
 * {@code transport_type}, {@code tree_depth}, {@code noise}, {@code our_session_index}, {@code mmp});
 * {@code effective_depth} is always present and may be {@code null}; {@code rekey_in_progress} and
 * {@code rekey_draining} appear only when true.
 *
 * @param nodeAddr                   the peer's node_addr in hex
 * @param npub                       the peer's npub
 * @param displayName                alias from config or hosts file, else a shortened npub
 * @param ipv6Addr                   the peer's fd00::/8 address
 * @param connectivity               link health
 * @param linkId                     the link the peer is on
 * @param authenticatedAtMs          Unix ms when the handshake completed
 * @param lastSeenMs                 Unix ms of the last frame from the peer
 * @param hasTreePosition            whether the peer has announced a tree position
 * @param hasBloomFilter             whether a bloom filter arrived from the peer
 * @param filterSequence             sequence of the peer's latest filter (0 = none)
 * @param isParent                   whether the peer is our tree parent
 * @param isChild                    whether the peer declared us as its parent
 * @param transportAddr              the peer's transport address, or null
 * @param direction                  who opened the link, or null when the link is gone
 * @param transportType              transport type name ({@code udp}, {@code tcp}, ...), or null
 * @param treeDepth                  the peer's tree depth, or null when it has no coordinates
 * @param effectiveDepth             tree depth plus link cost, or null (always emitted)
 * @param stats                      link traffic totals
 * @param replaySuppressed           frames dropped by the replay window
 * @param consecutiveDecryptFailures decrypt failures in a row
 * @param nostrTraversal             Nostr NAT-traversal failure state (always emitted)
 * @param noise                      Noise transport counters, or null
 * @param ourSessionIndex            our session index for this peer as 8 hex digits, or null
 * @param rekeyInProgress            whether a rekey is under way (emitted only when true)
 * @param rekeyDraining              whether the previous session is draining (emitted only when true)
 * @param currentKBit                the key-phase bit in use
 * @param mmp                        link measurement metrics, or null
 * @param rekeys                     rekey cutovers on the peer's current link, or null (not in the reference)
 * @param restarts                   restarts of the peer detected since our start, or null (not in the reference)
 * @param decryptFailures            frames from the peer that failed authentication on its current link, or null
 *                                   (not in the reference, which only shows the current run)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"node_addr", "npub", "display_name", "ipv6_addr", "connectivity", "link_id",
        "authenticated_at_ms", "last_seen_ms", "has_tree_position", "has_bloom_filter", "filter_sequence",
        "is_parent", "is_child", "transport_addr", "direction", "transport_type", "tree_depth", "effective_depth",
        "stats", "replay_suppressed", "consecutive_decrypt_failures", "decrypt_failures", "rekeys", "restarts",
        "nostr_traversal", "noise",
        "our_session_index", "rekey_in_progress", "rekey_draining", "current_k_bit", "mmp"})
public record PeerSnapshot(
        @JsonProperty("node_addr") String nodeAddr,
        @JsonProperty("npub") String npub,
        @JsonProperty("display_name") String displayName,
        @JsonProperty("ipv6_addr") String ipv6Addr,
        @JsonProperty("connectivity") Connectivity connectivity,
        @JsonProperty("link_id") long linkId,
        @JsonProperty("authenticated_at_ms") long authenticatedAtMs,
        @JsonProperty("last_seen_ms") long lastSeenMs,
        @JsonProperty("has_tree_position") boolean hasTreePosition,
        @JsonProperty("has_bloom_filter") boolean hasBloomFilter,
        @JsonProperty("filter_sequence") long filterSequence,
        @JsonProperty("is_parent") boolean isParent,
        @JsonProperty("is_child") boolean isChild,
        @JsonProperty("transport_addr") String transportAddr,
        @JsonProperty("direction") LinkDirection direction,
        @JsonProperty("transport_type") String transportType,
        @JsonProperty("tree_depth") Integer treeDepth,
        @JsonProperty("effective_depth") @JsonInclude(JsonInclude.Include.ALWAYS) Double effectiveDepth,
        @JsonProperty("stats") TrafficStats stats,
        @JsonProperty("replay_suppressed") long replaySuppressed,
        @JsonProperty("consecutive_decrypt_failures") long consecutiveDecryptFailures,
        @JsonProperty("nostr_traversal") NostrTraversal nostrTraversal,
        @JsonProperty("noise") NoiseCounters noise,
        @JsonProperty("our_session_index") String ourSessionIndex,
        @JsonProperty("rekey_in_progress") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean rekeyInProgress,
        @JsonProperty("rekey_draining") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean rekeyDraining,
        @JsonProperty("current_k_bit") boolean currentKBit,
        @JsonProperty("mmp") LinkMmp mmp,
        @JsonProperty("rekeys") Long rekeys,
        @JsonProperty("restarts") Long restarts,
        @JsonProperty("decrypt_failures") Long decryptFailures) {

    /**
     * The reference's fields only: the per-peer event totals ({@code rekeys}, {@code restarts},
     * {@code decrypt_failures}) are left out. Parameters as the canonical constructor's.
     */
    public PeerSnapshot(final String nodeAddr, final String npub, final String displayName, final String ipv6Addr,
                        final Connectivity connectivity, final long linkId, final long authenticatedAtMs,
                        final long lastSeenMs, final boolean hasTreePosition, final boolean hasBloomFilter,
                        final long filterSequence, final boolean isParent, final boolean isChild,
                        final String transportAddr, final LinkDirection direction, final String transportType,
                        final Integer treeDepth, final Double effectiveDepth, final TrafficStats stats,
                        final long replaySuppressed, final long consecutiveDecryptFailures,
                        final NostrTraversal nostrTraversal, final NoiseCounters noise, final String ourSessionIndex,
                        final boolean rekeyInProgress, final boolean rekeyDraining, final boolean currentKBit,
                        final LinkMmp mmp) {
        this(nodeAddr, npub, displayName, ipv6Addr, connectivity, linkId, authenticatedAtMs, lastSeenMs,
                hasTreePosition, hasBloomFilter, filterSequence, isParent, isChild, transportAddr, direction,
                transportType, treeDepth, effectiveDepth, stats, replaySuppressed, consecutiveDecryptFailures,
                nostrTraversal, noise, ourSessionIndex, rekeyInProgress, rekeyDraining, currentKBit, mmp, null, null,
                null);
    }

    /** Checks required fields and fills the always-present objects with their empty values. */
    public PeerSnapshot {
        Objects.requireNonNull(nodeAddr, "nodeAddr");
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(ipv6Addr, "ipv6Addr");
        Objects.requireNonNull(connectivity, "connectivity");
        stats = stats == null ? TrafficStats.ZERO : stats;
        nostrTraversal = nostrTraversal == null ? NostrTraversal.NONE : nostrTraversal;
        if (effectiveDepth != null && (effectiveDepth.isNaN() || effectiveDepth.isInfinite())) {
            effectiveDepth = null;
        }
    }

    /**
     * Formats a session index the way {@code our_session_index} carries it.
     *
     * @param index the 32-bit index
     * @return 8 lower-case hex digits
     */
    public static String sessionIndexHex(final int index) {
        return HexFormat.of().toHexDigits(index);
    }

    /**
     * Nostr NAT-traversal failure state for a peer. Always present; all-default when Nostr discovery is off or
     * the npub was never attempted.
     *
     * @param consecutiveFailures traversal failures in a row
     * @param cooldownUntilMs     Unix ms the cooldown ends, or null when not cooling down (always emitted)
     * @param lastObservedSkewMs  clock skew seen in the peer's last signal, or null (always emitted)
     */
    @JsonPropertyOrder({"consecutive_failures", "in_cooldown", "cooldown_until_ms", "last_observed_skew_ms"})
    public record NostrTraversal(
            @JsonProperty("consecutive_failures") long consecutiveFailures,
            @JsonProperty("cooldown_until_ms") @JsonInclude(JsonInclude.Include.ALWAYS) Long cooldownUntilMs,
            @JsonProperty("last_observed_skew_ms") @JsonInclude(JsonInclude.Include.ALWAYS) Long lastObservedSkewMs) {

        /** No failures recorded. */
        public static final NostrTraversal NONE = new NostrTraversal(0, null, null);

        /** @return whether a cooldown is running; the reference derives it from {@code cooldown_until_ms} */
        @JsonProperty("in_cooldown")
        public boolean inCooldown() {
            return cooldownUntilMs != null;
        }
    }

    /**
     * Noise transport counters of the peer's link session.
     *
     * @param sendCounter        next nonce we send with
     * @param highestRecvCounter highest nonce accepted from the peer
     */
    @JsonPropertyOrder({"send_counter", "highest_recv_counter"})
    public record NoiseCounters(
            @JsonProperty("send_counter") long sendCounter,
            @JsonProperty("highest_recv_counter") long highestRecvCounter) {
    }
}
