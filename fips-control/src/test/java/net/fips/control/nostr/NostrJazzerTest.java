package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.control.crypto.Secp256k1;

/**
 * Coverage-guided fuzzing (Jazzer) of the Nostr decoders that take relay and peer bytes: event JSON (parse, then
 * verify), NIP-44 payloads, the advert/offer/answer payloads and whole relay messages. Each returns a value or
 * throws its typed exception ({@link NostrFormatException}, {@link Nip44Exception}), nothing else; a relay message
 * never throws at all.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/nostr/NostrJazzerTestInputs/<method>/}; with {@code JAZZER_FUZZ=1}
 * and one target selected Jazzer fuzzes it ({@code benchmarks/fuzz.sh NostrJazzerTest#event}). The seeds are
 * written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class NostrJazzerTest {
    private static final byte[] CK = new byte[32];
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final RelayClient CLIENT = new RelayClient(URI.create("ws://127.0.0.1:9"), HTTP,
            (task, delayMs) -> () -> { }, () -> 1_700_000_000_000L, Backoff.RELAY_DEFAULT, Duration.ofSeconds(1));

    @FuzzTest
    void event(final byte[] in) {
        final String text = new String(in, StandardCharsets.UTF_8);
        try {
            final NostrEvent e = NostrEvent.parse(text);
            assertEquals(e, NostrEvent.parse(e.toJson()));
            e.verify();
        } catch (final NostrFormatException e) {
            assertNotNull(e.problem());
        }
    }

    @FuzzTest
    void nip44(final byte[] in) {
        try {
            assertNotNull(Nip44.decrypt(CK, new String(in, StandardCharsets.ISO_8859_1)));
        } catch (final Nip44Exception e) {
            assertNotNull(e.reason());
        }
    }

    @FuzzTest
    void payloads(final byte[] in) {
        final String text = new String(in, StandardCharsets.UTF_8);
        try {
            final OverlayAdvert a = OverlayAdvert.parse(text);
            assertEquals(a, OverlayAdvert.parse(a.toJson()));
        } catch (final NostrFormatException e) {
            assertNotNull(e.problem());
        }
        try {
            final TraversalOffer o = TraversalOffer.parse(text);
            assertEquals(o, TraversalOffer.parse(o.toJson()));
        } catch (final NostrFormatException e) {
            assertNotNull(e.problem());
        }
        try {
            final TraversalAnswer a = TraversalAnswer.parse(text);
            assertEquals(a, TraversalAnswer.parse(a.toJson()));
        } catch (final NostrFormatException e) {
            assertNotNull(e.problem());
        }
    }

    @FuzzTest
    void relayMessage(final byte[] in) {
        CLIENT.onMessage(new String(in, StandardCharsets.UTF_8));
    }

    /** Writes the seed corpus of every target. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws Exception {
        final NostrEvent advert = NostrEvent.sign(NostrEventTest.SK1, 1_700_000_000L, 37195,
                NostrEventTest.VECTOR_TAGS, NostrEventTest.VECTOR_CONTENT);
        final NostrEvent wrap = SignalWrap.wrap(NostrEventTest.SK1, Secp256k1.xOnly(NostrEventTest.SK2),
                Nip44Test.OFFER, 1_700_000_000_000L, 120_000, new SecureRandom());
        final String answer = new TraversalAnswer("answer", "s", 10, 20, "n2", "b", "a", "s", true,
                new TraversalAddress("udp", "198.18.0.9", 4000), List.of(), "stun:x:1",
                new PunchHint(12, 200, 10_000), null, 11L).toJson();
        write("event", advert.toJson(), wrap.toJson(), NostrEvent.rumor(new byte[32], 1, 14, List.of(), "x").toJson());
        write("nip44", Nip44.encrypt(CK, "a".getBytes(StandardCharsets.UTF_8), new byte[32]),
                Nip44.encrypt(CK, Nip44Test.OFFER.getBytes(StandardCharsets.UTF_8), new byte[32]));
        write("payloads", NostrEventTest.VECTOR_CONTENT, Nip44Test.OFFER, answer);
        write("relayMessage", "[\"EVENT\",\"sub-1\"," + advert.toJson() + "]", "[\"OK\",\"" + advert.id()
                + "\",true,\"\"]", "[\"EOSE\",\"sub-1\"]", "[\"NOTICE\",\"hi\"]", "[\"CLOSED\",\"fetch-2\",\"x\"]");
    }

    private static void write(final String method, final String... seeds) throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/nostr/NostrJazzerTestInputs", method));
        for (int i = 0; i < seeds.length; i++) {
            Files.writeString(dir.resolve("seed-" + i), seeds[i]);
        }
    }
}
