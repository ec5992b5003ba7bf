package net.fips.control.tor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One monitoring snapshot from the control port (transports.md §6.6), shown as
 * {@code show_transports[].tor_monitoring}. A key Tor did not answer (or answered with something that does not parse)
 * is null here; the reference fills in 0, false or "unknown" instead, which would read as a measurement.
 *
 * @param bootstrap          {@code status/bootstrap-phase} PROGRESS, 0-100, or null
 * @param circuitEstablished {@code status/circuit-established}, or null
 * @param trafficRead        {@code traffic/read} bytes, or null
 * @param trafficWritten     {@code traffic/written} bytes, or null
 * @param networkLiveness    {@code network-liveness} ({@code up}/{@code down}), or null
 * @param version            {@code version}, or null
 * @param dormant            {@code dormant}, or null
 */
public record TorMonitoring(Integer bootstrap, Boolean circuitEstablished, Long trafficRead, Long trafficWritten,
        String networkLiveness, String version, Boolean dormant) {

    /** @return the JSON object with the reference's key names; null values are JSON null */
    public ObjectNode toJson() {
        final ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("bootstrap", bootstrap);
        o.put("circuit_established", circuitEstablished);
        o.put("traffic_read", trafficRead);
        o.put("traffic_written", trafficWritten);
        o.put("network_liveness", networkLiveness);
        o.put("version", version);
        o.put("dormant", dormant);
        return o;
    }
}
