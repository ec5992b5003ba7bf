package net.fips.control.noise;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.control.noise.HandshakeState.Pattern;

/**
 * Coverage-guided fuzzing (Jazzer) of the Noise handshake message readers, with {@link NoiseFuzzTest}'s check: a
 * read accepts the bytes or refuses them with a {@link NoiseException} that leaves the reader's state unchanged,
 * nothing else. The first input byte picks the pattern and the message (1 to 3, 1 to 2 for IK); the rest is the
 * message, offered to a handshake positioned just before that read (keys and ephemerals from a {@link Random}
 * seeded with that byte, so a seed's genuine message is accepted).
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/noise/NoiseJazzerTestInputs/readMessage/} (Jazzer's regression mode);
 * with {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are the genuine messages
 * of every pattern, written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class NoiseJazzerTest {
    private static final Pattern[] PATTERNS = Pattern.values();

    private static int messages(final Pattern pattern) {
        return pattern == Pattern.IK ? 2 : 3;
    }

    @FuzzTest
    void readMessage(final byte[] in) throws NoiseException {
        if (in.length == 0) {
            return;
        }
        final int sel = in[0] & 0xFF;
        final Pattern pattern = PATTERNS[sel % PATTERNS.length];
        final int message = 1 + sel / PATTERNS.length % messages(pattern);
        final NoiseFuzzTest.Target t = NoiseFuzzTest.target(pattern, message, new Random(sel));
        NoiseFuzzTest.check(t.reader(), NoiseFuzzTest.reader(message), Arrays.copyOfRange(in, 1, in.length),
                pattern + " read message " + message);
    }

    /** Writes the seed corpus: the selector byte and the genuine message, for each read. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException, NoiseException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/noise/NoiseJazzerTestInputs", "readMessage"));
        for (final Pattern pattern : PATTERNS) {
            for (int message = 1; message <= messages(pattern); message++) {
                final int sel = pattern.ordinal() + PATTERNS.length * (message - 1);
                final byte[] genuine = NoiseFuzzTest.target(pattern, message, new Random(sel)).genuine();
                final byte[] seed = new byte[1 + genuine.length];
                seed[0] = (byte) sel;
                System.arraycopy(genuine, 0, seed, 1, genuine.length);
                Files.write(dir.resolve("seed-" + sel), seed);
            }
        }
    }
}
