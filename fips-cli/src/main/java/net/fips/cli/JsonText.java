package net.fips.cli;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * JSON text to and from Jackson trees without Jackson's {@code ObjectMapper}, for fipsctl's quick path: building a
 * mapper (and the parser and generator factories behind it) is about a third of what a short fipsctl call costs on
 * a small machine. The output is byte for byte what {@code ControlJson.pretty} and {@code JsonNode.toString()}
 * print for the same tree (FipsCtlQuickTest compares them), and {@link #parse} builds the node types Jackson's
 * {@code readTree} builds (int, long or big integer by size, double for every fraction or exponent).
 *
 * <p>{@link #parse} is strict RFC 8259 on UTF-8 input: one value, optional white space around it, no comments, no
 * trailing commas, no unescaped control characters in strings, no leading zeros, no NaN; nesting is capped at
 * {@link #MAX_DEPTH}. Anything else is a {@link JsonTextException} with the offset, never another exception.
 */
final class JsonText {

    /** Deepest nesting {@link #parse} accepts (Jackson's default cap is 1000; control responses nest 4 deep). */
    static final int MAX_DEPTH = 500;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Malformed JSON text. */
    static final class JsonTextException extends Exception {
        private static final long serialVersionUID = 1L;

        JsonTextException(final String message) {
            super(message);
        }
    }

    private final char[] in;
    private int pos;

    private JsonText(final char[] in) {
        this.in = in;
    }

    /**
     * @param utf8 one JSON value as UTF-8
     * @return its tree
     * @throws JsonTextException when the bytes are not one well-formed JSON value
     */
    static JsonNode parse(final byte[] utf8) throws JsonTextException {
        final CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8));
        } catch (final CharacterCodingException e) {
            throw new JsonTextException("invalid UTF-8");
        }
        final char[] text = new char[chars.remaining()];
        chars.get(text);
        final JsonText p = new JsonText(text);
        p.skipSpace();
        final JsonNode v = p.value(0);
        p.skipSpace();
        if (p.pos != text.length) {
            throw p.error("unexpected text after the value");
        }
        return v;
    }

    private JsonTextException error(final String what) {
        return new JsonTextException(what + " at offset " + pos);
    }

    private void skipSpace() {
        while (pos < in.length) {
            final char c = in[pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private JsonNode value(final int depth) throws JsonTextException {
        if (pos >= in.length) {
            throw error("unexpected end of input");
        }
        final char c = in[pos];
        switch (c) {
            case '{':
                return object(depth + 1);
            case '[':
                return array(depth + 1);
            case '"':
                return NODES.textNode(string());
            case 't':
                literal("true");
                return NODES.booleanNode(true);
            case 'f':
                literal("false");
                return NODES.booleanNode(false);
            case 'n':
                literal("null");
                return NODES.nullNode();
            default:
                if (c == '-' || c >= '0' && c <= '9') {
                    return number();
                }
                throw error("unexpected character '" + printable(c) + "'");
        }
    }

    private ObjectNode object(final int depth) throws JsonTextException {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        pos++; // {
        final ObjectNode o = NODES.objectNode();
        skipSpace();
        if (pos < in.length && in[pos] == '}') {
            pos++;
            return o;
        }
        while (true) {
            skipSpace();
            if (pos >= in.length || in[pos] != '"') {
                throw error("expected a field name");
            }
            final String name = name();
            skipSpace();
            if (pos >= in.length || in[pos] != ':') {
                throw error("expected ':'");
            }
            pos++;
            skipSpace();
            o.set(name, value(depth)); // a repeated name keeps the last value, as readTree does
            skipSpace();
            if (pos >= in.length) {
                throw error("unexpected end of input in an object");
            }
            final char c = in[pos++];
            if (c == '}') {
                return o;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}'");
            }
        }
    }

    private ArrayNode array(final int depth) throws JsonTextException {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        pos++; // [
        final ArrayNode a = NODES.arrayNode();
        skipSpace();
        if (pos < in.length && in[pos] == ']') {
            pos++;
            return a;
        }
        while (true) {
            skipSpace();
            a.add(value(depth));
            skipSpace();
            if (pos >= in.length) {
                throw error("unexpected end of input in an array");
            }
            final char c = in[pos++];
            if (c == ']') {
                return a;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']'");
            }
        }
    }

    private void literal(final String word) throws JsonTextException {
        if (pos + word.length() > in.length) {
            throw error("unexpected end of input");
        }
        for (int i = 0; i < word.length(); i++) {
            if (in[pos + i] != word.charAt(i)) {
                throw error("invalid literal");
            }
        }
        pos += word.length();
    }

    /**
     * A field name: a string whose surrogate escapes come in pairs. Jackson's byte reader (the daemon's, and the
     * one fipsctl's reading is checked against) refuses a lone half in a name ("Unexpected low surrogate in field
     * name", "Broken surrogate pair in field name") while it keeps one in a value, so this reader does the same.
     */
    private String name() throws JsonTextException {
        final int start = pos;
        final String name = string();
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            final boolean pair = Character.isHighSurrogate(c) && i + 1 < name.length()
                    && Character.isLowSurrogate(name.charAt(i + 1));
            if (pair) {
                i++;
            } else if (Character.isSurrogate(c)) {
                pos = start;
                throw error("unpaired surrogate \\u" + Integer.toHexString(c) + " in a field name");
            }
        }
        return name;
    }

    private String string() throws JsonTextException {
        pos++; // opening quote
        final StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= in.length) {
                throw error("unterminated string");
            }
            final char c = in[pos++];
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                pos--;
                throw error("unescaped control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= in.length) {
                throw error("unterminated string");
            }
            final char e = in[pos++];
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > in.length) {
                        throw error("unterminated \\u escape");
                    }
                    int v = 0;
                    for (int i = 0; i < 4; i++) {
                        final int d = Character.digit(in[pos++], 16);
                        if (d < 0) {
                            pos--;
                            throw error("invalid \\u escape");
                        }
                        v = v << 4 | d;
                    }
                    sb.append((char) v);
                }
                default -> {
                    pos--;
                    throw error("invalid escape '\\" + printable(e) + "'");
                }
            }
        }
    }

    private JsonNode number() throws JsonTextException {
        final int start = pos;
        if (in[pos] == '-') {
            pos++;
        }
        if (pos >= in.length || !digit(in[pos])) {
            throw error("invalid number");
        }
        if (in[pos] == '0') {
            pos++;
            if (pos < in.length && digit(in[pos])) {
                throw error("leading zero in a number");
            }
        } else {
            digits();
        }
        boolean fraction = false;
        if (pos < in.length && in[pos] == '.') {
            pos++;
            if (pos >= in.length || !digit(in[pos])) {
                throw error("invalid number: no digit after '.'");
            }
            digits();
            fraction = true;
        }
        if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            if (pos >= in.length || !digit(in[pos])) {
                throw error("invalid number: no digit in the exponent");
            }
            digits();
            fraction = true;
        }
        if (pos - start > 1000) {
            throw error("number longer than 1000 characters");
        }
        final String s = new String(in, start, pos - start);
        if (fraction) {
            return NODES.numberNode(Double.parseDouble(s));
        }
        final int len = s.length() - (s.charAt(0) == '-' ? 1 : 0);
        if (len <= 9) {
            return NODES.numberNode(Integer.parseInt(s));
        }
        if (len <= 18) {
            final long v = Long.parseLong(s);
            return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
        }
        final BigInteger big = new BigInteger(s);
        if (big.bitLength() <= 31) {
            return NODES.numberNode(big.intValue());
        }
        return big.bitLength() <= 63 ? NODES.numberNode(big.longValue()) : NODES.numberNode(big);
    }

    private void digits() {
        while (pos < in.length && digit(in[pos])) {
            pos++;
        }
    }

    private static boolean digit(final char c) {
        return c >= '0' && c <= '9';
    }

    private static String printable(final char c) {
        return c < 0x20 || c > 0x7e ? String.format("\\u%04X", (int) c) : String.valueOf(c);
    }

    // ---- writing

    /**
     * @param v a tree
     * @return it pretty-printed exactly as {@code ControlJson.pretty} prints it (two-space indent, one element per
     *         line, {@code "key": value}, {@code {}} and {@code []} for empty containers), without a final newline
     */
    static String pretty(final JsonNode v) {
        final StringBuilder sb = new StringBuilder(1024);
        write(sb, v, 0, true);
        return sb.toString();
    }

    /**
     * @param v a tree
     * @return it as compact JSON, exactly as {@code JsonNode.toString()} prints it
     */
    static String compact(final JsonNode v) {
        final StringBuilder sb = new StringBuilder(256);
        write(sb, v, 0, false);
        return sb.toString();
    }

    private static void write(final StringBuilder sb, final JsonNode v, final int level, final boolean pretty) {
        if (v.isObject()) {
            if (v.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (final Map.Entry<String, JsonNode> e : v.properties()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, level + 1, pretty);
                quote(sb, e.getKey());
                sb.append(pretty ? ": " : ":");
                write(sb, e.getValue(), level + 1, pretty);
            }
            newline(sb, level, pretty);
            sb.append('}');
        } else if (v.isArray()) {
            if (v.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            for (int i = 0; i < v.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                newline(sb, level + 1, pretty);
                write(sb, v.get(i), level + 1, pretty);
            }
            newline(sb, level, pretty);
            sb.append(']');
        } else if (v.isTextual()) {
            quote(sb, v.textValue());
        } else if (v.isNumber()) {
            number(sb, v);
        } else if (v.isBoolean()) {
            sb.append(v.booleanValue());
        } else if (v.isNull() || v.isMissingNode()) {
            sb.append("null");
        } else {
            // Binary or POJO nodes never come from parse(); their text form is Jackson's.
            sb.append(v);
        }
    }

    private static void number(final StringBuilder sb, final JsonNode v) {
        if (v.isDouble() || v.isFloat()) {
            final double d = v.doubleValue();
            if (Double.isFinite(d)) {
                sb.append(v.isFloat() ? Float.toString(v.floatValue()) : Double.toString(d));
            } else {
                // Jackson quotes the non-numeric values (QUOTE_NON_NUMERIC_NUMBERS is on by default).
                sb.append('"').append(v.isFloat() ? Float.toString(v.floatValue()) : Double.toString(d)).append('"');
            }
        } else if (v.isBigDecimal()) {
            final BigDecimal d = v.decimalValue();
            sb.append(d.toString());
        } else {
            sb.append(v.numberValue());
        }
    }

    private static void newline(final StringBuilder sb, final int level, final boolean pretty) {
        if (pretty) {
            sb.append('\n');
            for (int i = 0; i < level; i++) {
                sb.append("  ");
            }
        }
    }

    /**
     * Appends {@code s} as a JSON string with Jackson's escapes: the two-letter ones, else {@code \\u00XX}; and a
     * lone surrogate (from a {@code \\uD800}-style escape, which {@link #parse} accepts as Jackson does) as
     * {@code \\uXXXX}, where Jackson writes the bare char: no UTF-8 encoder can write that (the console would print
     * {@code ?}), so the text would not say what the reply held.
     */
    static void quote(final StringBuilder sb, final String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else if (Character.isSurrogate(c) && !pairedSurrogate(s, i)) {
                        sb.append("\\u").append(HEX[c >> 12]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF])
                                .append(HEX[c & 0xF]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** @return whether the surrogate at {@code s[i]} is half of a well-formed pair */
    private static boolean pairedSurrogate(final String s, final int i) {
        final char c = s.charAt(i);
        return Character.isHighSurrogate(c) ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
                : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
