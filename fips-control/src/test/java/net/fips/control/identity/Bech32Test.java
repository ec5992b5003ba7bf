package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Locale;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.control.crypto.Secp256k1;

/** Bech32 and NIP-19 decoding: BIP-173/350 test strings and the reference decoder's exact leniency. */
class Bech32Test {
    private static final HexFormat HEX = HexFormat.of();
    // Node "a" of the reference's test topologies (spec §9.1 V2).
    private static final String NODE_A_NPUB = "npub1sjlh2c3x9w7kjsqg2ay080n2lff2uvt325vpan33ke34rn8l5jcqawh57m";
    private static final String NODE_A_XONLY = "84bf7562262bbd6940085748f3be6afa52ae317155181ece31b66351ccffa4b0";

    private static Problem problemOf(final String s) {
        return assertThrows(IdentityFormatException.class, () -> Bech32.decode(s)).problem();
    }

    private static Problem npubProblem(final String s) {
        return assertThrows(IdentityFormatException.class, () -> Nip19.decodeNpub(s)).problem();
    }

    @Test
    void bip173ValidStringsDecodeAsBech32() throws IdentityFormatException {
        for (final String s : new String[] {"A12UEL5L", "a12uel5l",
            "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
            "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
            "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j",
            "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl"}) {
            assertEquals(Bech32.Variant.BECH32, Bech32.decode(s).variant(), s);
        }
        final Bech32.Decoded d = Bech32.decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw");
        assertEquals("abcdef", d.hrp());
        // The 32 charset values 0..31 in order, regrouped: 160 bits = 20 bytes.
        assertEquals("00443214c74254b635cf84653a56d7c675be77df", HEX.formatHex(d.data()));
        assertEquals("a", Bech32.decode("A12UEL5L").hrp(), "HRP comes back lowercased");
    }

    @Test
    void bip350ValidStringsDecodeAsBech32m() throws IdentityFormatException {
        for (final String s : new String[] {"A1LQFN3A", "a1lqfn3a",
            "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", "?1v759aa"}) {
            assertEquals(Bech32.Variant.BECH32M, Bech32.decode(s).variant(), s);
        }
    }

    @Test
    void bip173InvalidStringsAreRejected() {
        assertEquals(Problem.MALFORMED, problemOf("\u00201nwldj5"), "HRP character out of range");
        assertEquals(Problem.MALFORMED, problemOf("\u007f1axkwrx"), "HRP character out of range");
        assertEquals(Problem.MALFORMED, problemOf("\u00801eym55h"), "HRP character out of range");
        assertEquals(Problem.MALFORMED, problemOf(
                "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx"),
                "HRP too long");
        assertEquals(Problem.MALFORMED, problemOf("pzry9x0s0muk"), "no separator");
        assertEquals(Problem.MALFORMED, problemOf("1pzry9x0s0muk"), "empty HRP");
        assertEquals(Problem.MALFORMED, problemOf("x1b4n0q5v"), "invalid data character");
        assertEquals(Problem.MALFORMED, problemOf("li1dgmt3"), "data shorter than the checksum");
        assertEquals(Problem.MALFORMED, problemOf("de1lg7wt\u00ff"), "invalid data character");
        assertEquals(Problem.BAD_CHECKSUM, problemOf("A1G7SGD8"), "checksum computed over the uppercase HRP");
        assertEquals(Problem.MALFORMED, problemOf("10a06t8"), "empty HRP");
        assertEquals(Problem.MALFORMED, problemOf("1qzzfhee"), "empty HRP");
        assertEquals(Problem.MALFORMED, problemOf(""), "empty string");
    }

