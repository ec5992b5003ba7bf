package net.fips.control.ctl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One element of {@code show_transports.transports}. {@code name}, {@code local_addr} and the Tor keys are left
 * out when the transport has no value for them; {@code stats} holds the per-type counters (for UDP:
 * {@code packets_sent, bytes_sent, packets_recv, bytes_recv, send_errors, recv_errors, mtu_exceeded,
 * kernel_drops}; other types have their own sets) in the order given.
 *
 * @param transportId   transport id
 * @param type          type name: {@code udp}, {@code tcp}, {@code ethernet}, {@code tor}, {@code nym}, {@code ble}
 * @param state         transport state
 * @param mtu           transport MTU
 * @param name          instance name of a named instance, or null
 * @param localAddr     bound local address, or null
 * @param torMode       Tor mode, or null
 * @param onionAddress  our onion address, or null
 * @param torMonitoring Tor bootstrap/monitoring object, or null (deep-copied)
 * @param stats         per-type counters (copied; insertion order kept)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"transport_id", "type", "state", "mtu", "name", "local_addr", "tor_mode", "onion_address",
        "tor_monitoring", "stats"})
public record TransportSnapshot(
        @JsonProperty("transport_id") long transportId,
        @JsonProperty("type") String type,
        @JsonProperty("state") TransportState state,
        @JsonProperty("mtu") int mtu,
        @JsonProperty("name") String name,
        @JsonProperty("local_addr") String localAddr,
        @JsonProperty("tor_mode") String torMode,
        @JsonProperty("onion_address") String onionAddress,
        @JsonProperty("tor_monitoring") JsonNode torMonitoring,
        @JsonProperty("stats") Map<String, Long> stats) {

    /** Checks required fields and freezes the mutable parts. */
    public TransportSnapshot {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(state, "state");
        torMonitoring = torMonitoring == null ? null : torMonitoring.deepCopy();
        stats = stats == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(stats));
    }

    /**
     * The UDP counter set with every counter at the given values, in the reference's order.
     *
     * @param packetsSent packets sent
     * @param bytesSent   bytes sent
     * @param packetsRecv packets received
     * @param bytesRecv   bytes received
     * @param sendErrors  send failures
     * @param recvErrors  receive failures
     * @param mtuExceeded packets rejected for MTU
     * @param kernelDrops kernel receive-queue drops
     * @return an ordered counter map
     */
    public static Map<String, Long> udpStats(final long packetsSent, final long bytesSent, final long packetsRecv,
                                             final long bytesRecv, final long sendErrors, final long recvErrors,
                                             final long mtuExceeded, final long kernelDrops) {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("packets_sent", packetsSent);
        m.put("bytes_sent", bytesSent);
        m.put("packets_recv", packetsRecv);
        m.put("bytes_recv", bytesRecv);
        m.put("send_errors", sendErrors);
        m.put("recv_errors", recvErrors);
        m.put("mtu_exceeded", mtuExceeded);
        m.put("kernel_drops", kernelDrops);
        return m;
    }
}
