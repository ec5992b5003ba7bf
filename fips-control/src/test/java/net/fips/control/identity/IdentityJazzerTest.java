package net.fips.control.identity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of every identity decoder (bech32, npub, nsec, secret and public hex, peer and
 * node identities, node addresses: the text an operator gives in the config, ACL files and fipsctl arguments), with
 * {@link IdentityDecodingFuzzTest#feed}'s contract: only {@link IdentityFormatException}, with a message; what
 * decodes re-encodes to the same key.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/identity/IdentityJazzerTestInputs/decode/}; with {@code JAZZER_FUZZ=1}
 * Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. Seeds: {@link #writeSeeds()}.
 */
class IdentityJazzerTest {
    private final IdentityDecodingFuzzTest checks = new IdentityDecodingFuzzTest();

    @FuzzTest
    void decode(final byte[] in) {
        checks.feed(new String(in, StandardCharsets.UTF_8));
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/identity/IdentityJazzerTestInputs", "decode"));
        final byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 7 + 1);
        }
        final List<String> seeds = List.of(Nip19.encodeNsec(key), HexFormat.of().formatHex(key),
                Nip19.encodeNpub(key));
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("seed-" + i), seeds.get(i).getBytes(StandardCharsets.UTF_8));
        }
    }
}
