package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.Nip19;

class NostrEventTest {
    private static final HexFormat HEX = HexFormat.of();
    static final byte[] SK1 = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000001");
    static final byte[] SK2 = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000002");

    /** discovery-gateway.md §1.3: the event-id vector, computed with nostr-tools and Python. */
    static final List<List<String>> VECTOR_TAGS = List.of(List.of("d", "fips-overlay-v1"),
            List.of("protocol", "fips-overlay-v1"), List.of("version", "1"), List.of("expiration", "1700003600"));
    static final String VECTOR_CONTENT = "{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":"
            + "[{\"transport\":\"udp\",\"addr\":\"nat\"}],\"signalRelays\":[\"ws://127.0.0.1:7777\"],"
            + "\"stunServers\":[\"stun:127.0.0.1:3478\"]}";
    static final String VECTOR_ID = "1c72d23a68ca134972a15e27120821721b36c647938cbb95b751b7acd33b2914";

    @Test
    void specEventIdVector() throws Exception {
        final NostrEvent e = NostrEvent.sign(SK1, 1_700_000_000L, 37195, VECTOR_TAGS, VECTOR_CONTENT);
        assertEquals("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", e.pubkey());
        assertEquals("npub10xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqpkge6d",
                Nip19.encodeNpub(e.pubkeyBytes()));
        assertEquals(VECTOR_ID, e.id());
        e.verify();
        final NostrEvent back = NostrEvent.parse(e.toJson());
        assertEquals(e, back);
        back.verify();
    }

    @Test
    void canonicalEscapesOnlyWhatNip01Escapes() {
        final String content = "q\" b\\ n\n r\r t\t b\b f\f nul\u0000 us\u001f del\u007f é ☃ / <>";
        final String canon = new String(NostrEvent.canonical("ab", 5, 1, List.of(List.of("p", "x\ny")), content),
                StandardCharsets.UTF_8);
        assertEquals("[0,\"ab\",5,1,[[\"p\",\"x\\ny\"]],\"q\\\" b\\\\ n\\n r\\r t\\t b\\b f\\f nul\\u0000 us\\u001f"
                + " del\u007f é ☃ / <>\"]", canon);
    }

    @Test
    void tamperedEventsFailVerification() throws Exception {
        final NostrEvent e = NostrEvent.sign(SK1, 1_700_000_000L, 1, List.of(), "hello");
        final NostrEvent otherContent = new NostrEvent(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(),
                "hellO", e.sig());
        assertEquals(NostrFormatException.Problem.ID_MISMATCH,
                assertThrows(NostrFormatException.class, otherContent::verify).problem());
        final char last = e.sig().charAt(127);
        final String badSig = e.sig().substring(0, 127) + (last == '0' ? '1' : '0');
        final NostrEvent otherSig = new NostrEvent(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(),
                e.content(), badSig);
        assertEquals(NostrFormatException.Problem.BAD_SIGNATURE,
                assertThrows(NostrFormatException.class, otherSig::verify).problem());
        final NostrEvent rumor = NostrEvent.rumor(e.pubkeyBytes(), 1, 14, List.of(), "x");
        assertFalse(rumor.isSigned());
        assertThrows(NostrFormatException.class, rumor::verify);
    }

    @Test
    void parseRejectsMalformedEventsWithTypedProblems() {
        final String good = NostrEvent.sign(SK2, 10, 1, List.of(List.of("e", "1")), "c").toJson();
        final String[][] bad = {
            {"not json", "MALFORMED_JSON"},
            {"[]", "MALFORMED_JSON"},
            {good.replace("\"kind\":1", "\"kind\":65536"), "MALFORMED_JSON"},
            {good.replace("\"kind\":1", "\"kind\":\"1\""), "MALFORMED_JSON"},
            {good.replace("\"created_at\":10", "\"created_at\":-1"), "MALFORMED_JSON"},
            {good.replace("\"created_at\":10", "\"created_at\":18446744073709551616"), "MALFORMED_JSON"},
            {good.replace("\"created_at\":10", "\"created_at\":1.5"), "MALFORMED_JSON"},
            {good.replace("[[\"e\",\"1\"]]", "[[]]"), "MALFORMED_JSON"},
            {good.replace("[[\"e\",\"1\"]]", "[[\"e\",1]]"), "MALFORMED_JSON"},
            {good.replace("\"content\":\"c\"", "\"content\":null"), "MALFORMED_JSON"},
            {good.replace("\"sig\":\"", "\"sig\":\"00"), "INVALID_FIELD"},
            {good.replace("\"id\":\"", "\"id\":\"zz").replace("\",\"pubkey", "\",\"pubkey"), "INVALID_FIELD"},
        };
        for (final String[] b : bad) {
            final NostrFormatException ex = assertThrows(NostrFormatException.class, () -> NostrEvent.parse(b[0]),
                    b[0]);
            assertEquals(b[1], ex.problem().name(), b[0]);
        }
    }

    @Test
    void createdAtAboveSignedLongRoundTrips() throws Exception {
        final long big = Long.parseUnsignedLong("18446744073709551615");
        final NostrEvent e = NostrEvent.sign(SK1, big, 1, List.of(), "");
        assertTrue(e.toJson().contains("\"created_at\":18446744073709551615"));
        NostrEvent.parse(e.toJson()).verify();
    }

    @Test
    void expirationTag() {
        final NostrEvent e = NostrEvent.rumor(new byte[32], 1, 1, List.of(List.of("expiration", "100")), "");
        assertEquals(Optional.of(100L), e.expiration());
        assertTrue(e.isExpired(100));
        assertFalse(e.isExpired(99));
        final NostrEvent bad = NostrEvent.rumor(new byte[32], 1, 1, List.of(List.of("expiration", "-5")), "");
        assertEquals(Optional.empty(), bad.expiration());
        assertFalse(bad.isExpired(Long.MAX_VALUE));
    }

    @Test
    void rumorParsesWithoutIdOrSig() throws Exception {
        final NostrEvent r = NostrEvent.rumor(HEX.parseHex(
                "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"), 7, 14,
                List.of(List.of("p", "ab")), "hi");
        final String json = r.toJson();
        assertFalse(json.contains("\"sig\""));
        assertEquals(r, NostrEvent.parseRumor(json));
        final NostrEvent noId = NostrEvent.parseRumor(json.replaceFirst("\"id\":\"[0-9a-f]{64}\",", ""));
        assertEquals(r.id(), noId.id());
        assertNull(noId.sig());
        assertArrayEquals(r.pubkeyBytes(), noId.pubkeyBytes());
    }
}
