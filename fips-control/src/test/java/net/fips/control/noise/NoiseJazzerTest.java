package net.fips.control.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 * <p>Positioning a handshake costs several secp256k1 multiplications (key pairs, the earlier messages' DH), several
 * times the read under test, so the positioned handshake of a selector is kept and offered the next input with
 * that selector as long as its reads are refused; an accepted read moves it on, and the next input gets a fresh one.
 * That the kept handshake is as fresh is checked, not assumed: after every refused read each field of the
 * handshake, its symmetric and cipher state (keys, chaining key, hash, nonce, progress) must equal what it was
 * before the read, which is stronger than the {@link NoiseFuzzTest#check} contract alone (progress and handshake
 * hash), so a finding still reproduces from its own input on a fresh handshake.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/noise/NoiseJazzerTestInputs/readMessage/} (Jazzer's regression mode);
 * with {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are the genuine messages
 * of every pattern, written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class NoiseJazzerTest {
    private static final Pattern[] PATTERNS = Pattern.values();

    /** The positioned handshake of each selector byte, while its reads are refused (see the class comment). */
    private static final Map<Integer, NoiseFuzzTest.Target> TARGETS = new HashMap<>();

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
        NoiseFuzzTest.Target t = TARGETS.get(sel);
        if (t == null) {
            t = NoiseFuzzTest.target(pattern, message, new Random(sel));
            TARGETS.put(sel, t);
        }
        final List<Object> before = state(t.reader());
        if (NoiseFuzzTest.check(t.reader(), NoiseFuzzTest.reader(message), Arrays.copyOfRange(in, 1, in.length),
                pattern + " read message " + message)) {
            TARGETS.remove(sel);
        } else {
            assertEquals(before, state(t.reader()), "a refused read leaves every field of the handshake as it was");
        }
    }

    /**
     * @return every instance field of {@code o}, recursively into the objects of this package (the symmetric and
     *     cipher state); arrays as hex, anything else by {@code equals}
     */
    static List<Object> state(final Object o) {
        final List<Object> out = new ArrayList<>();
        for (Class<?> c = o.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (final Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                final Object v;
                try {
                    v = f.get(o);
                } catch (final IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                out.add(f.getName());
                if (v instanceof byte[] b) {
                    out.add(HexFormat.of().formatHex(b));
                } else if (v != null && !(v instanceof Enum<?>)
                        && v.getClass().getPackageName().equals(HandshakeState.class.getPackageName())) {
                    out.add(state(v));
                } else {
                    out.add(v);
                }
            }
        }
        return out;
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