    @Test
    void encodeRoundTripsAndIsLowercaseBech32() throws IdentityFormatException {
        final Random rnd = new Random(173);
        for (int len = 0; len <= 80; len++) {
            final byte[] data = new byte[len];
            rnd.nextBytes(data);
            final String s = Bech32.encode("TEST", data);
            assertEquals(s.toLowerCase(Locale.ROOT), s);
            final Bech32.Decoded d = Bech32.decode(s);
            assertEquals("test", d.hrp());
            assertEquals(Bech32.Variant.BECH32, d.variant());
            assertArrayEquals(data, d.data(), "length " + len);
            assertArrayEquals(data, Bech32.decode(s.toUpperCase(Locale.ROOT)).data(), "uppercase form");
        }
        assertThrows(IllegalArgumentException.class, () -> Bech32.encode("", new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> Bech32.encode("MiXed", new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> Bech32.encode("x", new byte[700]));
    }

    @Test
    void lengthLimitIsTheCratesNotBip173s() throws IdentityFormatException {
        // bech32 0.11 decode() allows up to 1023 characters; BIP-173's 90 applies only to segwit addresses.
        final byte[] data = new byte[100];
        final String s = Bech32.encode("npub", data);
        assertTrue(s.length() > 90);
        assertArrayEquals(data, Bech32.decode(s).data());
        assertEquals(Problem.WRONG_LENGTH, npubProblem(s));
        final String tooLong = Bech32.encodeValues("x", new int[1100], Bech32.Variant.BECH32);
        assertEquals(Problem.MALFORMED, problemOf(tooLong));
    }

    @Test
    void npubDecodingFollowsTheReference() throws IdentityFormatException {
        assertEquals(NODE_A_XONLY, HEX.formatHex(Nip19.decodeNpub(NODE_A_NPUB)));
        assertEquals(NODE_A_NPUB, Nip19.encodeNpub(HEX.parseHex(NODE_A_XONLY)));
        assertEquals(63, NODE_A_NPUB.length());
        // Leniency cases the spec (§9.2) verified against bech32 0.11.1:
        assertEquals(NODE_A_XONLY, HEX.formatHex(Nip19.decodeNpub(
                "npub1sjlh2c3x9w7kjsqg2ay080n2lff2uvt325vpan33ke34rn8l5jcqgj8cme")), "Bech32m checksum");
        assertEquals(NODE_A_XONLY, HEX.formatHex(Nip19.decodeNpub(NODE_A_NPUB.toUpperCase(Locale.ROOT))),
                "all uppercase");
        assertEquals(Problem.MALFORMED, npubProblem("N" + NODE_A_NPUB.substring(1)), "mixed case");
        assertEquals(Problem.MALFORMED, npubProblem(NODE_A_NPUB.substring(0, 62) + "M"), "mixed case at the end");
    }

    @Test
    void npubRejections() {
        final String last = NODE_A_NPUB.substring(62);
        final String changed = NODE_A_NPUB.substring(0, 62) + ("q".equals(last) ? "p" : "q");
        assertEquals(Problem.BAD_CHECKSUM, npubProblem(changed), "bad checksum");
        assertEquals(Problem.BAD_CHECKSUM,
                npubProblem("npub1" + "q".repeat(58)), "the reference's own bad-checksum test string");
        final String nsec = Nip19.encodeNsec(HEX.parseHex(NODE_A_XONLY));
        final IdentityFormatException wrongHrp = assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeNpub(nsec));
        assertEquals(Problem.WRONG_PREFIX, wrongHrp.problem());
        assertTrue(wrongHrp.getMessage().contains("'nsec'"), wrongHrp.getMessage());
        assertEquals(Problem.WRONG_LENGTH, npubProblem(Bech32.encode("npub", new byte[16])), "16-byte payload");
        assertEquals(Problem.WRONG_LENGTH, npubProblem(Bech32.encode("npub", new byte[33])), "33-byte payload");
        assertEquals(Problem.WRONG_LENGTH, npubProblem(Bech32.encode("npub", new byte[31])), "31-byte payload");
        assertEquals(Problem.INVALID_KEY, npubProblem(Bech32.encode("npub", new byte[32])), "x = 0 not on curve");
        assertEquals("npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzqujme",
                Bech32.encode("npub", new byte[32]));
        final byte[] p = Secp256k1.to32(Secp256k1.P);
        assertEquals(Problem.INVALID_KEY, npubProblem(Bech32.encode("npub", p)), "x = p");
        assertEquals(Problem.MALFORMED, npubProblem(" " + NODE_A_NPUB), "no trimming");
        assertEquals(Problem.MALFORMED, npubProblem(NODE_A_NPUB + "\n"), "no trimming");
    }

    @Test
    void paddingBitsAreIgnoredLikeTheCrate() throws IdentityFormatException {
        // 52 data characters carry 260 bits: 256 of key and 4 of padding that the crate drops unchecked.
        final int[] values = Bech32.fiveBitValues(HEX.parseHex(NODE_A_XONLY));
        assertEquals(52, values.length);
        assertEquals(0, values[51] & 0x0f, "encoder pads with zeros");
        values[51] |= 0x0f;
        final String padded = Bech32.encodeValues("npub", values, Bech32.Variant.BECH32);
        assertFalse(padded.equals(NODE_A_NPUB));
        assertEquals(NODE_A_XONLY, HEX.formatHex(Nip19.decodeNpub(padded)));
    }

    @Test
    void nsecDecodingAndSecretTextRules() throws IdentityFormatException {
        final String skHex = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa";
        final String nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
        assertEquals(nsec, Nip19.encodeNsec(HEX.parseHex(skHex)));
        assertEquals(skHex, HEX.formatHex(Nip19.decodeNsec(nsec)));
        assertEquals(skHex, HEX.formatHex(Nip19.decodeNsec(nsec.toUpperCase(Locale.ROOT))));
        assertEquals(skHex, HEX.formatHex(Nip19.decodeSecret(nsec)));
        assertEquals(skHex, HEX.formatHex(Nip19.decodeSecret(skHex.toUpperCase(Locale.ROOT))));
        // decodeSecret picks bech32 only for a literal lowercase "nsec1" prefix, so NSEC1... is parsed as hex.
        final IdentityFormatException upper = assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret(nsec.toUpperCase(Locale.ROOT)));
        assertEquals(Problem.BAD_HEX, upper.problem());
        assertEquals(Problem.WRONG_PREFIX, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeNsec(Nip19.encodeNpub(HEX.parseHex(NODE_A_XONLY)))).problem());
        assertEquals(Problem.INVALID_KEY, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeNsec(Bech32.encode("nsec", new byte[32]))).problem(), "zero scalar");
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret("00112233445566778899aabbccddeeff")).problem(), "16-byte hex");
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret("zzzz")).problem());
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret(skHex.substring(1))).problem(), "odd length");
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret("")).problem(), "empty hex is zero bytes");
        assertEquals(Problem.INVALID_KEY, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")).problem(),
                "scalar n");
        // Unicode digits are not hex even though Character.digit would accept them.
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret("\u0661" + skHex.substring(1))).problem());
    }

    @Test
    void secretErrorsNeverEchoTheSecret() {
        final String nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
        final String broken = nsec.substring(0, 62) + "6";
        final IdentityFormatException e = assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret(broken));
        assertEquals(Problem.BAD_CHECKSUM, e.problem());
        assertFalse(e.getMessage().contains(broken.substring(5, 30)), e.getMessage());
        final String hex = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffg";
        final IdentityFormatException h = assertThrows(IdentityFormatException.class,
                () -> Nip19.decodeSecret(hex));
        assertFalse(h.getMessage().contains(hex.substring(0, 20)), h.getMessage());
    }
}
