package net.fips.control.ctl;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code data} object of {@code show_status}: node identity, lifecycle, counts and process facts. Every key is
 * always present; {@code estimated_mesh_size} is {@code null} until the node has an estimate.
 *
 * @param version             short version string, e.g. {@code "0.1.0 (rev abc1234)"}
 * @param npub                our npub
 * @param nodeAddr            our node_addr, 32 lower-case hex digits
 * @param ipv6Addr            our fd00::/8 address
 * @param state               node lifecycle state
 * @param isLeafOnly          whether leaf-only mode is on
 * @param peerCount           authenticated peers
 * @param sessionCount        end-to-end sessions
 * @param linkCount           links
 * @param transportCount      transport instances
 * @param connectionCount     link handshakes in flight
 * @param tunState            IPv6 adapter state
 * @param tunName             adapter name, {@code "-"} when there is none
 * @param effectiveIpv6Mtu    the IPv6 MTU offered to applications
 * @param controlSocket       the control socket path from config
 * @param pid                 daemon process id
 * @param exePath             daemon executable path, {@code "-"} when unknown
 * @param uptimeSecs          seconds since node start
 * @param estimatedMeshSize   mesh size estimate, or null when there is none yet
 * @param persistent          whether the identity survives a restart (persistent flag or explicit nsec)
 * @param root                the spanning-tree root's node_addr in hex
 * @param isRoot              whether we are the root
 * @param transportPeerCounts peers per transport type; configured types appear with 0 (kept sorted by key)
 * @param forwarding          forwarding counters
 * @param sparklines          short history series
 */
public record StatusSnapshot(
        @JsonProperty("version") String version,
        @JsonProperty("npub") String npub,
        @JsonProperty("node_addr") String nodeAddr,
        @JsonProperty("ipv6_addr") String ipv6Addr,
        @JsonProperty("state") NodeState state,
        @JsonProperty("is_leaf_only") boolean isLeafOnly,
        @JsonProperty("peer_count") long peerCount,
        @JsonProperty("session_count") long sessionCount,
        @JsonProperty("link_count") long linkCount,
        @JsonProperty("transport_count") long transportCount,
        @JsonProperty("connection_count") long connectionCount,
        @JsonProperty("tun_state") TunState tunState,
        @JsonProperty("tun_name") String tunName,
        @JsonProperty("effective_ipv6_mtu") int effectiveIpv6Mtu,
        @JsonProperty("control_socket") String controlSocket,
        @JsonProperty("pid") long pid,
        @JsonProperty("exe_path") String exePath,
        @JsonProperty("uptime_secs") long uptimeSecs,
        @JsonProperty("estimated_mesh_size") @JsonInclude(JsonInclude.Include.ALWAYS) Long estimatedMeshSize,
        @JsonProperty("persistent") boolean persistent,
        @JsonProperty("root") String root,
        @JsonProperty("is_root") boolean isRoot,
        @JsonProperty("transport_peer_counts") Map<String, Long> transportPeerCounts,
        @JsonProperty("forwarding") ForwardingCounters forwarding,
        @JsonProperty("sparklines") Sparklines sparklines) {

    /** Checks the required fields and freezes the map (sorted, as the reference's BTreeMap). */
    public StatusSnapshot {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(nodeAddr, "nodeAddr");
        Objects.requireNonNull(ipv6Addr, "ipv6Addr");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(tunState, "tunState");
        tunName = tunName == null ? "-" : tunName;
        Objects.requireNonNull(controlSocket, "controlSocket");
        exePath = exePath == null ? "-" : exePath;
        Objects.requireNonNull(root, "root");
        transportPeerCounts = transportPeerCounts == null ? Map.of()
                : Collections.unmodifiableSortedMap(new TreeMap<>(transportPeerCounts));
        forwarding = forwarding == null ? ForwardingCounters.ZERO : forwarding;
        sparklines = sparklines == null ? Sparklines.EMPTY : sparklines;
    }
}
