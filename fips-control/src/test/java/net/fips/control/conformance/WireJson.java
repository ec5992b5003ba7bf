package net.fips.control.conformance;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/** JSON and value helpers shared by the wire-format checkers (wire_link, wire_session, bloom). */
final class WireJson {
    static final HexFormat HEX = HexFormat.of();
    private static final Pattern FIELD = Pattern.compile("(\\w+): (-?\\d+)");

    private WireJson() {
    }

    static NodeAddr addr(final JsonNode v, final String field) {
        return NodeAddr.ofHex(v.get(field).asText());
    }

    /** A JSON array of node_addr hex strings as coordinates; JSON null as empty. */
    static Coords coords(final JsonNode v, final String field) {
        final JsonNode arr = v.get(field);
        if (arr == null || arr.isNull()) {
            return Coords.EMPTY;
        }
        final List<NodeAddr> out = new ArrayList<>();
        arr.forEach(a -> out.add(NodeAddr.ofHex(a.asText())));
        return new Coords(out);
    }

    /** A u64 given as a decimal string, possibly followed by a comment like " (0x...)", or a JSON number. */
    static long u64(final JsonNode v, final String field) {
        final JsonNode n = v.get(field);
        if (n.isNumber()) {
            return n.bigIntegerValue().longValue();
        }
        return new BigInteger(n.asText().trim().split("\\s+")[0]).longValue();
    }

    /** The first field whose name starts with {@code prefix} (some vector keys carry a parenthesised note). */
    static JsonNode startingWith(final JsonNode v, final String prefix) {
        for (final var it = v.fieldNames(); it.hasNext();) {
            final String name = it.next();
            if (name.startsWith(prefix)) {
                return v.get(name);
            }
        }
        throw new IllegalArgumentException("no field starting with " + prefix);
    }

    /** Parses a Rust Debug string {@code Name { a: 1, b: -2 }} into its integer fields. */
    static Map<String, Long> rustFields(final String debug) {
        final Map<String, Long> out = new LinkedHashMap<>();
        final Matcher m = FIELD.matcher(debug);
        while (m.find()) {
            out.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return out;
    }

    /** The decoded value, or an AssertionError naming the wire error (counted as a failed vector). */
    static <T> T ok(final WireResult<T> r, final String what) {
        if (r instanceof WireResult.Ok<T>(final T v)) {
            return v;
        }
        throw new AssertionError(what + " refused: " + r.errorOrNull());
    }

    /** {@code ProtocolError} -> {@code PROTOCOL_ERROR}. */
    static String upperSnake(final String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }
}
