package net.fips.testing;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;

/** Hex text in tests: literals, renderings and the hex fields of the known-answer vectors. */
public final class Hex {
    private static final HexFormat HEX = HexFormat.of();

    private Hex() {
    }

    /**
     * @param hex hex digits, either case, no separators
     * @return the bytes they spell
     * @throws IllegalArgumentException on an odd length or a non-hex character
     */
    public static byte[] bytes(final String hex) {
        return HEX.parseHex(hex);
    }

    /** @return {@code bytes} as lower-case hex */
    public static String of(final byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    /** @return the US-ASCII bytes of {@code ascii} as lower-case hex */
    public static String ofAscii(final String ascii) {
        return of(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The bytes of a vector's hex field.
     *
     * @param vector the JSON object of one vector
     * @param field  the name of a field holding hex text
     * @return its bytes
     * @throws AssertionError naming the field when it is missing or not text (a broken vector file, not a result)
     */
    public static byte[] field(final JsonNode vector, final String field) {
        final JsonNode v = vector.get(field);
        if (v == null || !v.isTextual()) {
            throw new AssertionError("vector field '" + field + "' is " + (v == null ? "missing" : "not text: " + v));
        }
        return bytes(v.textValue());
    }
}
