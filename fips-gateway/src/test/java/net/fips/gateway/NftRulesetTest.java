package net.fips.gateway;

import static net.fips.gateway.VirtualPoolTest.v6;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import net.fips.control.config.GatewayConfig;

/** The nft table text (discovery-gateway.md §4.4) and the counter JSON nft prints. */
class NftRulesetTest {
    @Test
    void tableHasTheReferencesRulesInItsOrderPlusOurCounters() {
        final String text = NftRuleset.table("fips0", "lan0",
                List.of(new NftRuleset.Nat(v6("fd01::1"), v6("fd12:3456::1")),
                        new NftRuleset.Nat(v6("fd01::2"), v6("fd12:3456::2"))),
                List.of(new GatewayConfig.PortForward(8080, GatewayConfig.Proto.TCP,
                        new InetSocketAddress("2001:2::20", 80)),
                        new GatewayConfig.PortForward(5353, GatewayConfig.Proto.UDP,
                                new InetSocketAddress("2001:2::21", 53))));
        assertEquals("""
                table inet fips_gateway {
                  chain prerouting {
                    type nat hook prerouting priority -100; policy accept;
                    meta nfproto ipv6 ip6 daddr fd01::1 dnat ip6 to fd12:3456::1
                    meta nfproto ipv6 ip6 daddr fd01::2 dnat ip6 to fd12:3456::2
                    iifname "fips0" meta nfproto ipv6 meta l4proto tcp th dport 8080 dnat ip6 to [2001:2::20]:80
                    iifname "fips0" meta nfproto ipv6 meta l4proto udp th dport 5353 dnat ip6 to [2001:2::21]:53
                  }
                  chain postrouting {
                    type nat hook postrouting priority 100; policy accept;
                    oifname "fips0" masquerade
                    meta nfproto ipv6 ip6 saddr fd12:3456::1 snat ip6 to fd01::1
                    meta nfproto ipv6 ip6 saddr fd12:3456::2 snat ip6 to fd01::2
                    iifname "fips0" oifname "lan0" meta nfproto ipv6 masquerade
                  }
                  chain traffic {
                    type filter hook forward priority 0; policy accept;
                    ct original ip6 daddr fd01::1 counter comment "fd01::1"
                    ct original ip6 daddr fd01::2 counter comment "fd01::2"
                  }
                }
                """, text);
    }

    @Test
    void withoutForwardsThereIsNoLanMasquerade() {
        assertEquals("""
                table inet fips_gateway {
                  chain prerouting {
                    type nat hook prerouting priority -100; policy accept;
                  }
                  chain postrouting {
                    type nat hook postrouting priority 100; policy accept;
                    oifname "tun9" masquerade
                  }
                  chain traffic {
                    type filter hook forward priority 0; policy accept;
                  }
                }
                """, NftRuleset.table("tun9", "eth0", List.of(), List.of()));
    }

    @Test
    void replaceIsOneTransaction() {
        assertEquals("add table inet fips_gateway\ndelete table inet fips_gateway\nT", NftRuleset.replace("T"));
    }

    @Test
    void interfaceNamesThatWouldBreakTheTextAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> NftRuleset.quote("a\"b"));
    }

    @Test
    void countersAreReadFromNftJson() throws Exception {
        // as printed by nft 1.0.6 (Debian 12) for `nft -j list chain inet fips_gateway traffic`
        final String json = """
                {"nftables": [{"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5",
                "json_schema_version": 1}}, {"chain": {"family": "inet", "table": "fips_gateway", "name": "traffic",
                "handle": 3, "type": "filter", "hook": "forward", "prio": 0, "policy": "accept"}}, {"rule": {"family":
                "inet", "table": "fips_gateway", "chain": "traffic", "handle": 9, "comment": "fd01::1", "expr":
                [{"match": {"op": "==", "left": {"ct": {"key": "ip6 daddr", "dir": "original"}}, "right":
                "fd01::1"}}, {"counter": {"packets": 42, "bytes": 3528}}]}}]}
                """;
        assertEquals(Map.of("fd01::1", 42L), Nft.Tool.parseCounters(new ObjectMapper().readTree(json)));
    }
}
