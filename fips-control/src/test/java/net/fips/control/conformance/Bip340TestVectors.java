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
 * <p>The shared file is the 2020-02 <em>draft</em> of the vectors (bitcoin/bips b6b5f58e: tags "BIP340/...", R with
 * a square Y; recognisable by its "has_square_y" comment). Final BIP-340 (bitcoin/bips afa13249 and later), which
 * libsecp256k1 and so the reference implement, uses tags "BIP0340/..." and an even-Y R, so the draft's five valid
 * signatures (rows 0-4) cannot match any conforming implementation. For such a file every row is still read and
 * checked, but a row's expected signature comes from the same-index row of the final file (bitcoin/bips 200f9b26,
 * bundled as a test resource), and only after every other column of the two rows is confirmed identical; the
 * draft's own signature must then fail final verification, which proves the substitution is the only difference.
 * A notice says so on the console. Any other file is checked exactly as given.
 */
public final class Bip340TestVectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();
    private static final String KIND = "vectors";
    /** The final vectors, bitcoin/bips 200f9b26 bip-0340/test-vectors.csv (rows 0-18). */
    static final String FINAL_RESOURCE = "/net/fips/control/crypto/bip340-test-vectors-final.csv";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final List<String[]> rows = rows(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
        final boolean draft = rows.stream().anyMatch(r -> r.length > 7 && r[7].contains("has_square_y"));
        final List<String[]> finalRows = draft ? finalRows() : List.of();
        int substituted = 0;
        for (final String[] f : rows) {
            final String name = "index " + f[0] + (f.length > 7 && !f[7].isBlank() ? " (" + f[7].strip() + ")" : "");
            try {
                final List<String> problems;
                if (draft) {
                    problems = checkDraftRow(f, finalRows);
                    substituted++;
                } else {
                    problems = check(f);
                }
                tally.check(KIND, name, problems.isEmpty(), String.join("; ", problems));
            } catch (final RuntimeException e) {
                tally.error(KIND, name, e);
            }
        }
        if (draft) {
            System.out.println("conformance notice: " + file.getFileName() + " is the 2020-02 draft of the BIP-340"
                    + " vectors (bitcoin/bips b6b5f58e); its " + substituted + " rows were checked against the"
                    + " final BIP-340 signatures of the same cases (bitcoin/bips 200f9b26), which the reference uses");
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

    static List<String[]> finalRows() throws java.io.IOException {
        try (java.io.InputStream in = Bip340TestVectors.class.getResourceAsStream(FINAL_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + FINAL_RESOURCE);
            }
            return rows(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList(), FINAL_RESOURCE);
        }
    }

    /** A draft row: same case as the final row of that index, checked against the final signature. */
    private static List<String> checkDraftRow(final String[] draftRow, final List<String[]> finalRows) {
        final int index = Integer.parseInt(draftRow[0]);
        if (index >= finalRows.size()) {
            return List.of("no final BIP-340 row " + index + " to compare the draft row with");
        }
        final String[] fin = finalRows.get(index);
        final List<String> problems = new ArrayList<>();
        final String[] columns = {"index", "secret key", "public key", "aux_rand", "message", null,
            "verification result"};
        for (int c = 0; c < columns.length; c++) {
            if (columns[c] != null && !draftRow[c].strip().equalsIgnoreCase(fin[c].strip())) {
                problems.add("draft and final rows differ in " + columns[c] + ", not only in the signature");
            }
        }
        if (!problems.isEmpty()) {
            return problems;
        }
        problems.addAll(check(fin));
        final boolean draftSigOk = Schnorr.verify(HEX.parseHex(draftRow[2]), HEX.parseHex(draftRow[4]),
                HEX.parseHex(draftRow[5]));
        if (draftSigOk) {
            problems.add("the draft's signature verifies under final BIP-340, so the draft/final explanation fails");
        }
        return problems;
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
