package net.fips.gateway;

import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.GatewayConfig;
import net.fips.control.ctl.ControlJson;

/**
 * The gateway's control commands (discovery-gateway.md §4.6, operator.md §2.3) in the reference's JSON shapes:
 * {@code show_gateway} and {@code show_mappings}; anything else is {@code unknown command: X}. Values are read at
 * the request, not from a snapshot up to one tick old as in the reference. {@code sessions} is the mapping's
 * conntrack entries, or null when conntrack cannot be read (ADR 0049).
 */
final class GatewayControl {
    private final Gateway gateway;
    private final String dnsListen;

    /**
     * @param gateway   the state
     * @param dnsListen the listener actually bound, as shown
     */
    GatewayControl(final Gateway gateway, final String dnsListen) {
        this.gateway = gateway;
        this.dnsListen = dnsListen;
    }

    /**
     * @param line one request line
     * @return the response envelope
     */
    ObjectNode handle(final String line) {
        final JsonNode request;
        try {
            request = ControlJson.MAPPER.readTree(line.strip());
        } catch (final JsonProcessingException e) {
            return ControlJson.error("invalid request: " + e.getOriginalMessage());
        }
        if (request == null || request.isMissingNode() || !request.isObject()) {
            return ControlJson.error("invalid request: expected a JSON object");
        }
        final JsonNode command = request.get("command");
        if (command == null || !command.isTextual()) {
            return ControlJson.error("invalid request: missing field `command`");
        }
        try {
            return switch (command.asText()) {
                case "show_gateway" -> ControlJson.ok(showGateway());
                case "show_mappings" -> ControlJson.ok(showMappings());
                default -> ControlJson.error("unknown command: " + command.asText());
            };
        } catch (final RuntimeException e) {
            return ControlJson.error("internal error: " + e.getClass().getSimpleName());
        }
    }

    ObjectNode showGateway() {
        final Gateway.Snapshot s = gateway.snapshot();
        final GatewayConfig c = gateway.config();
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        o.put("pool_total", s.status().total());
        o.put("pool_allocated", s.status().allocated());
        o.put("pool_active", s.status().active());
        o.put("pool_draining", s.status().draining());
        o.put("pool_free", s.status().free());
        o.put("nat_mappings", s.natMappings());
        o.put("dns_listen", dnsListen);
        o.put("uptime_secs", s.uptimeSecs());
        o.put("pool_cidr", c.pool());
        o.put("lan_interface", c.lanInterface());
        o.put("dns_upstream", c.dnsUpstream());
        o.put("dns_ttl", c.dnsTtl());
        o.put("pool_grace_period", c.poolGracePeriod());
        return o;
    }

    ObjectNode showMappings() {
        final Gateway.Snapshot s = gateway.snapshot();
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        final ArrayNode list = o.putArray("mappings");
        for (final VirtualPool.Mapping m : s.mappings()) {
            final ObjectNode e = list.addObject();
            e.put("virtual_ip", Addresses.text(m.virtualIp()));
            e.put("mesh_addr", Addresses.text(m.meshAddr()));
            e.put("node_addr", m.nodeKey().toLowerCase(Locale.ROOT));
            e.put("dns_name", m.dnsName());
            e.put("state", m.state().text());
            if (m.sessions() < 0) {
                e.putNull("sessions");
            } else {
                e.put("sessions", m.sessions());
            }
            e.put("age_secs", m.ageSecs());
            e.put("last_ref_secs", m.lastRefSecs());
        }
        return o;
    }
}
