package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;

/** Byte-exact payload JSON (discovery-gateway.md §1.4) and the non-signal events (§1.3). */
class PayloadCodecTest {
    private static final OverlayAdvert NAT_ADVERT = new OverlayAdvert("fips-overlay-v1", 1,
            List.of(new OverlayAdvert.Endpoint("udp", "nat")), List.of("ws://127.0.0.1:7777"),
            List.of("stun:127.0.0.1:3478"));

    @Test
    void advertJsonIsTheSpecVectorsContentAndItsEventIdMatches() throws Exception {
        assertEquals(NostrEventTest.VECTOR_CONTENT, NAT_ADVERT.toJson());
        final NostrEvent e = DiscoveryEvents.advert(NostrEventTest.SK1, NAT_ADVERT, "fips-overlay-v1",
                1_700_000_000_000L, 3600);
        assertEquals(NostrEventTest.VECTOR_TAGS, e.tags());
        assertEquals(NostrEventTest.VECTOR_ID, e.id());
        assertEquals(NAT_ADVERT, DiscoveryEvents.readAdvert(NostrEvent.parse(e.toJson()), "fips-overlay-v1"));
    }

    @Test
    void advertOmitsSignalMetadataWhenNull() throws Exception {
        final OverlayAdvert direct = new OverlayAdvert("fips-overlay-v1", 1,
                List.of(new OverlayAdvert.Endpoint("udp", "198.18.0.2:2121"),
                        new OverlayAdvert.Endpoint("tor", "abc.onion:443")), null, null);
        assertEquals("{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":[{\"transport\":\"udp\","
                + "\"addr\":\"198.18.0.2:2121\"},{\"transport\":\"tor\",\"addr\":\"abc.onion:443\"}]}",
                direct.toJson());
        assertEquals(direct, OverlayAdvert.parse(direct.toJson()));
        assertFalse(direct.hasUdpNatEndpoint());
        assertTrue(new OverlayAdvert("x", 1, List.of(new OverlayAdvert.Endpoint("udp", "NAT")), null, null)
                .hasUdpNatEndpoint());
    }

    @Test
    void advertDecodeIgnoresUnknownKeysSkipsUnknownTransportsAndNeedsRequiredKeys() throws Exception {
        final OverlayAdvert a = OverlayAdvert.parse("{\"extra\":[1],\"identifier\":\"fips-overlay-v1\",\"version\":1,"
                + "\"endpoints\":[{\"transport\":\"quic\",\"addr\":\"1.2.3.4:5\"},{\"transport\":\"tcp\","
                + "\"addr\":\"198.18.0.1:443\",\"x\":1}],\"signalRelays\":null}");
        assertEquals(List.of(new OverlayAdvert.Endpoint("tcp", "198.18.0.1:443")), a.endpoints());
        assertNull(a.signalRelays());
        for (final String bad : new String[] {"{\"version\":1,\"endpoints\":[]}",
            "{\"identifier\":\"i\",\"endpoints\":[]}", "{\"identifier\":\"i\",\"version\":1}",
            "{\"identifier\":\"i\",\"version\":-1,\"endpoints\":[]}",
            "{\"identifier\":\"i\",\"version\":1,\"endpoints\":[{\"transport\":\"udp\"}]}",
            "{\"identifier\":\"i\",\"version\":1,\"endpoints\":{}}", "[]", "garbage",
            "{\"identifier\":\"i\",\"version\":1,\"endpoints\":[],\"stunServers\":[1]}"}) {
            assertEquals(NostrFormatException.Problem.MALFORMED_JSON,
                    assertThrows(NostrFormatException.class, () -> OverlayAdvert.parse(bad), bad).problem());
        }
    }

    @Test
    void advertWithAForeignProtocolTagIsRefused() {
        final NostrEvent e = DiscoveryEvents.advert(NostrEventTest.SK1, NAT_ADVERT, "my-mesh", 1_700_000_000_000L,
                3600);
        assertThrows(NostrFormatException.class, () -> DiscoveryEvents.readAdvert(e, "fips-overlay-v1"));
        final NostrEvent noTag = NostrEvent.sign(NostrEventTest.SK1, 1, OverlayAdvert.KIND,
                List.of(List.of("d", "fips-overlay-v1")), NAT_ADVERT.toJson());
        assertThrows(NostrFormatException.class, () -> DiscoveryEvents.readAdvert(noTag, "fips-overlay-v1"));
    }

    @Test
    void offerJsonIsByteExactWithTheSpecExample() throws Exception {
        final TraversalOffer o = new TraversalOffer("offer", "1700000000000-00000000000000ff", 1_700_000_000_000L,
                1_700_000_120_000L, "1700000000000-00000000000000ff",
                "npub10xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqpkge6d",
                "npub1ccz8l9zpa47k6vz9gphftsrumpw80rjt3nhnefat4symjhrsnmjs38mnyd",
                new TraversalAddress("udp", "203.0.113.10", 62000), List.of(), "stun:stun.l.google.com:19302");
        assertEquals(Nip44Test.OFFER, o.toJson());
        assertEquals(o, TraversalOffer.parse(Nip44Test.OFFER));
        final TraversalOffer nulls = new TraversalOffer("offer", "s", 1, 2, "s", "a", "b", null,
                List.of(new TraversalAddress("udp", "fe80::1", 1)), null);
        assertEquals("{\"type\":\"offer\",\"sessionId\":\"s\",\"issuedAt\":1,\"expiresAt\":2,\"nonce\":\"s\","
                + "\"senderNpub\":\"a\",\"recipientNpub\":\"b\",\"reflexiveAddress\":null,\"localAddresses\":"
                + "[{\"protocol\":\"udp\",\"ip\":\"fe80::1\",\"port\":1}],\"stunServer\":null}", nulls.toJson());
        assertEquals(nulls, TraversalOffer.parse(nulls.toJson()));
        // Optional members may be absent; localAddresses may not (the reference drops such an offer).
        assertEquals(nulls, TraversalOffer.parse(nulls.toJson().replace("\"reflexiveAddress\":null,", "")));
        assertThrows(NostrFormatException.class, () -> TraversalOffer.parse(nulls.toJson()
                .replace(",\"localAddresses\":[{\"protocol\":\"udp\",\"ip\":\"fe80::1\",\"port\":1}]", "")));
        assertThrows(NostrFormatException.class, () -> TraversalOffer.parse(nulls.toJson()
                .replace("\"port\":1", "\"port\":65536")));
    }

    @Test
    void answerOmitsOfferReceivedAtOnlyWhenUnknown() throws Exception {
        final TraversalAnswer accepted = new TraversalAnswer("answer", "s", 10, 20, "n2", "b", "a", "s", true,
                new TraversalAddress("udp", "198.18.0.9", 4000), List.of(), "stun:x:1",
                new PunchHint(12, 200, 10_000), null, 11L);
        assertEquals("{\"type\":\"answer\",\"sessionId\":\"s\",\"issuedAt\":10,\"expiresAt\":20,\"nonce\":\"n2\","
                + "\"senderNpub\":\"b\",\"recipientNpub\":\"a\",\"inReplyTo\":\"s\",\"accepted\":true,"
                + "\"reflexiveAddress\":{\"protocol\":\"udp\",\"ip\":\"198.18.0.9\",\"port\":4000},"
                + "\"localAddresses\":[],\"stunServer\":\"stun:x:1\",\"punch\":{\"startAtMs\":12,\"intervalMs\":200,"
                + "\"durationMs\":10000},\"reason\":null,\"offerReceivedAt\":11}", accepted.toJson());
        assertEquals(accepted, TraversalAnswer.parse(accepted.toJson()));
        final TraversalAnswer refused = new TraversalAnswer("answer", "s", 10, 20, "n2", "b", "a", "s", false, null,
                List.of(), null, null, "no-usable-addresses", null);
        assertTrue(refused.toJson().endsWith(",\"punch\":null,\"reason\":\"no-usable-addresses\"}"));
        assertEquals(refused, TraversalAnswer.parse(refused.toJson()));
        assertThrows(NostrFormatException.class,
                () -> TraversalAnswer.parse(refused.toJson().replace("\"accepted\":false,", "")));
        assertThrows(NostrFormatException.class,
                () -> TraversalAnswer.parse(refused.toJson().replace("\"accepted\":false", "\"accepted\":0")));
    }

    @Test
    void relayListWritesBothTagsAndReadsEither() throws Exception {
        final NostrEvent e = DiscoveryEvents.relayList(NostrEventTest.SK1,
                List.of("wss://relay.damus.io", "not a url", "http://x", "ws://127.0.0.1:7777"), 1000);
        assertEquals(DiscoveryEvents.RELAY_LIST_KIND, e.kind());
        assertEquals("", e.content());
        assertEquals(List.of(List.of("r", "wss://relay.damus.io"), List.of("relay", "wss://relay.damus.io"),
                List.of("r", "ws://127.0.0.1:7777"), List.of("relay", "ws://127.0.0.1:7777")), e.tags());
        e.verify();
        assertEquals(List.of("wss://relay.damus.io", "ws://127.0.0.1:7777"), DiscoveryEvents.readRelayList(e));
        // What the reference publishes: r tags only.
        final NostrEvent reference = NostrEvent.sign(NostrEventTest.SK1, 1, 10050,
                List.of(List.of("r", "wss://a.example"), List.of("r", "wss://b.example")), "");
        assertEquals(List.of("wss://a.example", "wss://b.example"), DiscoveryEvents.readRelayList(reference));
        // What NIP-17 clients publish: relay tags only.
        final NostrEvent nip17 = NostrEvent.sign(NostrEventTest.SK1, 1, 10050,
                List.of(List.of("relay", "wss://c.example"), List.of("p", "x")), "");
        assertEquals(List.of("wss://c.example"), DiscoveryEvents.readRelayList(nip17));
    }

    @Test
    void deletionTagsEachIdOnce() throws Exception {
        final String a = "aa".repeat(32);
        final String b = "bb".repeat(32);
        final NostrEvent d = DiscoveryEvents.deletion(NostrEventTest.SK2, List.of(a, b, a), 5);
        assertEquals(5, d.kind());
        assertEquals(List.of(List.of("e", a), List.of("e", b)), d.tags());
        assertEquals(Secp256k1.xOnly(NostrEventTest.SK2).length, d.pubkeyBytes().length);
        d.verify();
    }
}
