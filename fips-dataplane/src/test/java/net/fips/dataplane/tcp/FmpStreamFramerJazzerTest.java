package net.fips.dataplane.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the TCP stream framing, with {@link FmpStreamFramerTest}'s checks: the input
 * is a received stream; every call gives a packet length within the window and the MTU, {@code NEED_MORE} or a
 * violation code, never an exception. The same stream fed in chunks (of a size derived from the input) through
 * {@link FmpStreamFramerTest#deframe} yields the same packets and the same violation.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/dataplane/tcp/FmpStreamFramerJazzerTestInputs/stream/} (Jazzer's regression
 * mode); with {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are valid streams
 * (handshake and established packets back to back), written by {@link #writeSeeds()}
 * ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class FmpStreamFramerJazzerTest {
    @FuzzTest
    void stream(final byte[] in) {
        final MemorySegment seg = MemorySegment.ofArray(in);
        int start = 0;
        int end = FmpStreamFramer.NEED_MORE;
        while (start < in.length) {
            final int len = FmpStreamFramerTest.next(seg, start, in.length - start, FmpStreamFramerTest.MTU);
            if (len <= 0) {
                end = len;
                break;
            }
            start += len;
        }
        final int[] violation = {0};
        final List<byte[]> packets = FmpStreamFramerTest.deframe(in,
                new int[] {1 + Math.floorMod(Arrays.hashCode(in), 200)}, violation);
        final ByteArrayOutputStream joined = new ByteArrayOutputStream();
        packets.forEach(joined::writeBytes);
        assertArrayEquals(Arrays.copyOf(in, start), joined.toByteArray(), "the same packets however split");
        assertEquals(end, violation[0], "the same violation however split");
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/dataplane/tcp/FmpStreamFramerJazzerTestInputs", "stream"));
        final List<List<byte[]>> streams = List.of(
                List.of(FmpStreamFramerTest.handshake(1), FmpStreamFramerTest.established(0, 1),
                        FmpStreamFramerTest.established(40, 2)),
                List.of(FmpStreamFramerTest.handshake(2), FmpStreamFramerTest.established(100, 3)),
                List.of(FmpStreamFramerTest.established(FmpStreamFramerTest.MTU - 32, 4)));
        for (int i = 0; i < streams.size(); i++) {
            final ByteArrayOutputStream s = new ByteArrayOutputStream();
            streams.get(i).forEach(s::writeBytes);
            Files.write(dir.resolve("seed-" + i), s.toByteArray());
        }
    }
}
