package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import net.fips.testing.Hex;

/** TreeAnnounce against tree_announce.json (encodings, signing bytes, digest) plus the semantic rules. */
class TreeAnnounceTest {

    private static TreeAnnounce fromFields(final JsonNode v, final byte[] sig) {
        final List<CoordEntry> anc = new ArrayList<>();
        for (final JsonNode a : v.get("ancestry")) {
            anc.add(new CoordEntry(NodeAddr.ofHex(a.get("node_addr_hex").asText()),
                    a.get("sequence").bigIntegerValue().longValue(), a.get("timestamp").asLong()));
        }
        return new TreeAnnounce(v.get("sequence").bigIntegerValue().longValue(), v.get("timestamp").asLong(),
                NodeAddr.ofHex(v.get("parent_id_hex").asText()), anc, sig);
    }

    @Test
    void reproducesEveryVectorEncodingAndSigningBytes() {
        int n = 0;
        for (final JsonNode v : Vectors.load("tree_announce.json").get("vectors")) {
            n++;
            final byte[] det = Hex.field(v, "encoded_with_deterministic_signature_hex");
            final TreeAnnounce want = fromFields(v, Hex.field(v, "deterministic_aux_zero_signature_hex"));
            assertArrayEquals(det, want.encode(), "encoding");
            assertEquals(v.get("encoded_len").asInt(), want.encodedSize());

            final TreeAnnounce got = TreeAnnounce.decode(det, 0, det.length).valueOrNull();
            assertEquals(want, got);
            assertEquals(NodeAddr.ofHex(v.get("node_addr_hex").asText()), got.nodeAddr());
            assertArrayEquals(Hex.field(v, "signing_bytes_hex"), got.signingBytes());
            assertArrayEquals(Hex.field(v, "signed_digest_sha256_hex"), got.signingDigest());
            assertEquals(v.get("is_root").asBoolean(), got.isRoot());
            assertEquals(v.get("ancestry_depth").asInt(), got.depth());
            assertEquals(Optional.empty(), got.semanticViolation());

            // The random-aux encoding differs only in the signature, which the codec carries verbatim.
            final byte[] rnd = Hex.field(v, "encoded_with_random_aux_signature_hex");
            final TreeAnnounce r = TreeAnnounce.decode(rnd, 0, rnd.length).valueOrNull();
            assertArrayEquals(rnd, r.encode());
            assertArrayEquals(got.signingBytes(), r.signingBytes());
            assertArrayEquals(Arrays.copyOfRange(rnd, rnd.length - 64, rnd.length), r.signature());

            // A tampered signature still decodes (verification is a later step) and keeps the signing bytes.
            final byte[] bad = Hex.field(v, "tampered_last_signature_byte_encoded_hex");
            final WireResult<TreeAnnounce> t = TreeAnnounce.decode(bad, 0, bad.length);
            assertEquals(v.get("tampered_decodes_ok").asBoolean(), t.isOk());
            assertArrayEquals(got.signingBytes(), t.valueOrNull().signingBytes());
            assertFalse(Arrays.equals(got.signature(), t.valueOrNull().signature()));
        }
        assertEquals(2, n);
    }

    @Test
    void refusesMalformedEncodings() {
        final JsonNode v = Vectors.load("tree_announce.json").get("vectors").get(1);
        final byte[] enc = Hex.field(v, "encoded_with_deterministic_signature_hex");
        final byte[] badVersion = enc.clone();
        badVersion[1] = 2;
        assertEquals(WireError.BAD_VERSION, TreeAnnounce.decode(badVersion, 0, badVersion.length).errorOrNull());
        assertEquals(WireError.TRUNCATED, TreeAnnounce.decode(enc, 0, enc.length - 1).errorOrNull());
        final byte[] badType = enc.clone();
        badType[0] = 0x11;
        assertEquals(WireError.BAD_TYPE, TreeAnnounce.decode(badType, 0, badType.length).errorOrNull());
        // count 0 with room for the signature is malformed.
        final byte[] zero = Arrays.copyOf(enc, TreeAnnounce.BASE_SIZE);
        zero[34] = 0;
        zero[35] = 0;
        assertEquals(WireError.EMPTY_COORDINATES, TreeAnnounce.decode(zero, 0, zero.length).errorOrNull());
        // Trailing bytes are ignored, as in the reference.
        final byte[] longer = Arrays.copyOf(enc, enc.length + 3);
        assertArrayEquals(enc, TreeAnnounce.decode(longer, 0, longer.length).valueOrNull().encode());
    }

    @Test
    void semanticRulesMatchTheReference() {
        final NodeAddr a = NodeAddr.ofHex("0a000000000000000000000000000000");
        final NodeAddr b = NodeAddr.ofHex("0b000000000000000000000000000000");
        final NodeAddr c = NodeAddr.ofHex("0c000000000000000000000000000000");
        final byte[] sig = new byte[64];
        final CoordEntry ea = new CoordEntry(a, 1, 1);
        final CoordEntry eb = new CoordEntry(b, 1, 1);
        final CoordEntry ec = new CoordEntry(c, 1, 1);
        assertEquals(Optional.empty(), new TreeAnnounce(1, 1, a, List.of(ea), sig).semanticViolation());
        assertEquals(Optional.of(TreeAnnounce.Violation.ROOT_WITH_ANCESTORS),
                new TreeAnnounce(1, 1, c, List.of(ec, ea), sig).semanticViolation());
        assertEquals(Optional.of(TreeAnnounce.Violation.ANCESTRY_TOO_SHORT),
                new TreeAnnounce(1, 1, a, List.of(ec), sig).semanticViolation());
        assertEquals(Optional.of(TreeAnnounce.Violation.ANCESTRY_PARENT_MISMATCH),
                new TreeAnnounce(1, 1, b, List.of(ec, ea), sig).semanticViolation());
        assertEquals(Optional.of(TreeAnnounce.Violation.ROOT_NOT_MINIMUM),
                new TreeAnnounce(1, 1, a, List.of(ec, ea, eb), sig).semanticViolation());
        assertEquals(Optional.empty(), new TreeAnnounce(1, 1, b, List.of(ec, eb, ea), sig).semanticViolation());
        // Address order is unsigned byte order: 0xff.. sorts after 0x0a..
        final NodeAddr high = NodeAddr.ofHex("ff000000000000000000000000000000");
        assertTrue(high.compareTo(a) > 0);
        assertEquals(Optional.of(TreeAnnounce.Violation.ROOT_NOT_MINIMUM),
                new TreeAnnounce(1, 1, high, List.of(ea, new CoordEntry(high, 1, 1)), sig).semanticViolation());
    }
}
