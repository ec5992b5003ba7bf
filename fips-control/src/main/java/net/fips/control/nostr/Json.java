package net.fips.control.nostr;

import java.util.List;

/**
 * A compact JSON writer with serde_json's string escapes, which are also NIP-01's: {@code \" \\ \n \r \t \b \f},
 * other control characters as a backslash, {@code u00} and two lowercase hex digits, everything else (non-ASCII
 * and {@code /} included) verbatim. The event id is a hash of this text (discovery-gateway.md §1.3), so the
 * escapes are not a matter of taste.
 */
final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder out;
    private boolean first = true;

    private Json(final StringBuilder out) {
        this.out = out;
    }

    /** @return a writer for one JSON object, its opening brace written */
    static Json object() {
        final Json j = new Json(new StringBuilder(256));
        j.out.append('{');
        return j;
    }

    private StringBuilder key(final String name) {
        if (!first) {
            out.append(',');
        }
        first = false;
        quote(out, name);
        return out.append(':');
    }

    /** Writes a string member, or {@code null} for a null value. */
    Json str(final String name, final String value) {
        final StringBuilder sb = key(name);
        if (value == null) {
            sb.append("null");
        } else {
            quote(sb, value);
        }
        return this;
    }

    /** Writes an integer member. */
    Json num(final String name, final long value) {
        key(name).append(value);
        return this;
    }

    /** Writes an unsigned 64-bit integer member. */
    Json unsigned(final String name, final long value) {
        key(name).append(Long.toUnsignedString(value));
        return this;
    }

    /** Writes a boolean member. */
    Json bool(final String name, final boolean value) {
        key(name).append(value);
        return this;
    }

    /** Writes a member whose value is already JSON text ({@code null} when {@code json} is null). */
    Json raw(final String name, final String json) {
        key(name).append(json == null ? "null" : json);
        return this;
    }

    /** Writes an array of strings. */
    Json strings(final String name, final List<String> values) {
        final StringBuilder sb = key(name);
        stringArray(sb, values);
        return this;
    }

    /** @return the object's text, closing brace written */
    String close() {
        return out.append('}').toString();
    }

    /** Appends {@code values} as a JSON array of strings. */
    static void stringArray(final StringBuilder sb, final List<String> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, values.get(i));
        }
        sb.append(']');
    }

    /** Appends {@code s} as a JSON string literal with serde_json's (NIP-01's) escapes. */
    static void quote(final StringBuilder sb, final String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
