package net.fips.control.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@link Bip340TestVectors} checker on the final BIP-340 vectors bundled with the tests (bitcoin/bips
 * 200f9b26, all 19 rows), so the checker itself is known to pass on correct data and to catch a wrong one.
 */
class SchnorrCheckerTest {
    private static final Path FINAL_CSV =
            Path.of("src/test/resources/net/fips/control/crypto/bip340-test-vectors-final.csv");

    @Test
    void checkerPassesOnTheFinalBip340Vectors() throws Exception {
        final Tally tally = new Tally("final.csv");
        new Bip340TestVectors().check(FINAL_CSV, tally);
        assertEquals(19, tally.perKind().get("vectors")[0]);
        assertEquals(0, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }

    @Test
    void checkerCatchesAWrongSignature(@TempDir final Path dir) throws Exception {
        final String csv = Files.readString(FINAL_CSV);
        // Row 0's signature starts with E907831F; change one nibble of it.
        assertTrue(csv.contains(",E907831F"));
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, csv.replace(",E907831F", ",E907831E"));
        final Tally tally = new Tally("bad.csv");
        new Bip340TestVectors().check(bad, tally);
        assertEquals(1, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }

    @Test
    void draftRowsAreComparedOnlyWhenEveryOtherColumnMatches(@TempDir final Path dir) throws Exception {
        final Path shared = ConformanceTest.vectorsDir().resolve("bip340-test-vectors.csv");
        final Tally ok = new Tally("draft");
        new Bip340TestVectors().check(shared, ok);
        assertEquals(15, ok.perKind().get("vectors")[0]);
        assertEquals(0, ok.perKind().get("vectors")[1], String.join("\n", ok.failures()));

        // Change row 1's message (it begins 243F6A88): the draft row no longer describes the final row's case.
        final String csv = Files.readString(shared);
        assertTrue(csv.contains(",243F6A8885A308D3"));
        final Path bad = dir.resolve("draft-bad.csv");
        Files.writeString(bad, csv.replaceFirst(",243F6A8885A308D3", ",243F6A8885A308D4"));
        final Tally tally = new Tally("draft-bad");
        new Bip340TestVectors().check(bad, tally);
        assertEquals(1, tally.perKind().get("vectors")[1], String.join("\n", tally.failures()));
    }
}
