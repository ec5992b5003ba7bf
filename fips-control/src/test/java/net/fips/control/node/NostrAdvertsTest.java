package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import net.fips.control.config.NostrConfig;
import net.fips.control.config.TcpConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.nostr.OverlayAdvert;

/** Our advert from the transports (discovery-gateway.md §1.8), the table's rows one by one. */
class NostrAdvertsTest {
    private static final NostrConfig NOSTR = NostrConfig.DEFAULTS;

    private static UdpConfig udp(final boolean advertise, final boolean isPublic, final String external,
            final boolean outboundOnly) {
        return new UdpConfig(Optional.empty(), "0.0.0.0:2121", 1280, 1, 1, advertise, isPublic,
                Optional.ofNullable(external), outboundOnly, true);
    }

    private static TcpConfig tcp(final String bind, final String external) {
        return new TcpConfig(Optional.empty(), Optional.ofNullable(bind), 1400, 5000, true, 30, 1, 1,
                OptionalInt.empty(), true, Optional.ofNullable(external));
    }

    private static List<OverlayAdvert.Endpoint> endpoints(final OverlayAdvert a) {
        return a.endpoints();
    }

    private static OverlayAdvert.Endpoint ep(final String t, final String a) {
        return new OverlayAdvert.Endpoint(t, a);
    }

    @Test
    void udpRows() {
        final NostrAdverts b = new NostrAdverts();
        final InetSocketAddress wildcard = new InetSocketAddress("0.0.0.0", 2121);
        final InetSocketAddress bound = new InetSocketAddress("198.18.0.2", 2121);
        // Not advertised, or outbound_only: nothing.
        assertNull(b.build(NOSTR, List.of(udp(false, true, "198.18.0.2", false)), List.of(bound), List.of(),
                List.of()));
        assertNull(b.build(NOSTR, List.of(udp(true, true, "198.18.0.2", true)), List.of(bound), List.of(),
                List.of()));
        // Not public: "nat" with our dm_relays and stun_servers.
        final OverlayAdvert nat = b.build(NOSTR, List.of(udp(true, false, null, false)), List.of(wildcard),
                List.of(), List.of());
        assertEquals(List.of(ep("udp", "nat")), endpoints(nat));
        assertEquals(NOSTR.dmRelays(), nat.signalRelays());
        assertEquals(NOSTR.stunServers(), nat.stunServers());
        // Public: external_addr as an IP gets the bound port; ip:port is kept; a host name does not parse.
        assertEquals(List.of(ep("udp", "198.18.0.7:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "198.18.0.7", false)), List.of(wildcard), List.of(), List.of())));
        assertEquals(List.of(ep("udp", "198.18.0.7:4000")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "198.18.0.7:4000", false)), List.of(wildcard), List.of(), List.of())));
        assertEquals(List.of(ep("udp", "[2001:db8::7]:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "2001:db8::7", false)), List.of(wildcard), List.of(), List.of())));
        assertNull(b.build(NOSTR, List.of(udp(true, true, "node.example.org", false)), List.of(wildcard),
                List.of(), List.of()));
        // Public without external_addr: the bound address unless it is a wildcard (STUN not run: left out).
        assertEquals(List.of(ep("udp", "198.18.0.2:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, null, false)), List.of(bound), List.of(), List.of())));
        assertNull(b.build(NOSTR, List.of(udp(true, true, null, false)), List.of(wildcard), List.of(), List.of()));
        final OverlayAdvert direct = b.build(NOSTR, List.of(udp(true, true, null, false)), List.of(bound), List.of(),
                List.of());
        assertNull(direct.signalRelays());
        assertNull(direct.stunServers());
    }

    @Test
    void tcpRowsAndOrder() {
        final NostrAdverts b = new NostrAdverts();
        assertEquals(List.of(ep("tcp", "198.18.0.3:8443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("0.0.0.0:8443", "198.18.0.3")), List.of("0.0.0.0:8443"))));
        assertEquals(List.of(ep("tcp", "198.18.0.4:443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("0.0.0.0:8443", "198.18.0.4:443")), List.of("0.0.0.0:8443"))));
        assertEquals(List.of(ep("tcp", "198.18.0.5:8443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("198.18.0.5:8443", null)), List.of("198.18.0.5:8443"))));
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(tcp("0.0.0.0:8443", null)), List.of("0.0.0.0:8443")));
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(tcp(null, null)), Arrays.asList((String) null)));
        // UDP endpoints first, then TCP, as the transports are ordered.
        final OverlayAdvert both = b.build(NOSTR, List.of(udp(true, false, null, false)),
                List.of(new InetSocketAddress("0.0.0.0", 2121)), List.of(tcp("198.18.0.5:8443", null)),
                List.of("198.18.0.5:8443"));
        assertEquals(List.of(ep("udp", "nat"), ep("tcp", "198.18.0.5:8443")), endpoints(both));
    }
}
