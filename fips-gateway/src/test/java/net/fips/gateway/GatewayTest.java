package net.fips.gateway;

import static net.fips.gateway.VirtualPoolTest.v6;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.config.GatewayConfig;
import net.fips.control.ctl.ControlJson;

/**
 * The gateway's state machine with nft, ip and conntrack replaced by recorders: NAT installed before the DNS answer,
 * busy mappings kept by their counters, idle ones reclaimed with their rules and proxy-NDP entry, the teardown, and
 * the control socket's JSON shapes (discovery-gateway.md §4.6).
 */
class GatewayTest {
    @TempDir
    Path dir;

    private long now;
    private final List<String> calls = new ArrayList<>();
    private final Map<String, Long> counters = new HashMap<>();
    private String table = "";
    private final ByteArrayOutputStream logText = new ByteArrayOutputStream();

    private final Nft nft = new Nft() {
        @Override
        public void replace(final String t) {
            table = t;
            calls.add("nft replace");
        }

        @Override
        public void delete() {
            table = "";
            calls.add("nft delete");
        }

        @Override
        public Map<String, Long> packetCounters() {
            return Map.copyOf(counters);
        }
    };

    private final NetSetup net = new NetSetup(Path.of("/nonexistent"), "ip") {
        @Override
        public void addProxyNdp(final Inet6Address vip, final String lan) {
            calls.add("ndp add " + Addresses.text(vip) + " " + lan);
        }

        @Override
        public void deleteProxyNdp(final Inet6Address vip, final String lan) {
            calls.add("ndp del " + Addresses.text(vip) + " " + lan);
        }
    };

    private static final GatewayConfig CONFIG = new GatewayConfig(true, "fd01::/126", "lan0", 20, "[::1]:5300",
            "[::1]:5354", 30, GatewayConfig.Conntrack.DEFAULTS, List.of());

    private Gateway gateway(final Path conntrackFile) {
        return new Gateway(CONFIG, "fips0", new VirtualPool(PoolCidr.parse(CONFIG.pool()), 30, 20), nft, net,
                new Conntrack(conntrackFile), () -> now,
                new Log(new PrintStream(logText, true, StandardCharsets.UTF_8), Log.Level.INFO));
    }

    @Test
    void natIsInstalledBeforeTheAnswerAndRemovedWithTheMapping() throws Exception {
        final Gateway g = gateway(dir.resolve("absent"));
        g.installTable();
        assertEquals(List.of("nft replace"), calls);
        final Inet6Address vip = g.allocate(v6("fd12::1"), "a.fips");
        assertEquals(v6("fd01::1"), vip);
        assertEquals(List.of("nft replace", "nft replace", "ndp add fd01::1 lan0"), calls);
        assertTrue(table.contains("ip6 daddr fd01::1 dnat ip6 to fd12::1"), table);
        g.allocate(v6("fd12::1"), "a.fips");
        assertEquals(3, calls.size(), "a repeated lookup changes nothing");
        // idle: draining at 40 s (idle > TTL 30 s), freed at 70 s (drained > grace 20 s); ticks every 10 s
        for (now = 0; now <= 60_000; now += 10_000) {
            g.tick();
        }
        assertEquals(3, calls.size(), "still held at 60 s");
        for (; now <= 70_000; now += 10_000) {
            g.tick();
        }
        assertEquals(List.of("nft replace", "nft replace", "ndp add fd01::1 lan0", "ndp del fd01::1 lan0",
                "nft replace"), calls);
        assertTrue(!table.contains("fd12::1"), table);
        assertTrue(logText.toString(StandardCharsets.UTF_8).contains("reclaimed fd01::1 (a.fips)"));
        g.teardown();
        assertEquals("nft delete", calls.getLast());
    }

    @Test
    void aMappingWhoseCounterMovesIsKeptAndOneThatStopsIsReclaimed() throws Exception {
        final Gateway g = gateway(dir.resolve("absent"));
        g.installTable();
        g.allocate(v6("fd12::1"), "busy.fips");
        g.allocate(v6("fd12::2"), "idle.fips");
        long packets = 0;
        for (now = 0; now <= 600_000; now += 10_000) {
            packets += 3;
            counters.put("fd01::1", packets);
            g.tick();
        }
        final JsonNode m = new GatewayControl(g, "[::1]:5300").showMappings().get("mappings");
        assertEquals(1, m.size(), m::toString);
        assertEquals("busy.fips", m.get(0).get("dns_name").asText());
        assertEquals("Active", m.get(0).get("state").asText());
        assertTrue(m.get(0).get("sessions").isNull(), "no conntrack file: unknown, not 0");
        // traffic stops: the counter stays where it is
        final long stop = now;
        while (now <= stop + 60_000) {
            g.tick();
            now += 10_000;
        }
        assertEquals(0, new GatewayControl(g, "x").showMappings().get("mappings").size());
    }

