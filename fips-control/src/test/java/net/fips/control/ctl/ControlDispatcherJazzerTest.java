package net.fips.control.ctl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the control socket's request parsing and dispatch, with
 * {@link ControlDispatcherFuzzTest}'s check: whatever the request line, the dispatcher answers with a well-formed
 * envelope and never throws. The bytes are decoded as UTF-8, as the socket server does before dispatching.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/ctl/ControlDispatcherJazzerTestInputs/dispatch/} (Jazzer's regression
 * mode); with {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are
 * {@link ControlDispatcherFuzzTest}'s requests, written by {@link #writeSeeds()}
 * ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class ControlDispatcherJazzerTest {
    private final ControlDispatcher dispatcher = new ControlDispatcher(new FakeControlApi());

    @FuzzTest
    void dispatch(final byte[] in) {
        ControlDispatcherFuzzTest.check(dispatcher, new String(in, StandardCharsets.UTF_8));
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/ctl/ControlDispatcherJazzerTestInputs", "dispatch"));
        for (int i = 0; i < ControlDispatcherFuzzTest.SEEDS.size(); i++) {
            Files.writeString(dir.resolve("seed-" + i), ControlDispatcherFuzzTest.SEEDS.get(i));
        }
    }
}
