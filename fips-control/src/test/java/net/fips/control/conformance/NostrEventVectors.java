package net.fips.control.conformance;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import net.fips.control.nostr.NostrEvent;

/**
 * The NIP-01 event-id vector of discovery-gateway.md §1.3 (computed there with nostr-tools and Python): secret key
 * 1 signs a kind-37195 FIPS advert at 1700000000; the id must match, the event must verify, and its JSON must parse
 * back to the same event. The vector lives in the spec, not in a file, so {@code file} is unused.
 */
public final class NostrEventVectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] SK = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000001");
    private static final String PUBKEY = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    private static final List<List<String>> TAGS = List.of(List.of("d", "fips-overlay-v1"),
            List.of("protocol", "fips-overlay-v1"), List.of("version", "1"), List.of("expiration", "1700003600"));
    private static final String CONTENT = "{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":"
            + "[{\"transport\":\"udp\",\"addr\":\"nat\"}],\"signalRelays\":[\"ws://127.0.0.1:7777\"],"
            + "\"stunServers\":[\"stun:127.0.0.1:3478\"]}";
    private static final String ID = "1c72d23a68ca134972a15e27120821721b36c647938cbb95b751b7acd33b2914";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final String computed = HEX.formatHex(NostrEvent.computeId(PUBKEY, 1_700_000_000L, 37195, TAGS, CONTENT));
        tally.check("event_id", "advert, sk 1", ID.equals(computed), "id expected " + ID + " got " + computed);
        try {
            final NostrEvent signed = NostrEvent.sign(SK, 1_700_000_000L, 37195, TAGS, CONTENT);
            final NostrEvent back = NostrEvent.parse(signed.toJson());
            back.verify();
            tally.check("event_json", "advert, sk 1", PUBKEY.equals(back.pubkey()) && ID.equals(back.id())
                    && back.equals(signed), "signed event " + signed.toJson() + " parsed as " + back);
        } catch (final Exception e) {
            tally.error("event_json", "advert, sk 1", e);
        }
    }
}
