package net.fips.control.tor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the Tor control-port reply parser, with {@link ControlFuzzTest}'s checks: the
 * bytes, offered in fragments drawn from a {@link Random} seeded with the input, give well-formed replies or a
 * PROTOCOL {@link TorControlException}, nothing else.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/tor/ControlJazzerTestInputs/reply/} (Jazzer's regression mode); with
 * {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are {@link ControlFuzzTest}'s
 * replies, written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class ControlJazzerTest {
    @FuzzTest
    void reply(final byte[] in) {
        ControlFuzzTest.feed(in, new Random(Arrays.hashCode(in)));
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/tor/ControlJazzerTestInputs", "reply"));
        for (int i = 0; i < ControlFuzzTest.SEEDS.length; i++) {
            Files.writeString(dir.resolve("seed-" + i), ControlFuzzTest.SEEDS[i]);
        }
    }
}
