package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.Nip19;

/** Advert validity, the endpoint filter, the cache (§1.9) and adverts to dial candidates (§1.10). */
class AdvertLogicTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final String APP = "fips-overlay-v1";

    private static OverlayAdvert.Endpoint udp(final String addr) {
        return new OverlayAdvert.Endpoint("udp", addr);
    }

    private static OverlayAdvert advert(final OverlayAdvert.Endpoint... eps) {
        return new OverlayAdvert(APP, 1, List.of(eps), null, null);
    }

    private static byte[] key(final int n) {
        final byte[] sk = new byte[32];
        sk[31] = (byte) n;
        return sk;
    }

    private static NostrEvent event(final byte[] sk, final long createdAt, final OverlayAdvert a, final Long exp) {
        final List<List<String>> tags = exp == null ? List.of(List.of("d", APP), List.of("protocol", APP))
                : List.of(List.of("d", APP), List.of("protocol", APP), List.of("expiration", exp.toString()));
        return NostrEvent.sign(sk, createdAt, OverlayAdvert.KIND, tags, a.toJson());
    }

    @Test
    void endpointFilterTable() {
        final String[][] table = {
            {"udp", "nat", "true"}, {"udp", "NAT", "true"}, {"tcp", "nat", "false"}, {"tor", "nat", "false"},
            {"tor", "anything", "true"}, {"udp", "", "false"}, {"udp", "  ", "false"},
            {"udp", "198.18.0.2:2121", "true"}, {"udp", "198.18.0.2:0", "false"}, {"tcp", "8.8.8.8:443", "true"},
            {"udp", "10.1.2.3:1", "false"}, {"udp", "172.16.0.1:1", "false"}, {"udp", "172.32.0.1:1", "true"},
            {"udp", "192.168.1.1:1", "false"}, {"udp", "127.0.0.1:1", "false"}, {"udp", "169.254.1.1:1", "false"},
            {"udp", "0.0.0.0:1", "false"}, {"udp", "224.0.0.1:1", "false"}, {"udp", "255.255.255.255:1", "false"},
            {"udp", "192.0.2.1:1", "false"}, {"udp", "198.51.100.1:1", "false"}, {"udp", "203.0.113.1:1", "false"},
            {"udp", "100.64.0.1:1", "false"}, {"udp", "100.128.0.1:1", "true"},
            {"udp", "[::1]:1", "false"}, {"udp", "[::]:1", "false"}, {"udp", "[fd00::1]:1", "false"},
            {"udp", "[ff02::1]:1", "false"}, {"udp", "[fe80::1]:1", "false"}, {"udp", "[2001:db8::1]:1", "true"},
            {"udp", "[2a00::1]:5", "true"}, {"udp", "[::ffff:10.0.0.1]:5", "true"},
            {"tcp", "node.example:443", "true"}, {"tcp", "localhost:443", "false"}, {"tcp", "LOCALHOST:1", "false"},
            {"tcp", "node.example:0", "false"}, {"tcp", "node.example:99999", "false"},
            {"tcp", "node.example", "false"},
            {"udp", ":5", "false"},
        };
        for (final String[] row : table) {
            assertEquals(Boolean.parseBoolean(row[2]),
                    AdvertValidity.isPubliclyUsable(new OverlayAdvert.Endpoint(row[0], row[1])), row[0] + " " + row[1]);
        }
    }

    @Test
    void validationRejectsWrongIdentityOrVersionBareNatAndOnlyUnroutable() throws Exception {
        assertThrows(NostrFormatException.class, () -> AdvertValidity.validate(
                new OverlayAdvert("other", 1, List.of(udp("8.8.8.8:1")), null, null)));
        assertThrows(NostrFormatException.class, () -> AdvertValidity.validate(
                new OverlayAdvert(APP, 2, List.of(udp("8.8.8.8:1")), null, null)));
        assertThrows(NostrFormatException.class, () -> AdvertValidity.validate(advert()));
        assertThrows(NostrFormatException.class, () -> AdvertValidity.validate(advert(udp("nat"))));
        assertThrows(NostrFormatException.class, () -> AdvertValidity.validate(
                new OverlayAdvert(APP, 1, List.of(udp("nat")), List.of("ws://r"), List.of())));
        final NostrFormatException onlyPrivate = assertThrows(NostrFormatException.class,
                () -> AdvertValidity.validate(advert(udp("192.168.1.2:2121"), udp("127.0.0.1:1"))));
        assertTrue(onlyPrivate.getMessage().contains("missing publicly routable"), onlyPrivate.getMessage());
        // Unroutable endpoints are filtered out; metadata without a nat endpoint is cleared.
        final OverlayAdvert kept = AdvertValidity.validate(new OverlayAdvert(APP, 1,
                List.of(udp("192.168.1.2:2121"), udp("198.18.0.2:2121")), List.of("ws://r"), List.of("stun:s")));
        assertEquals(List.of(udp("198.18.0.2:2121")), kept.endpoints());
        assertNull(kept.signalRelays());
        assertNull(kept.stunServers());
        final OverlayAdvert nat = new OverlayAdvert(APP, 1, List.of(udp("nat")), List.of("ws://r"),
                List.of("stun:s"));
        assertEquals(nat, AdvertValidity.validate(nat));
    }

    @Test
    void validityWindow() {
        final OverlayAdvert a = advert(udp("8.8.8.8:1"));
        final long now = NOW_MS / 1000;
        // Expired tag: never valid.
        assertEquals(OptionalLong.empty(), AdvertValidity.validUntilMs(event(key(1), now, a, now), NOW_MS, 3600));
        // Created 10 000 s ago, no tag, 600 s max age (ttl 300): not valid.
        assertEquals(OptionalLong.empty(), AdvertValidity.validUntilMs(event(key(1), now - 10_000, a, null),
                NOW_MS, 300));
        // No tag: created + 2 * ttl.
        assertEquals(OptionalLong.of((now - 100 + 600) * 1000),
                AdvertValidity.validUntilMs(event(key(1), now - 100, a, null), NOW_MS, 300));
        // min(expiration, window) both ways.
        assertEquals(OptionalLong.of((now + 50) * 1000),
                AdvertValidity.validUntilMs(event(key(1), now, a, now + 50), NOW_MS, 300));
        assertEquals(OptionalLong.of((now + 600) * 1000),
                AdvertValidity.validUntilMs(event(key(1), now, a, now + 5000), NOW_MS, 300));
    }

    @Test
    void cacheReplacesNewerKeepsNewestPrunesAndEvictsEarliestValidity() {
        final AdvertCache cache = new AdvertCache(2, 300, APP);
        final long now = NOW_MS / 1000;
        final String npub1 = Nip19.encodeNpub(Secp256k1.xOnly(key(1)));
        assertEquals(AdvertCache.Outcome.STORED, cache.offer(event(key(1), now - 10, advert(udp("8.8.8.8:1")),
                null), NOW_MS));
        assertEquals(AdvertCache.Outcome.OLDER, cache.offer(event(key(1), now - 20, advert(udp("8.8.4.4:1")),
                null), NOW_MS));
        assertEquals(List.of(udp("8.8.8.8:1")), cache.get(npub1, NOW_MS).orElseThrow().advert().endpoints());
        assertEquals(AdvertCache.Outcome.STORED, cache.offer(event(key(1), now - 10, advert(udp("8.8.4.4:1")),
                null), NOW_MS));
        assertEquals(List.of(udp("8.8.4.4:1")), cache.get(npub1, NOW_MS).orElseThrow().advert().endpoints());
        assertEquals(AdvertCache.Outcome.INVALID, cache.offer(NostrEvent.sign(key(3), now, OverlayAdvert.KIND,
                List.of(List.of("protocol", APP)), "garbage"), NOW_MS));
        assertEquals(AdvertCache.Outcome.INVALID, cache.offer(NostrEvent.sign(key(3), now, OverlayAdvert.KIND,
                List.of(List.of("protocol", "other-app")), advert(udp("8.8.8.8:1")).toJson()), NOW_MS));
        assertEquals(AdvertCache.Outcome.STALE, cache.offer(event(key(3), now - 601, advert(udp("8.8.8.8:1")),
                null), NOW_MS));

        // Over the cap of 2, the entry valid for the shortest time goes.
        cache.offer(event(key(2), now, advert(udp("8.8.8.8:2")), now + 30), NOW_MS);
        cache.offer(event(key(3), now, advert(udp("8.8.8.8:3")), null), NOW_MS);
        assertEquals(2, cache.size());
        assertTrue(cache.get(Nip19.encodeNpub(Secp256k1.xOnly(key(2))), NOW_MS).isEmpty());
        assertTrue(cache.get(npub1, NOW_MS).isPresent());

        // Pruned once its validity passes (created now - 10, window 600 s).
        assertTrue(cache.get(npub1, NOW_MS + 589_999).isPresent());
        assertTrue(cache.get(npub1, NOW_MS + 590_000).isEmpty());
    }

    @Test
    void candidatesSkipOurOwnAdvert() {
        final AdvertCache cache = new AdvertCache(10, 3600, APP);
        final long now = NOW_MS / 1000;
        for (int i = 1; i <= 3; i++) {
            cache.offer(event(key(i), now - i, advert(udp("8.8.8.8:" + i)), null), NOW_MS);
        }
        final String self = Nip19.encodeNpub(Secp256k1.xOnly(key(2)));
        assertEquals(List.of(Nip19.encodeNpub(Secp256k1.xOnly(key(1))), Nip19.encodeNpub(Secp256k1.xOnly(key(3)))),
                cache.candidates(self, NOW_MS).stream().map(AdvertCache.Cached::authorNpub).toList());
        assertEquals(HEX.formatHex(Secp256k1.xOnly(key(1))).length(), 64);
    }

    @Test
    void advertEndpointsComeFirstAfterStaticPrioritiesAndWinDeduplication() {
        final List<DialCandidates.Candidate> statics = List.of(
                new DialCandidates.Candidate("tcp", "8.8.8.8:443", 20, null),
                new DialCandidates.Candidate("udp", "8.8.8.8:2121", 10, null));
        final OverlayAdvert a = advert(udp("198.18.0.2:2121"), udp("8.8.8.8:2121"));
        final List<DialCandidates.Candidate> merged = DialCandidates.merge(statics, a, NOW_MS);
        assertEquals(List.of(new DialCandidates.Candidate("udp", "198.18.0.2:2121", 21, NOW_MS),
                new DialCandidates.Candidate("udp", "8.8.8.8:2121", 22, NOW_MS),
                new DialCandidates.Candidate("tcp", "8.8.8.8:443", 20, null)), merged);
        // No statics: advert priorities start at 101; no advert: statics by priority.
        final List<DialCandidates.Candidate> onlyAdvert = DialCandidates.merge(List.of(),
                new OverlayAdvert(APP, 1, List.of(udp("nat")), List.of("ws://r"), List.of("stun:s")), NOW_MS);
        assertEquals(101, onlyAdvert.get(0).priority());
        assertTrue(onlyAdvert.get(0).isNatTraversal());
        assertTrue(onlyAdvert.get(0).fromAdvert());
        final List<DialCandidates.Candidate> noAdvert = DialCandidates.merge(statics, null, NOW_MS);
        assertEquals(List.of(10, 20), noAdvert.stream().map(DialCandidates.Candidate::priority).toList());
        assertFalse(noAdvert.get(0).fromAdvert());
    }
}
