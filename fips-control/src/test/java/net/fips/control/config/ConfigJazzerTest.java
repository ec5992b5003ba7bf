package net.fips.control.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzzing (Jazzer) of the YAML config loader, with {@link ConfigFuzzTest}'s check: a document is
 * accepted or refused with a {@link ConfigException} naming its problems, nothing else escapes.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/config/ConfigJazzerTestInputs/load/} (Jazzer's regression mode); with
 * {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are {@link ConfigFuzzTest}'s
 * document and a minimal one, written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class ConfigJazzerTest {
    @TempDir
    static Path root;

    @FuzzTest
    void load(final byte[] in) {
        ConfigFuzzTest.check(new ConfigLoader(ConfigTestSupport.host(root, Map.of())),
                new String(in, StandardCharsets.UTF_8), "input");
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/config/ConfigJazzerTestInputs", "load"));
        Files.writeString(dir.resolve("seed-0"), ConfigFuzzTest.SEED_DOC);
        Files.writeString(dir.resolve("seed-1"), "node: { identity: { persistent: false } }\n");
    }
}
