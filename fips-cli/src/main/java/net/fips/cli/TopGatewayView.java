package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.cli.TopView.Body;
import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;

/**
 * {@code fipsctl top}'s Gateway view, as the reference fipstop's Gateway tab (discovery-gateway.md §4.6): from the
 * gateway's own socket, a summary of {@code show_gateway}, a pool-use gauge and the {@code show_mappings} table.
 * Plain text: the gauge says "high" above 70 % and "nearly full" above 90 % where fipstop turns yellow and red.
 */
final class TopGatewayView {
    private static final int GAUGE = 30;
    private static final int MESH_WIDTH = 24;

    private TopGatewayView() {
    }

    static Body gateway(final Poll p) {
        final JsonNode g = p.get(Source.GATEWAY);
        if (g == null) {
            return new Body(List.of("Gateway not running (no answer on the gateway socket; see --gateway-socket)"),
                    -1);
        }
        final List<String> lines = new ArrayList<>();
        lines.add("pool " + TopFormat.text(g.get("pool_cidr")) + "   LAN " + TopFormat.text(g.get("lan_interface"))
                + "   DNS " + TopFormat.text(g.get("dns_listen")) + " -> " + TopFormat.text(g.get("dns_upstream"))
                + "   ttl " + TopFormat.text(g.get("dns_ttl")) + " s   grace "
                + TopFormat.text(g.get("pool_grace_period")) + " s");
        lines.add("allocated " + TopFormat.text(g.get("pool_allocated")) + "   active "
                + TopFormat.text(g.get("pool_active")) + "   draining " + TopFormat.text(g.get("pool_draining"))
                + "   free " + TopFormat.text(g.get("pool_free")) + " of " + TopFormat.text(g.get("pool_total"))
                + "   NAT mappings " + TopFormat.text(g.get("nat_mappings")) + "   uptime "
                + TopFormat.uptime(g.get("uptime_secs")));
        lines.add(gauge(g.path("pool_total").asLong(), g.path("pool_total").asLong() - g.path("pool_free").asLong()));
        lines.add("");
        final JsonNode m = p.get(Source.GATEWAY_MAPPINGS);
        final List<String[]> rows = new ArrayList<>();
        if (m != null) {
            for (final JsonNode e : m.path("mappings")) {
                final String mesh = TopFormat.text(e.get("mesh_addr"));
                rows.add(new String[] {TopFormat.text(e.get("virtual_ip")), TopFormat.text(e.get("dns_name")),
                    mesh.length() > MESH_WIDTH ? mesh.substring(0, MESH_WIDTH - 3) + "..." : mesh,
                    TopFormat.text(e.get("state")), TopFormat.text(e.get("sessions")),
                    TopFormat.uptime(e.get("age_secs")), TopFormat.text(e.get("last_ref_secs")) + "s ago"});
            }
        }
        lines.add("Mappings: " + (m == null ? "-" : rows.size()));
        if (!rows.isEmpty()) {
            lines.addAll(List.of(TableView.table(new String[] {"VIRTUAL_IP", "DNS_NAME", "MESH_ADDR", "STATE",
                "SESSIONS", "AGE", "LAST_REF"}, rows).split("\n")));
        }
        return new Body(lines, -1);
    }

    /** @return {@code pool use [#####.....] used/total  p %}, with a word above 70 % and 90 % */
    static String gauge(final long total, final long used) {
        if (total <= 0) {
            return "pool use -";
        }
        final double share = Math.max(0, Math.min(1, (double) used / total));
        final int filled = (int) Math.round(share * GAUGE);
        return "pool use [" + "#".repeat(filled) + ".".repeat(GAUGE - filled) + "] " + used + "/" + total + "  "
                + String.format(Locale.ROOT, "%.1f %%", share * 100)
                + (share > 0.9 ? "  nearly full" : share > 0.7 ? "  high" : "");
    }
}
