package net.fips.control.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1Backend;
import net.fips.control.crypto.Secp256k1Backends;

/**
 * The Nostr part of the conformance suite (discovery-gateway.md §1.3, §1.5): {@code nip44.vectors.json}, which
 * {@code MANIFEST.json} does not list, read by name and checked by {@link Nip44Vectors}, and the spec's NIP-01
 * event-id vector checked by {@link NostrEventVectors}; both through the production classes of
 * {@code net.fips.control.nostr}, once per secp256k1 backend, and held to fixed per-kind counts so a checker that
 * skips vectors fails.
 */
class NostrConformanceTest {
    /** nip44.vectors.json's vectors per kind (its README; get_message_keys counted per key set). */
    private static final Map<String, Integer> NIP44_COUNTS = new LinkedHashMap<>();

    static {
        NIP44_COUNTS.put("valid/get_conversation_key", 35);
        NIP44_COUNTS.put("valid/get_message_keys", 32);
        NIP44_COUNTS.put("valid/calc_padded_len", 24);
        NIP44_COUNTS.put("valid/encrypt_decrypt", 10);
        NIP44_COUNTS.put("valid/encrypt_decrypt_long_msg", 3);
        NIP44_COUNTS.put("invalid/encrypt_msg_lengths", 4);
        NIP44_COUNTS.put("invalid/get_conversation_key", 8);
        NIP44_COUNTS.put("invalid/decrypt", 12);
    }

    @Test
    void nip44VectorsMatch() throws Exception {
        final Path file = ConformanceTest.vectorsDir().resolve("nip44.vectors.json");
        assertTrue(Files.isRegularFile(file), "missing " + file);
        run("nip44.vectors.json", file, new Nip44Vectors(), NIP44_COUNTS);
    }

    @Test
    void eventIdVectorMatches() throws Exception {
        run("discovery-gateway.md §1.3", null, new NostrEventVectors(), Map.of("event_id", 1, "event_json", 1));
    }

    private static void run(final String label, final Path file, final VectorFileCheck check,
            final Map<String, Integer> counts) throws Exception {
        final Map<String, Tally> runs = new LinkedHashMap<>();
        for (final Secp256k1Backend backend : Secp256k1Backends.available()) {
            final Tally run = new Tally(label);
            runs.put(backend.name(), run);
            final Secp256k1Backend before = Secp256k1Backends.use(backend);
            try {
                check.check(file, run);
            } finally {
                Secp256k1Backends.use(before);
            }
        }
        final Tally tally = Tally.merge(label, runs);
        final List<String> problems = new ArrayList<>(tally.failures());
        int checked = 0;
        for (final Map.Entry<String, Integer> kind : counts.entrySet()) {
            final int[] got = tally.perKind().getOrDefault(kind.getKey(), new int[2]);
            checked += got[0];
            if (got[0] != kind.getValue()) {
                problems.add(label + " " + kind.getKey() + ": checked " + got[0] + " of " + kind.getValue());
            }
        }
        assertEquals(counts.keySet(), tally.perKind().keySet(), "kinds recorded");
        System.out.println("conformance: " + label + ": " + checked + " vectors checked on "
                + runs.keySet() + ", " + problems.size() + " problems");
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }
}
