package net.fips.cli;

import static net.fips.cli.TopFixtures.GATEWAY;
import static net.fips.cli.TopFixtures.GATEWAY_MAPPINGS;
import static net.fips.cli.TopFixtures.STATUS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.cli.TopView.Poll;
import net.fips.cli.TopView.Source;
import net.fips.cli.TopView.Tab;
import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlJson;
import net.fips.control.ctl.ControlSocketServer;

/** {@code fipsctl top}'s Gateway view (discovery-gateway.md §4.6) and its poll of the gateway's own socket. */
class TopGatewayViewTest {
    private static final ControlSocketServer.Options OPTIONS =
            new ControlSocketServer.Options(4096, Duration.ofSeconds(5), 8, null);

    @TempDir
    Path dir;

    @Test
    void summaryGaugeAndMappingsTable() {
        final Poll p = new Poll(Map.of(Source.STATUS, STATUS, Source.GATEWAY, GATEWAY, Source.GATEWAY_MAPPINGS,
                GATEWAY_MAPPINGS), null, null, 1);
        assertEquals(List.of(
                "pool fd01::/120   LAN br-lan   DNS [::1]:5353 -> [::1]:5354   ttl 60 s   grace 60 s",
                "allocated 1   active 1   draining 0   free 253 of 255   NAT mappings 2   uptime 01:02:05",
                "pool use [..............................] 2/255  0.8 %",
                "",
                "Mappings: 2",
                "VIRTUAL_IP  DNS_NAME       MESH_ADDR                 STATE      SESSIONS  AGE       LAST_REF",
                "fd01::1     npub1abc.fips  fd12:3456:789a:bcde:f...  Active     2         00:01:15  3s ago",
                "fd01::2     npub1def.fips  fd99::1                   Allocated  -         00:00:05  5s ago"),
                TopGatewayView.gateway(p).lines().stream().map(String::stripTrailing).toList());
    }

    @Test
    void withoutAGatewayItSaysSo() {
        final Poll p = new Poll(Map.of(Source.STATUS, STATUS), null, null, 1);
        assertEquals("Gateway not running (no answer on the gateway socket; see --gateway-socket)",
                TopGatewayView.gateway(p).lines().getFirst());
    }

    @Test
    void gaugeWordsAtSeventyAndNinetyPercent() {
        assertEquals("pool use [#####################.........] 70/100  70.0 %", TopGatewayView.gauge(100, 70));
        assertEquals("pool use [########################......] 80/100  80.0 %  high", TopGatewayView.gauge(100, 80));
        assertEquals("pool use [###########################...] 91/100  91.0 %  nearly full",
                TopGatewayView.gauge(100, 91));
        assertEquals("pool use -", TopGatewayView.gauge(0, 0));
    }

    @Test
    void theGatewayViewPollsTheGatewaysSocketAndSurvivesItsAbsence() throws Exception {
        final JsonNode status = STATUS;
        final ControlSocketServer gw = ControlSocketServer.serve(dir.resolve("gateway.sock"),
                line -> line.contains("show_gateway") ? ControlJson.ok(GATEWAY)
                        : line.contains("show_mappings") ? ControlJson.ok(GATEWAY_MAPPINGS)
                        : ControlJson.error("unknown command"), OPTIONS);
        try (ControlSocketServer daemon = ControlSocketServer.serve(dir.resolve("control.sock"),
                line -> ControlJson.ok(line.contains("show_status") ? status : ControlJson.MAPPER.createObjectNode()),
                OPTIONS)) {
            final ControlClient client = new ControlClient(daemon.path(), Duration.ofSeconds(2));
            final ControlClient gateway = new ControlClient(gw.path(), Duration.ofSeconds(2));
            final TopState s = TopState.initial().withTab(Tab.GATEWAY);
            final Poll p = TopCommand.poll(client, gateway, null, s);
            assertEquals(GATEWAY, p.get(Source.GATEWAY));
            assertEquals(GATEWAY_MAPPINGS, p.get(Source.GATEWAY_MAPPINGS));
            gw.close();
            final Poll later = TopCommand.poll(client, gateway, p, s);
            assertNull(later.get(Source.GATEWAY), "a gateway that went away is not shown from stale answers");
            assertNull(later.error(), "the daemon is still reachable");
        } finally {
            gw.close();
        }
    }
}
