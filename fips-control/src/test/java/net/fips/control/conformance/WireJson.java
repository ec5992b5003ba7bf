package net.fips.control.conformance;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.fips.control.crypto.Secp256k1;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

import org.bouncycastle.math.ec.ECPoint;

/** JSON and value helpers shared by the wire-format checkers (wire_link, wire_session, bloom). */
final class WireJson {
    static final HexFormat HEX = HexFormat.of();
    private static final Pattern FIELD = Pattern.compile("(\\w+): (-?\\d+)");

    private WireJson() {
    }

    static byte[] hex(final JsonNode v, final String field) {
        return HEX.parseHex(v.get(field).asText());
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
        return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
    }

    /** Standard BIP-340 verification of {@code sig} over the 32-byte {@code msg} by x-only key {@code px}. */
    static boolean bip340Verify(final byte[] px, final byte[] msg, final byte[] sig) {
        try {
            final ECPoint p = Secp256k1.liftX(px);
            final BigInteger r = new BigInteger(1, java.util.Arrays.copyOfRange(sig, 0, 32));
            final BigInteger s = new BigInteger(1, java.util.Arrays.copyOfRange(sig, 32, 64));
            if (p == null || r.compareTo(Secp256k1.P) >= 0 || s.compareTo(Secp256k1.N) >= 0) {
                return false;
            }
            final byte[] tag = Secp256k1.sha256("BIP0340/challenge".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            final BigInteger e = new BigInteger(1, Secp256k1.sha256(tag, tag, java.util.Arrays.copyOfRange(sig, 0, 32),
                    px, msg)).mod(Secp256k1.N);
            final ECPoint rr = Secp256k1.G.multiply(s).add(p.multiply(Secp256k1.N.subtract(e))).normalize();
            return !rr.isInfinity() && Secp256k1.hasEvenY(rr) && rr.getAffineXCoord().toBigInteger().equals(r);
        } catch (final RuntimeException e) {
            return false;
        }
    }
}
