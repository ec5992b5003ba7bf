package net.fips.control.conformance;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Counts checked and failed vectors per kind, and keeps the reason for each failure. */
public final class Tally {
    private static final HexFormat HEX = HexFormat.of();

    private final String file;
    private final Map<String, int[]> perKind = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    Tally(final String file) {
        this.file = file;
    }

    /** Records one vector of {@code kind}: passed when {@code ok}, else failed with {@code why}. */
    public void check(final String kind, final String name, final boolean ok, final String why) {
        final int[] c = perKind.computeIfAbsent(kind, k -> new int[2]);
        c[0]++;
        if (!ok) {
            c[1]++;
            failures.add(file + " " + kind + " " + name + ": " + why);
        }
    }

    /** Records a vector that threw instead of producing a result. */
    public void error(final String kind, final String name, final Throwable t) {
        check(kind, name, false, t.toString());
    }

    /**
     * Compares byte arrays for one vector; on a mismatch the failure names the field and shows both values.
     * All fields of one vector should be combined with {@link Expect} so a vector counts once.
     */
    public static String diff(final String field, final byte[] expected, final byte[] actual) {
        if (java.util.Arrays.equals(expected, actual)) {
            return null;
        }
        return field + " expected " + (expected == null ? "null" : HEX.formatHex(expected)) + " got "
                + (actual == null ? "null" : HEX.formatHex(actual));
    }

    Map<String, int[]> perKind() {
        return perKind;
    }

    List<String> failures() {
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
            if (!java.util.Objects.equals(expected, actual)) {
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
