package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.DIG_QUERY;
import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the DNS codec and responder, which take the bytes of any local query, with
 * {@link DnsFuzzTest}'s checks: the decoder returns a query or throws a {@link DnsFormatException}, nothing else; the
 * responder drops or answers, and every answer decodes, keeps the query's id and carries QR|AA and NOERROR or
 * NXDOMAIN.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/dns/DnsJazzerTestInputs/<method>/} (Jazzer's regression mode); with
 * {@code JAZZER_FUZZ=1} and one target selected Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are
 * queries made by {@link DnsCodec#encodeQuery} and a captured dig query, written by {@link #writeSeeds()}
 * ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class DnsJazzerTest {
    private final DnsFuzzTest checks = new DnsFuzzTest();

    @FuzzTest
    void decode(final byte[] in) {
        try {
            assertNotNull(DnsCodec.decode(in, 0, in.length));
        } catch (final DnsFormatException e) {
            assertNotNull(e.problem());
        }
    }

    @FuzzTest
    void respond(final byte[] in) {
        checks.feed(in);
    }

    /** Writes the seed corpus of both targets. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final List<byte[]> seeds = List.of(DIG_QUERY,
                DnsCodec.encodeQuery(1, true, "gateway.fips", DnsCodec.TYPE_AAAA, 1232),
                DnsCodec.encodeQuery(2, false, "GATEWAY.FIPS.", DnsCodec.TYPE_A, -1),
                DnsCodec.encodeQuery(3, true, NPUB_A + ".fips", DnsCodec.TYPE_AAAA, 512));
        for (final String method : List.of("decode", "respond")) {
            final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                    "net/fips/control/dns/DnsJazzerTestInputs", method));
            for (int i = 0; i < seeds.size(); i++) {
                Files.write(dir.resolve("seed-" + i), seeds.get(i));
            }
        }
    }
}
