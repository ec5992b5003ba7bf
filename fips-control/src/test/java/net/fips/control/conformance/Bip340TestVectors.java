package net.fips.control.conformance;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;

/**
 * The official BIP-340 test vectors: where a secret key is given, sign with the listed aux_rand and compare the
 * signature byte for byte (and the derived public key); verify every row and compare with the expected result.
 *
 * <p>The checker is strict and never adapts to the file. If the file is the pre-August-2020 draft of the
 * vectors (recognisable by its "has_square_y" comments) its valid rows cannot match final BIP-340, which
 * libsecp256k1 and so the reference implement; the first failure then says so, so the file can be replaced.
 */
public final class Bip340TestVectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();
    private static final String KIND = "vectors";
    private static final String DRAFT_NOTE = " [NOTE: this file is the 2020-02 draft of the BIP-340 vectors"
            + " (bitcoin/bips b6b5f58e: tags \"BIP340/...\", R with a square Y). Final BIP-340, which libsecp256k1"
            + " and the reference use, has tags \"BIP0340/...\" and an even-Y R, so draft signatures cannot match."
            + " The final file is bitcoin/bips 200f9b26 bip-0340/test-vectors.csv (rows 0-14 are the same cases).]";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (!lines.get(0).startsWith("index,secret key,public key,aux_rand,message,signature,verification result")) {
            throw new IllegalStateException("unexpected CSV header: " + lines.get(0));
        }
        final boolean draft = lines.stream().anyMatch(l -> l.contains("has_square_y"));
        boolean noted = false;
        for (final String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            // Eight columns; only the last (comment) could ever hold a comma, so split at most 8 ways.
            final String[] f = line.split(",", 8);
            final String name = "index " + f[0] + (f.length > 7 && !f[7].isBlank() ? " (" + f[7].strip() + ")" : "");
            try {
                final List<String> problems = check(f);
                String why = String.join("; ", problems);
                if (!problems.isEmpty() && draft && !noted) {
                    why += DRAFT_NOTE;
                    noted = true;
                }
                tally.check(KIND, name, problems.isEmpty(), why);
            } catch (final RuntimeException e) {
                tally.error(KIND, name, e);
            }
        }
    }

    private static List<String> check(final String[] f) {
        final List<String> problems = new ArrayList<>();
        final byte[] pub = HEX.parseHex(f[2]);
        final byte[] msg = HEX.parseHex(f[4]);
        final byte[] sig = HEX.parseHex(f[5]);
        final boolean expected = Boolean.parseBoolean(f[6].strip().toLowerCase());
        if (!f[1].isEmpty()) {
            final byte[] sk = HEX.parseHex(f[1]);
            addIfDifferent(problems, Tally.diff("public key from secret", pub, Secp256k1.xOnly(sk)));
            addIfDifferent(problems, Tally.diff("signature", sig, Schnorr.sign(sk, msg, HEX.parseHex(f[3]))));
        }
        final boolean actual = Schnorr.verify(pub, msg, sig);
        if (actual != expected) {
            problems.add("verification result expected " + expected + " got " + actual);
        }
        return problems;
    }

    private static void addIfDifferent(final List<String> problems, final String diff) {
        if (diff != null) {
            problems.add(diff);
        }
    }
}
