package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.LanConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.lan.LanPeers;
import net.fips.control.link.LinkConductor;

/**
 * {@link LanService} without sockets: the {@code show_lan} rendering, and a node whose LAN discovery is off or has
 * nothing to announce starts no mDNS (the dial path runs in {@code NodeLanTest}).
 */
class LanServiceTest {
    private static final long MS = 1_000_000L;

    @Test
    void showLanRendersStateAndAgesFromTheClock() {
        final InetSocketAddress v4 = new InetSocketAddress("10.1.0.2", 2121);
        final InetSocketAddress v6 = new InetSocketAddress("fd00:77::2", 2121);
        final LanPeers.Peer p = new LanPeers.Peer("npub1peer", null, v4, List.of(v4, v6), 1_000 * MS, 4_000 * MS,
                true, 2, LanPeers.Outcome.STARTED, 9_000 * MS);
        final LanService.State s = new LanService.State(true, true, null, "_fips._udp.local.", "fips-npub1abc",
                "fips-overlay-v1", 2121, 2, 7, 1, 0, 2, List.of(p));
        final ObjectNode o = LanService.json(s, 5_500 * MS);
        assertEquals(Set.of("enabled", "running", "problem", "service_type", "instance_name", "scope", "port",
                "interfaces", "announcements_seen", "announcements_refused", "queue_dropped", "dials_started",
                "peers"), keys(o));
        assertEquals(2121, o.get("port").asInt());
        assertTrue(o.get("problem").isNull());
        final JsonNode po = o.get("peers").get(0);
        assertEquals("10.1.0.2:2121", po.get("address").asText());
        assertEquals(2, po.get("addresses").size(), "every announced address");
        assertEquals("[fd00:77:0:0:0:0:0:2]:2121", po.get("addresses").get(1).asText());
        assertTrue(po.get("scope").isNull(), "no TXT scope");
        assertEquals(4_500, po.get("first_seen_ms_ago").asLong());
        assertEquals(1_500, po.get("last_seen_ms_ago").asLong());
        assertEquals("started", po.get("last_dial").asText());
        assertEquals(2, po.get("dials").asLong());

        final LanService.State off = new LanService.State(true, false, "no UDP transport", "_fips._udp.local.",
                "fips-npub1abc", "", 0, 0, 0, 0, 0, 0, List.of());
        final ObjectNode oo = LanService.json(off, 0);
        assertTrue(oo.get("port").isNull(), "nothing announced: no port");
        assertEquals("no UDP transport", oo.get("problem").asText());
    }

    @Test
    void offOrWithoutUdpItStartsNothingAndSaysSo() throws Exception {
        final List<String> dials = new ArrayList<>();
        final LanService lan = new LanService(NodeIdentity.generate().npub(), List.of(),
                (peer, id, addr) -> {
                    dials.add(peer.npub());
                    return LinkConductor.ConnectResult.STARTED;
                }, () -> {
                    throw new AssertionError("no interface is listed when nothing runs");
                }, 5_000 * MS, 300_000 * MS);
        final FipsConfig off = FipsConfig.defaults();
        assertEquals("LAN discovery off", lan.apply(withLan(off, false)));
        assertFalse(lan.state().enabled());
        assertEquals("", lan.apply(withLan(off, false)), "off and unchanged: nothing to report");
        final String on = lan.apply(withLan(off, true));
        assertEquals("LAN discovery started but not running: no UDP transport with a bound port to announce", on);
        lan.tick(0);
        assertTrue(lan.state().enabled() && !lan.state().running());
        assertEquals("LAN discovery unchanged", lan.apply(withLan(off, true)));
        assertEquals("fips-overlay-v1", lan.state().scope());
        lan.close();
        assertFalse(lan.state().enabled(), "closed");
        assertEquals("LAN discovery stopped (node stopping)", lan.apply(withLan(off, true)));
        assertEquals(List.of(), dials);
    }

    private static FipsConfig withLan(final FipsConfig c, final boolean enabled) {
        return new FipsConfig(c.node(), c.tun(), c.dns(), c.udp(), c.ethernet(), c.peers(), c.tcp(), c.tor(), c.nym(),
                c.ble(), c.nostr(), new LanConfig(enabled, LanConfig.DEFAULT_SERVICE_TYPE, Optional.empty()));
    }

    private static Set<String> keys(final JsonNode o) {
        final Set<String> k = new TreeSet<>();
        o.fieldNames().forEachRemaining(k::add);
        return k;
    }
}
