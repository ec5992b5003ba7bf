package net.fips.control.conformance;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Arrays;
import java.util.Objects;

/**
 * Counts checked and failed vectors per kind, and keeps the reason for each failure. One file's checker may run
 * several times (once per secp256k1 backend); {@link #merge} folds those runs into one tally in which each vector
 * counts once and fails when it failed in any run.
 */
public final class Tally {
    private static final HexFormat HEX = HexFormat.of();

    private final String file;
    private final List<Entry> entries = new ArrayList<>();

    /** One recorded vector. */
    private record Entry(String kind, String name, boolean ok, String why) {
    }

    Tally(final String file) {
        this.file = file;
    }

    /** Records one vector of {@code kind}: passed when {@code ok}, else failed with {@code why}. */
    public void check(final String kind, final String name, final boolean ok, final String why) {
        entries.add(new Entry(kind, name, ok, why));
    }

    /** Records a vector that threw instead of producing a result. */
    public void error(final String kind, final String name, final Throwable t) {
        check(kind, name, false, t.toString());
    }

    /**
     * Folds runs of the same checker over the same file (one per label, e.g. per secp256k1 backend) into one tally:
     * the i-th vector of every run is the same vector (checkers are deterministic), so it counts once and fails when
     * any run failed it, its reason prefixed with that run's label. Runs that recorded different vectors fail.
     *
     * @param file the file all runs checked
     * @param runs label -> that run's tally, in order
     * @return the merged tally
     */
    static Tally merge(final String file, final Map<String, Tally> runs) {
        final Tally out = new Tally(file);
        final List<Map.Entry<String, Tally>> list = new ArrayList<>(runs.entrySet());
        final List<Entry> first = list.get(0).getValue().entries;
        for (int i = 0; i < first.size(); i++) {
            final Entry e = first.get(i);
            final List<String> whys = new ArrayList<>();
            for (final Map.Entry<String, Tally> run : list) {
                final List<Entry> es = run.getValue().entries;
                final Entry r = i < es.size() ? es.get(i) : null;
                if (r == null || !r.kind().equals(e.kind()) || !r.name().equals(e.name())) {
                    whys.add(run.getKey() + ": recorded a different vector here ("
                            + (r == null ? "none" : r.kind() + " " + r.name()) + ")");
                } else if (!r.ok()) {
                    whys.add(run.getKey() + ": " + r.why());
                }
            }
            out.check(e.kind(), e.name(), whys.isEmpty(), String.join(" | ", whys));
        }
        for (final Map.Entry<String, Tally> run : list) {
            if (run.getValue().entries.size() != first.size()) {
                out.check("runs", run.getKey(), false, run.getKey() + " recorded " + run.getValue().entries.size()
                        + " vectors, " + list.get(0).getKey() + " " + first.size());
            }
        }
        return out;
    }

    /**
     * Compares byte arrays for one vector; on a mismatch the failure names the field and shows both values.
     * All fields of one vector should be combined with {@link Expect} so a vector counts once.
     */
    public static String diff(final String field, final byte[] expected, final byte[] actual) {
        if (Arrays.equals(expected, actual)) {
            return null;
        }
        return field + " expected " + (expected == null ? "null" : HEX.formatHex(expected)) + " got "
                + (actual == null ? "null" : HEX.formatHex(actual));
    }

    /** @return kind -> {checked, failed}, in first-recorded order */
    Map<String, int[]> perKind() {
        final Map<String, int[]> perKind = new LinkedHashMap<>();
        for (final Entry e : entries) {
            final int[] c = perKind.computeIfAbsent(e.kind(), k -> new int[2]);
            c[0]++;
            if (!e.ok()) {
                c[1]++;
            }
        }
        return perKind;
    }

    /** @return one line per failed vector: file, kind, name and why */
    List<String> failures() {
        final List<String> failures = new ArrayList<>();
        for (final Entry e : entries) {
            if (!e.ok()) {
                failures.add(file + " " + e.kind() + " " + e.name() + ": " + e.why());
            }
        }
        return failures;
    }

    /** Collects the mismatches of one vector's fields, then records the vector once. */
    public static final class Expect {
        private final List<String> problems;
        private final String prefix;

        /** An empty expectation for one vector. */
        public Expect() {
            this(new ArrayList<>(), "");
        }

        private Expect(final List<String> problems, final String prefix) {
            this.problems = problems;
            this.prefix = prefix;
        }

        /**
         * @return a view that records into this vector's problems with {@code prefix} before each field name (one
         *     vector checked several ways, e.g. once per AEAD backend, still counts once)
         */
        public Expect prefixed(final String prefix) {
            return new Expect(problems, this.prefix + prefix);
        }

        /** Expects equal bytes. */
        public Expect bytes(final String field, final byte[] expected, final byte[] actual) {
            final String d = diff(prefix + field, expected, actual);
            if (d != null) {
                problems.add(d);
            }
            return this;
        }

        /** Expects equal bytes, the expected ones given as hex. */
        public Expect hex(final String field, final String expectedHex, final byte[] actual) {
            return bytes(field, HEX.parseHex(expectedHex), actual);
        }

        /** Expects equal values. */
        public Expect equal(final String field, final Object expected, final Object actual) {
            if (!Objects.equals(expected, actual)) {
                problems.add(prefix + field + " expected " + expected + " got " + actual);
            }
            return this;
        }

        /** Expects a condition. */
        public Expect that(final String what, final boolean ok) {
            if (!ok) {
                problems.add(prefix + what);
            }
            return this;
        }

        /** Records the vector in {@code tally}. */
        public void record(final Tally tally, final String kind, final String name) {
            tally.check(kind, name, problems.isEmpty(), String.join("; ", problems));
        }
    }
}
