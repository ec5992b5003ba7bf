package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the decoders that take bytes from the network, one {@link FuzzTest} per
 * decoder, with the same checks as {@link WireFuzzTest}: a value or a {@link WireError}, never an exception; the same
 * outcome when the bytes are embedded in a larger, garbage-filled buffer; and every accepted value round-trips.
 *
 * <p>A plain test run replays each target's committed corpus under
 * {@code src/test/resources/net/fips/dataplane/wire/WireJazzerTestInputs/<method>/} (Jazzer's regression mode);
 * with {@code JAZZER_FUZZ=1} and one target selected ({@code -Dtest=WireJazzerTest#fmpMsg1}) Jazzer fuzzes it, see
 * {@code benchmarks/fuzz.sh}. The seeds are encodings of the vector values made by the codecs' own encoders,
 * written by {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class WireJazzerTest {
    private static final Map<String, WireFuzzTest.Target> TARGETS = new LinkedHashMap<>();

    static {
        for (final WireFuzzTest.Target t : WireFuzzTest.targets()) {
            TARGETS.put(t.name(), t);
        }
    }

    /** The fuzz test methods and the {@link WireFuzzTest} targets they drive. */
    private static final Map<String, String> METHODS = Map.ofEntries(
            Map.entry("fmpMsg1", "FmpMsg1"), Map.entry("fmpMsg2", "FmpMsg2"),
            Map.entry("sessionDatagram", "SessionDatagram"), Map.entry("sessionSetup", "SessionSetup"),
            Map.entry("sessionAck", "SessionAck"), Map.entry("sessionMsg3", "SessionMsg3"),
            Map.entry("treeAnnounce", "TreeAnnounce"), Map.entry("filterAnnounce", "FilterAnnounce"),
            Map.entry("lookupRequest", "LookupRequest"), Map.entry("lookupResponse", "LookupResponse"),
            Map.entry("ipv6ShimDecompress", "Ipv6Shim.decompress"));

    /**
     * The other decoders and flyweights of {@link WireFuzzTest} (headers, MMP reports, error signals, coordinates,
     * data packets, ...): each is small and fast, so they share one target, {@link #otherDecoders}, whose first input
     * byte picks the decoder (modulo this list's size).
     */
    static final List<String> OTHER = List.of("FmpPrefix", "FmpEstablishedHeader", "FmpInnerHeader",
            "SessionDatagramHeader", "FspPrefix", "FspHeader", "FspInnerHeader", "PortHeader", "Coords", "Disconnect",
            "Heartbeat", "MmpSenderReport.link", "MmpSenderReport.session", "MmpReceiverReport.link",
            "MmpReceiverReport.session", "FspErrorSignal", "CoordsRequired", "PathBroken", "MtuExceeded",
            "PathMtuNotification", "FspCpCoords", "DataPacket", "Ipv6Shim.compress");

    /** Runs {@link WireFuzzTest}'s checks on one input; the embedding offset is derived from the input. */
    private static void check(final String target, final byte[] in) {
        WireFuzzTest.run(TARGETS.get(target), in, new Random(Arrays.hashCode(in)));
    }

    @FuzzTest
    void fmpMsg1(final byte[] in) {
        check("FmpMsg1", in);
    }

    @FuzzTest
    void fmpMsg2(final byte[] in) {
        check("FmpMsg2", in);
    }

    @FuzzTest
    void sessionDatagram(final byte[] in) {
        check("SessionDatagram", in);
    }

    @FuzzTest
    void sessionSetup(final byte[] in) {
        check("SessionSetup", in);
    }

    @FuzzTest
    void sessionAck(final byte[] in) {
        check("SessionAck", in);
    }

    @FuzzTest
    void sessionMsg3(final byte[] in) {
        check("SessionMsg3", in);
    }

    @FuzzTest
    void treeAnnounce(final byte[] in) {
        check("TreeAnnounce", in);
    }

    @FuzzTest
    void filterAnnounce(final byte[] in) {
        check("FilterAnnounce", in);
    }

    @FuzzTest
    void lookupRequest(final byte[] in) {
        check("LookupRequest", in);
    }

    @FuzzTest
    void lookupResponse(final byte[] in) {
        check("LookupResponse", in);
    }

    @FuzzTest
    void ipv6ShimDecompress(final byte[] in) {
        check("Ipv6Shim.decompress", in);
    }

    /** Every decoder in {@link #OTHER}: {@code in[0]} picks it, the rest is its input. */
    @FuzzTest
    void otherDecoders(final byte[] in) {
        if (in.length == 0) {
            return;
        }
        check(OTHER.get((in[0] & 0xFF) % OTHER.size()), Arrays.copyOfRange(in, 1, in.length));
    }

    /**
     * Writes the seed corpus: for each fuzz test, up to three distinct encodings (by the codec's own encoder) of the
     * values that the vector inputs decode to. Run once by hand when a target is added.
     */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path base = Path.of(System.getProperty("fips.fuzz.writeSeeds"), "net/fips/dataplane/wire",
                "WireJazzerTestInputs");
        final List<byte[]> corpus = WireFuzzTest.corpus();
        for (final Map.Entry<String, String> m : METHODS.entrySet()) {
            final WireFuzzTest.Target t = TARGETS.get(m.getValue());
            final Path dir = Files.createDirectories(base.resolve(m.getKey()));
            int n = 0;
            final List<byte[]> seen = new ArrayList<>();
            for (final byte[] c : corpus) {
                final WireResult<?> r = t.decoder().decode(MemorySegment.ofArray(c), 0, c.length);
                if (!r.isOk()) {
                    continue;
                }
                // Ipv6Shim.decompress yields the IPv6 packet: its seed is that packet compressed again.
                final byte[] value = t.fingerprint().apply(r.valueOrNull());
                final byte[] enc = "Ipv6Shim.decompress".equals(t.name())
                        ? Ipv6Shim.compress(value, 0, value.length).valueOrNull() : value;
                if (seen.stream().noneMatch(s -> Arrays.equals(s, enc))) {
                    seen.add(enc);
                    Files.write(dir.resolve("seed-" + n++), enc);
                }
                if (n == 3) {
                    break;
                }
            }
            assertTrue(n > 0, m.getKey() + ": no seed");
        }
        // otherDecoders: per decoder, the first vector input it accepts, behind the byte that picks it
        final Path other = Files.createDirectories(base.resolve("otherDecoders"));
        for (int k = 0; k < OTHER.size(); k++) {
            final WireFuzzTest.Target t = TARGETS.get(OTHER.get(k));
            for (final byte[] c : corpus) {
                if (t.decoder().decode(MemorySegment.ofArray(c), 0, c.length).isOk()) {
                    final byte[] seed = new byte[c.length + 1];
                    seed[0] = (byte) k;
                    System.arraycopy(c, 0, seed, 1, c.length);
                    Files.write(other.resolve("seed-" + k), seed);
                    break;
                }
            }
        }
    }
}
