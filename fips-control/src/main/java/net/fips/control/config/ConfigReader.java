package net.fips.control.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Date;

/**
 * Reads one mapping of a config tree with its dotted path, recording every key it is asked about. Whatever the
 * code never asks about is, by construction, not in the schema: {@link #finish()} reports those keys as unknown,
 * with a did-you-mean hint. Typed getters return the given default (and record an error) when a value has the
 * wrong type or range, so one pass collects every problem.
 */
final class ConfigReader {
    /** Collects errors and warnings for one load. */
    static final class Problems {
        final List<String> errors = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

        void error(final String path, final String message) {
            errors.add(label(path) + ": " + message);
        }

        void warn(final String path, final String message) {
            warnings.add(label(path) + ": " + message);
        }

        private static String label(final String path) {
            return path.isEmpty() ? "(top level)" : path;
        }
    }

    private final Problems problems;
    private final String path;
    private final String schemaPath;
    private final Map<String, Object> map;
    private final Set<String> known = new LinkedHashSet<>();

    private ConfigReader(final Problems problems, final String path, final String schemaPath,
                         final Map<String, Object> map) {
        this.problems = problems;
        this.path = path;
        this.schemaPath = schemaPath;
        this.map = map;
    }

    /**
     * @param problems where problems go
     * @param path     dotted path of this mapping ("" for the top level)
     * @param value    the raw value: a map, or null for "absent" (every key then takes its default)
     * @return a reader; when the value is not a mapping an error is recorded and the reader is empty
     */
    static ConfigReader of(final Problems problems, final String path, final Object value) {
        return of(problems, path, path.replaceAll("\\[\\d+]", "[]"), value);
    }

    /**
     * As {@link #of(Problems, String, Object)} with an explicit schema path (see {@link ReferenceKeys}), for a
     * named transport instance whose path carries its name.
     */
    static ConfigReader of(final Problems problems, final String path, final String schemaPath, final Object value) {
        if (value == null) {
            return new ConfigReader(problems, path, schemaPath, Map.of());
        }
        if (!(value instanceof Map<?, ?> raw)) {
            problems.error(path, "expected a mapping, got " + describe(value));
            return new ConfigReader(problems, path, schemaPath, Map.of());
        }
        final Map<String, Object> map = new LinkedHashMap<>();
        for (final Map.Entry<?, ?> e : raw.entrySet()) {
            if (e.getKey() instanceof String k) {
                map.put(k, e.getValue());
            } else {
                problems.error(path, "keys must be strings, got " + describe(e.getKey()));
            }
        }
        return new ConfigReader(problems, path, schemaPath, map);
    }

    Problems problems() {
        return problems;
    }

    String path() {
        return path;
    }

    /** @return the schema path of a key of this mapping (instance names folded, list indices as []) */
    String schemaPathOf(final String key) {
        return schemaPath.isEmpty() ? key : schemaPath + "." + key;
    }

    /** @return the dotted path of a key of this mapping */
    String pathOf(final String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** @return true when the key is present with a non-null value (and marks it known) */
    boolean has(final String key) {
        known.add(key);
        return map.get(key) != null;
    }

    /** @return the raw value (null when absent), marking the key known */
    Object raw(final String key) {
        known.add(key);
        return map.get(key);
    }

    /** @return the keys actually present */
    Set<String> presentKeys() {
        return map.keySet();
    }

    /** @return a reader of a nested mapping (empty when absent) */
    ConfigReader child(final String key) {
        return of(problems, pathOf(key), schemaPathOf(key), raw(key));
    }

    boolean bool(final String key, final boolean def) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        problems.error(pathOf(key), "expected true or false, got " + describe(v));
        return def;
    }

