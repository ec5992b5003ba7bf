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
 * The official BIP-340 test vectors (bitcoin/bips {@code bip-0340/test-vectors.csv}, the final BIP-340 that
 * libsecp256k1 and so the reference implement): where a secret key is given, sign with the listed aux_rand and
 * compare the signature byte for byte (and the derived public key); verify every row and compare with the expected
 * result.
 */
public final class Bip340TestVectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();
    private static final String KIND = "vectors";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final List<String[]> rows = rows(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
        for (final String[] f : rows) {
            final String name = "index " + f[0] + (f.length > 7 && !f[7].isBlank() ? " (" + f[7].strip() + ")" : "");
            try {
                final List<String> problems = check(f);
                tally.check(KIND, name, problems.isEmpty(), String.join("; ", problems));
            } catch (final RuntimeException e) {
                tally.error(KIND, name, e);
            }
        }
    }

    private static List<String[]> rows(final List<String> lines, final String source) {
        if (!lines.get(0).startsWith("index,secret key,public key,aux_rand,message,signature,verification result")) {
            throw new IllegalStateException("unexpected CSV header in " + source + ": " + lines.get(0));
        }
        final List<String[]> out = new ArrayList<>();
        for (final String line : lines.subList(1, lines.size())) {
            if (!line.isBlank()) {
                // Eight columns; only the last (comment) could ever hold a comma, so split at most 8 ways.
                out.add(line.split(",", 8));
            }
        }
        return out;
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