    @Test
    void conntrackEntriesInFullFormCount() throws Exception {
        final Path ct = dir.resolve("nf_conntrack");
        // as the 6.18 kernel prints it in a namespace: full, uncompressed IPv6 text
        Files.writeString(ct, "ipv6     10 tcp      6 431999 ESTABLISHED src=2001:0002:0000:0000:0000:0000:0000:0010"
                + " dst=fd01:0000:0000:0000:0000:0000:0000:0001 sport=40000 dport=80"
                + " src=fd12:0000:0000:0000:0000:0000:0000:0001 dst=fd55:0000:0000:0000:0000:0000:0000:0009"
                + " sport=80 dport=40000 [ASSURED] mark=0 zone=0 use=2\n"
                // a finished connection: not a session
                + "ipv6     10 tcp      6 117 TIME_WAIT src=2001:0002:0000:0000:0000:0000:0000:0010"
                + " dst=fd01:0000:0000:0000:0000:0000:0000:0001 sport=40002 dport=80"
                + " src=fd12:0000:0000:0000:0000:0000:0000:0001 dst=fd55:0000:0000:0000:0000:0000:0000:0009"
                + " sport=80 dport=40002 [ASSURED] mark=0 zone=0 use=2\n");
        final Gateway g = gateway(ct);
        g.installTable();
        g.allocate(v6("fd12::1"), "a.fips");
        for (now = 0; now <= 300_000; now += 10_000) {
            g.tick();
        }
        final JsonNode m = new GatewayControl(g, "x").showMappings().get("mappings").get(0);
        assertEquals(1, m.get("sessions").asInt());
        assertEquals("Active", m.get("state").asText());
    }

    @Test
    void controlShapesAreTheReferences() throws Exception {
        final Gateway g = gateway(dir.resolve("absent"));
        g.installTable();
        now = 5_000;
        g.allocate(v6("fd12:3456::1"), "npub1x.fips");
        now = 12_000;
        final GatewayControl c = new GatewayControl(g, "[::1]:5300");
        final JsonNode gw = c.handle("{\"command\":\"show_gateway\"}");
        assertEquals("ok", gw.get("status").asText());
        assertEquals(List.of("pool_total", "pool_allocated", "pool_active", "pool_draining", "pool_free",
                "nat_mappings", "dns_listen", "uptime_secs", "pool_cidr", "lan_interface", "dns_upstream", "dns_ttl",
                "pool_grace_period"), fields(gw.get("data")));
        assertEquals("{\"pool_total\":3,\"pool_allocated\":1,\"pool_active\":0,\"pool_draining\":0,\"pool_free\":2,"
                + "\"nat_mappings\":1,\"dns_listen\":\"[::1]:5300\",\"uptime_secs\":12,\"pool_cidr\":\"fd01::/126\","
                + "\"lan_interface\":\"lan0\",\"dns_upstream\":\"[::1]:5354\",\"dns_ttl\":30,"
                + "\"pool_grace_period\":20}", ControlJson.compact(gw.get("data")));
        final JsonNode maps = c.handle("{\"command\":\"show_mappings\",\"params\":{}}");
        assertEquals("{\"mappings\":[{\"virtual_ip\":\"fd01::1\",\"mesh_addr\":\"fd12:3456::1\","
                + "\"node_addr\":\"1234560000000000000000000000010" + "0\",\"dns_name\":\"npub1x.fips\","
                + "\"state\":\"Allocated\",\"sessions\":null,\"age_secs\":7,\"last_ref_secs\":7}]}",
                ControlJson.compact(maps.get("data")));
        assertEquals("{\"status\":\"error\",\"message\":\"unknown command: show_peers\"}",
                ControlJson.compact(c.handle("{\"command\":\"show_peers\"}")));
        assertEquals("error", c.handle("nonsense").get("status").asText());
        assertEquals("error", c.handle("{}").get("status").asText());
    }

    @Test
    void aFailedNftCallIsRetriedOnTheNextTick() throws Exception {
        final boolean[] fail = {true};
        final Nft flaky = new Nft() {
            @Override
            public void replace(final String t) throws IOException {
                if (fail[0]) {
                    throw new IOException("nft: boom");
                }
                table = t;
            }

            @Override
            public void delete() {
            }

            @Override
            public Map<String, Long> packetCounters() {
                return Map.of();
            }
        };
        final Gateway g = new Gateway(CONFIG, "fips0", new VirtualPool(PoolCidr.parse(CONFIG.pool()), 30, 20), flaky,
                net, new Conntrack(dir.resolve("absent")), () -> now,
                new Log(new PrintStream(logText, true, StandardCharsets.UTF_8), Log.Level.INFO));
        assertThrows(IOException.class, () -> g.allocate(v6("fd12::1"), "a.fips"));
        fail[0] = false;
        g.tick();
        assertTrue(table.contains("dnat ip6 to fd12::1"), table);
    }

    private static List<String> fields(final JsonNode o) {
        final List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
