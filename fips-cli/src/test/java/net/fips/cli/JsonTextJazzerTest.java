package net.fips.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of fipsctl's own JSON reader ({@link JsonText#parse}), which decodes every
 * reply line the daemon sends, with {@link JsonTextTest#check}'s contract: a tree equal to Jackson's reading whose
 * compact text is a fixed point, or a {@link JsonText.JsonTextException}; never another exception.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/cli/JsonTextJazzerTestInputs/parse/}; with {@code JAZZER_FUZZ=1} Jazzer fuzzes
 * it, see {@code benchmarks/fuzz.sh}. Seeds: {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class JsonTextJazzerTest {
    /** Reply lines in the daemon's shapes, and a few edge cases of the grammar. */
    private static final List<String> SEEDS = List.of(
            "{\"status\":\"ok\",\"data\":{\"peers\":[{\"npub\":\"npub1x\",\"link_id\":3,\"rtt_ms\":1.5e0,"
                    + "\"up\":true,\"addr\":null}]}}",
            "{\"status\":\"error\",\"message\":\"unknown command: x\\u0041\\n\"}",
            "[-0,1E+2,-12.5e-3,\"\\ud83d\\ude00\",{}, [] ,false]",
            "  \"caf\u00e9\"  ");

    @FuzzTest
    void parse(final byte[] in) throws Exception {
        JsonTextTest.check(in);
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/cli/JsonTextJazzerTestInputs", "parse"));
        for (int i = 0; i < SEEDS.size(); i++) {
            Files.write(dir.resolve("seed-" + i), SEEDS.get(i).getBytes(StandardCharsets.UTF_8));
        }
    }
}
