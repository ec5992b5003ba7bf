package net.fips.control.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@link Bip340TestVectors} checker on the shared official BIP-340 vectors (all 15 rows must pass with our
 * Schnorr) and on altered copies of them, so the checker itself is known to pass on correct data and to catch a
 * wrong signature or a wrong verification result.
 */
class SchnorrCheckerTest {
    private static Path shared() {
        return ConformanceTest.vectorsDir().resolve("bip340-test-vectors.csv");
    }

    @Test
    void checkerPassesOnTheSharedBip340Vectors() throws Exception {
        final Tally tally = new Tally("bip340-test-vectors.csv");
        new Bip340TestVectors().check(shared(), tally);
        assertEquals(15, tally.perKind().get("vectors")[0]);
        assertEquals(0, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }

    @Test
    void checkerCatchesAWrongSignature(@TempDir final Path dir) throws Exception {
        final String csv = Files.readString(shared());
        // Row 0's signature starts with E907831F; change one nibble of it.
        assertTrue(csv.contains(",E907831F"));
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, csv.replace(",E907831F", ",E907831E"));
        final Tally tally = new Tally("bad.csv");
        new Bip340TestVectors().check(bad, tally);
        assertEquals(15, tally.perKind().get("vectors")[0]);
        assertEquals(1, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }

    @Test
    void checkerCatchesAWrongExpectedResult(@TempDir final Path dir) throws Exception {
        final String csv = Files.readString(shared());
        // Row 5 (public key not on the curve) must not verify; claim that it does.
        assertTrue(csv.contains(",FALSE,public key not on the curve"));
        final Path bad = dir.resolve("bad-result.csv");
        Files.writeString(bad, csv.replace(",FALSE,public key not on the curve", ",TRUE,public key not on the curve"));
        final Tally tally = new Tally("bad-result.csv");
        new Bip340TestVectors().check(bad, tally);
        assertEquals(1, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }
}
