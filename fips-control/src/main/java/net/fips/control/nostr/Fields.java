package net.fips.control.nostr;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads payload members the way the reference's serde structs do (discovery-gateway.md §1.4): unknown members are
 * ignored, required members must be present with the right JSON type, optional ones may be absent or null.
 */
final class Fields {
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);

    private Fields() {
    }

    static JsonNode object(final String json, final String what) throws NostrFormatException {
        final JsonNode n = NostrEvent.readTree(json);
        if (!n.isObject()) {
            throw malformed(what + " must be a JSON object");
        }
        return n;
    }

    static JsonNode required(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = n.get(name);
        if (v == null) {
            throw malformed("missing " + name);
        }
        return v;
    }

    static String str(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = required(n, name);
        if (!v.isTextual()) {
            throw malformed(name + " must be a string");
        }
        return v.textValue();
    }

    static String optStr(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw malformed(name + " must be a string or null");
        }
        return v.textValue();
    }

    static boolean bool(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = required(n, name);
        if (!v.isBoolean()) {
            throw malformed(name + " must be a boolean");
        }
        return v.booleanValue();
    }

    /** @return a u64 as a Java long (values above 2^63 negative, compare unsigned) */
    static long u64(final JsonNode n, final String name) throws NostrFormatException {
        return u64Value(required(n, name), name);
    }

    /** @return a u64, or null when absent or null */
    static Long optU64(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = n.get(name);
        return v == null || v.isNull() ? null : u64Value(v, name);
    }

    private static long u64Value(final JsonNode v, final String name) throws NostrFormatException {
        if (!v.isIntegralNumber() || v.bigIntegerValue().signum() < 0
                || v.bigIntegerValue().compareTo(U64_LIMIT) >= 0) {
            throw malformed(name + " must be an unsigned 64-bit integer");
        }
        return v.bigIntegerValue().longValue();
    }

    static long unsigned(final JsonNode n, final String name, final long max) throws NostrFormatException {
        final long v = u64(n, name);
        if (v < 0 || v > max) {
            throw malformed(name + " must be an integer 0.." + max);
        }
        return v;
    }

    static List<String> strings(final JsonNode v, final String name) throws NostrFormatException {
        if (!v.isArray()) {
            throw malformed(name + " must be an array of strings");
        }
        final List<String> out = new ArrayList<>(v.size());
        for (final JsonNode e : v) {
            if (!e.isTextual()) {
                throw malformed(name + " must be an array of strings");
            }
            out.add(e.textValue());
        }
        return out;
    }

    static List<String> optStrings(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = n.get(name);
        return v == null || v.isNull() ? null : strings(v, name);
    }

    static NostrFormatException malformed(final String message) {
        return new NostrFormatException(NostrFormatException.Problem.MALFORMED_JSON, message);
    }
}