    /** Unsigned integer in [min, max]. */
    long integer(final String key, final long def, final long min, final long max) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        return integerValue(pathOf(key), v, def, min, max);
    }

    long integerValue(final String at, final Object v, final long def, final long min, final long max) {
        if (!(v instanceof Integer || v instanceof Long || v instanceof BigInteger)) {
            problems.error(at, "expected an integer in [" + min + ", " + max + "], got " + describe(v));
            return def;
        }
        final BigInteger big = v instanceof BigInteger b ? b : BigInteger.valueOf(((Number) v).longValue());
        if (big.compareTo(BigInteger.valueOf(min)) < 0 || big.compareTo(BigInteger.valueOf(max)) > 0) {
            problems.error(at, "expected an integer in [" + min + ", " + max + "], got " + big);
            return def;
        }
        return big.longValue();
    }

    long u64(final String key, final long def) {
        return integer(key, def, 0, Long.MAX_VALUE);
    }

    int u32(final String key, final int def) {
        // u32 values beyond Integer.MAX_VALUE are no use for any key of this schema; keep them in int range.
        return (int) integer(key, def, 0, Integer.MAX_VALUE);
    }

    /** usize is held as int: every usize key is a count or a buffer size that Java indexes with int. */
    int usize(final String key, final int def) {
        return (int) integer(key, def, 0, Integer.MAX_VALUE);
    }

    int u16(final String key, final int def) {
        return (int) integer(key, def, 0, 0xFFFF);
    }

    int u8(final String key, final int def) {
        return (int) integer(key, def, 0, 0xFF);
    }

    /** f64 in [min, max]; integers are accepted, as serde_yaml accepts them for floats. */
    double f64(final String key, final double def, final double min, final double max) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        final double d;
        if (v instanceof Double x) {
            d = x;
        } else if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
            d = ((Number) v).doubleValue();
        } else {
            problems.error(pathOf(key), "expected a number in [" + min + ", " + max + "], got " + describe(v));
            return def;
        }
        if (Double.isNaN(d) || d < min || d > max) {
            problems.error(pathOf(key), "expected a number in [" + min + ", " + max + "], got " + d);
            return def;
        }
        return d;
    }

    String string(final String key, final String def) {
        return optString(key).orElse(def);
    }

    Optional<String> optString(final String key) {
        final Object v = raw(key);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof String s) {
            return Optional.of(s);
        }
        problems.error(pathOf(key), "expected a string, got " + describe(v));
        return Optional.empty();
    }

    /** A required string: a missing one is an error. */
    Optional<String> requiredString(final String key) {
        if (!has(key)) {
            problems.error(pathOf(key), "required key is missing");
            return Optional.empty();
        }
        return optString(key);
    }

    List<String> stringList(final String key, final List<String> def) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        if (!(v instanceof List<?> list)) {
            problems.error(pathOf(key), "expected a list of strings, got " + describe(v));
            return def;
        }
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) instanceof String s) {
                out.add(s);
            } else {
                problems.error(pathOf(key) + "[" + i + "]", "expected a string, got " + describe(list.get(i)));
            }
        }
        return List.copyOf(out);
    }

    List<Long> u64List(final String key, final List<Long> def) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        if (!(v instanceof List<?> list)) {
            problems.error(pathOf(key), "expected a list of integers, got " + describe(v));
            return def;
        }
        final List<Long> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            final Object item = list.get(i);
            final String at = pathOf(key) + "[" + i + "]";
            out.add(item == null ? 0L : integerValue(at, item, 0, 0, Long.MAX_VALUE));
            if (item == null) {
                problems.error(at, "expected an integer, got null");
            }
        }
        return List.copyOf(out);
    }

    /** A snake_case enum value. */
    <E extends Enum<E>> E enumValue(final String key, final Class<E> type, final E def) {
        final Object v = raw(key);
        if (v == null) {
            return def;
        }
        final List<String> names = new ArrayList<>();
        for (final E c : type.getEnumConstants()) {
            final String name = c.name().toLowerCase(Locale.ROOT);
            names.add(name);
            if (name.equals(v)) {
                return c;
            }
        }
        problems.error(pathOf(key), "expected one of " + String.join(", ", names) + ", got " + describe(v));
        return def;
    }

    /** Records a warning at a key of this mapping. */
    void warn(final String key, final String message) {
        problems.warn(pathOf(key), message);
    }

    /** Records an error at a key of this mapping. */
    void error(final String key, final String message) {
        problems.error(pathOf(key), message);
    }

    /**
     * Reports every present key that was never asked about (an error), and warns once for each present key the
     * reference knows but this node does not implement ({@link ReferenceKeys}); a mapping value is left to the
     * reader of that mapping, so each leaf key warns once.
     */
    void finish() {
        for (final Map.Entry<String, Object> e : map.entrySet()) {
            final String key = e.getKey();
            if (known.contains(key) && e.getValue() != null && !(e.getValue() instanceof Map<?, ?>)) {
                final ReferenceKeys.Line line = ReferenceKeys.unimplemented(schemaPathOf(key));
                if (line != null) {
                    problems.warn(pathOf(key), ReferenceKeys.warning(line));
                }
            }
            if (!known.contains(key)) {
                final String hint = suggest(key, known);
                problems.error(pathOf(key), "unknown key" + (hint == null ? "" : " (did you mean " + hint + "?)"));
            }
        }
    }

    /** @return the closest known key when it is plausibly a typo, else null */
    static String suggest(final String key, final Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        final String lower = key.toLowerCase(Locale.ROOT);
        for (final String c : candidates) {
            // A truncated or extended key ("prio", "heartbeat_interval") is a typo of the longer name.
            if (lower.length() >= 4 && (c.startsWith(lower) || lower.startsWith(c) && c.length() >= 4)) {
                return c;
            }
        }
        for (final String c : candidates) {
            final int d = distance(key.toLowerCase(Locale.ROOT), c);
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        // Two fifths of the length (at least 2) separates typos from different words in this schema.
        return best != null && bestDistance <= Math.max(2, key.length() * 2 / 5) ? best : null;
    }

    private static int distance(final String a, final String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            final int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** @return a short description of a raw value's type and value, for error messages */
    static String describe(final Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof String s) {
            final String shown = s.length() > 40 ? s.substring(0, 40) + "..." : s;
            return "string \"" + shown + "\"";
        }
        if (v instanceof Boolean b) {
            return "boolean " + b;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
            return "integer " + v;
        }
        if (v instanceof Double d) {
            return "number " + d;
        }
        if (v instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (v instanceof List<?>) {
            return "a list";
        }
        if (v instanceof Date) {
            return "a timestamp";
        }
        if (v instanceof byte[]) {
            return "binary data";
        }
        if (v instanceof Set<?>) {
            return "a set";
        }
        return "a value of an unsupported YAML type";
    }
}
