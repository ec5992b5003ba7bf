package net.fips.control.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1Backend;
import net.fips.control.crypto.Secp256k1Backends;

/**
 * Reads every file that {@code ../shared/vectors/MANIFEST.json} lists, checks each vector byte-exactly through
 * that file's {@link VectorFileCheck}, and prints {@code conformance: N vectors checked, M failed}.
 * A file without a checker, or a checker that checks fewer vectors of a kind than the manifest counts, fails.
 *
 * <p>Every file is checked once per available secp256k1 backend (libsecp256k1, then BouncyCastle; see
 * {@link Secp256k1Backends}), so key derivation, the Noise DH and BIP-340 are held to the same bytes on both. A
 * vector still counts once in N: it passes only when it passed on every backend. Without libsecp256k1 the run says
 * so and checks BouncyCastle alone.
 */
class ConformanceTest {

    static Path vectorsDir() {
        final String prop = System.getProperty("fips.vectors.dir");
        final Path dir = Path.of(prop != null ? prop : "../../shared/vectors").toAbsolutePath().normalize();
        if (!Files.isRegularFile(dir.resolve("MANIFEST.json"))) {
            fail("known-answer vectors not found at " + dir + " (expected ../shared/vectors beside the project root,"
                    + " or -Dfips.vectors.dir=...)");
        }
        return dir;
    }

    /**
     * {@code noise_ik.json} -> {@code NoiseIkVectors}; {@code bip340-test-vectors.csv} -> {@code Bip340TestVectors}.
     */
    static String checkerClassName(final String file) {
        final String stem = file.substring(0, file.lastIndexOf('.'));
        final StringBuilder sb = new StringBuilder();
        for (final String part : stem.split("[_\\-]")) {
            sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        if (!sb.toString().endsWith("Vectors")) {
            sb.append("Vectors");
        }
        return ConformanceTest.class.getPackageName() + "." + sb;
    }

    @Test
    void everyVectorMatchesTheReference() throws Exception {
        final Path dir = vectorsDir();
        final JsonNode manifest = new ObjectMapper().readTree(dir.resolve("MANIFEST.json").toFile());
        int expectedTotal = 0;
        int checked = 0;
        int failed = 0;
        final List<String> problems = new ArrayList<>();
        final List<Secp256k1Backend> backends = Secp256k1Backends.available();
        if (Secp256k1Backends.libsecp256k1() == null) {
            System.out.println("conformance: libsecp256k1 unavailable, checking the BouncyCastle secp256k1 backend"
                    + " only: " + Secp256k1Backends.libsecp256k1UnavailableReason());
        }

        for (final Iterator<Map.Entry<String, JsonNode>> it = manifest.get("files").properties().iterator();
                it.hasNext();) {
            final Map.Entry<String, JsonNode> entry = it.next();
            final String file = entry.getKey();
            final Map<String, Tally> runs = new LinkedHashMap<>();
            for (final Secp256k1Backend backend : backends) {
                final Tally run = new Tally(file);
                runs.put(backend.name(), run);
                final Secp256k1Backend before = Secp256k1Backends.use(backend);
                try {
                    final Class<?> cls = Class.forName(checkerClassName(file));
                    final VectorFileCheck check = (VectorFileCheck) cls.getDeclaredConstructor().newInstance();
                    check.check(dir.resolve(file), run);
                } catch (final ClassNotFoundException e) {
                    problems.add(file + ": no checker " + checkerClassName(file));
                    break;
                } catch (final Exception | AssertionError e) {
                    problems.add(file + " (" + backend.name() + "): checker threw " + e);
                } finally {
                    Secp256k1Backends.use(before);
                }
            }
            final Tally tally = Tally.merge(file, runs);
            for (final Iterator<Map.Entry<String, JsonNode>> ks = entry.getValue().get("counts").properties()
                    .iterator(); ks.hasNext();) {
                final Map.Entry<String, JsonNode> kind = ks.next();
                final int want = kind.getValue().asInt();
                expectedTotal += want;
                final int[] got = tally.perKind().getOrDefault(kind.getKey(), new int[2]);
                if (got[0] < want) {
                    problems.add(file + " " + kind.getKey() + ": checked " + got[0] + " of " + want);
                    failed += want - got[0];
                }
            }
            for (final int[] c : tally.perKind().values()) {
                checked += c[0];
                failed += c[1];
            }
            problems.addAll(tally.failures());
        }

        System.out.println("conformance: " + checked + " vectors checked, " + failed + " failed");
        System.out.println("conformance: secp256k1 backends " + backends.stream().map(Secp256k1Backend::name).toList()
                + " (every vector checked on each, counted once)");
        problems.forEach(p -> System.out.println("  conformance problem: " + p));
        assertTrue(checked >= expectedTotal, "checked " + checked + " of the manifest's " + expectedTotal);
        assertEquals(0, failed, "failed vectors: " + String.join("\n", problems));
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }
}
