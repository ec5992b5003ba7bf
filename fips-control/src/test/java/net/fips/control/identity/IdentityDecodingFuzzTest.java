package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Schnorr;

/**
 * Seeded fuzzing of every identity decoder: random text, random bech32-looking text and mutations of valid
 * npubs, nsecs and hex keys. The only failure allowed is {@link IdentityFormatException}; anything that does
 * decode must re-encode consistently.
 */
class IdentityDecodingFuzzTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    private static final String NOISE = CHARSET + "1bioQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LBIO"
            + "0123456789abcdefABCDEF \n\u00e9\u0661";
    private static final int ITERATIONS = 4000;

    private interface Decoder {
        Object decode(String s) throws IdentityFormatException;
    }

    private final Map<IdentityFormatException.Problem, Integer> problems =
            new EnumMap<>(IdentityFormatException.Problem.class);
    private int accepted;

    void feed(final String s) {
        final Decoder[] decoders = {
            Bech32::decode, Nip19::decodeNpub, Nip19::decodeNsec, Nip19::decodeSecret, Nip19::decodePublicHex,
            PeerIdentity::parse, NodeIdentity::parse, NodeAddrs::parse,
        };
        for (final Decoder d : decoders) {
            try {
                d.decode(s);
                accepted++;
            } catch (final IdentityFormatException e) {
                problems.merge(e.problem(), 1, Integer::sum);
                assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
            } catch (final RuntimeException e) {
                fail("unexpected " + e + " for input " + escape(s), e);
            }
        }
        try {
            final byte[] key = Nip19.decodeNpub(s);
            assertArrayEquals(key, Nip19.decodeNpub(Nip19.encodeNpub(key)), "re-encoded npub decodes the same");
        } catch (final IdentityFormatException e) {
            // covered above
        }
        try {
            final byte[] sk = Nip19.decodeSecret(s);
            assertArrayEquals(sk, Nip19.decodeSecret(Nip19.encodeNsec(sk)));
        } catch (final IdentityFormatException e) {
            // covered above
        }
    }

    private static String escape(final String s) {
        final StringBuilder sb = new StringBuilder("\"");
        s.chars().forEach(c -> sb.append(c >= 32 && c < 127 ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        return sb.append('"').toString();
    }

    private static String mutate(final String s, final Random rnd) {
        final StringBuilder sb = new StringBuilder(s);
        final int edits = 1 + rnd.nextInt(3);
        for (int i = 0; i < edits; i++) {
            final int pos = sb.isEmpty() ? 0 : rnd.nextInt(sb.length());
            final char c = NOISE.charAt(rnd.nextInt(NOISE.length()));
            switch (rnd.nextInt(5)) {
                case 0 -> {
                    if (!sb.isEmpty()) {
                        sb.setCharAt(pos, c);
                    }
                }
                case 1 -> sb.insert(pos, c);
                case 2 -> {
                    if (!sb.isEmpty()) {
                        sb.deleteCharAt(pos);
                    }
                }
                case 3 -> {
                    if (!sb.isEmpty()) {
                        final char x = sb.charAt(pos);
                        sb.setCharAt(pos, Character.isUpperCase(x) ? Character.toLowerCase(x)
                                : Character.toUpperCase(x));
                    }
                }
                default -> sb.setLength(rnd.nextInt(sb.length() + 1));
            }
        }
        return sb.toString();
    }

    @Test
    void decodersOnlyFailWithIdentityFormatException() throws IdentityFormatException {
        final Random rnd = new Random(0x19_0173L);
        final NodeIdentity a = NodeIdentity.parse("c0ffee00" + "11".repeat(28));
        final String[] seeds = {
            "npub1sjlh2c3x9w7kjsqg2ay080n2lff2uvt325vpan33ke34rn8l5jcqawh57m",
            "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg",
            "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5",
            "npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzqujme",
            "84bf7562262bbd6940085748f3be6afa52ae317155181ece31b66351ccffa4b0",
            "0123456789abcdeffedcba9876543210", a.npub(), a.nsec(), HEX.formatHex(a.secretKey()),
        };
        for (int i = 0; i < ITERATIONS; i++) {
            final String input;
            switch (i % 4) {
                case 0 -> input = mutate(seeds[rnd.nextInt(seeds.length)], rnd);
                case 1 -> {
                    // Bech32-shaped noise with a valid prefix, mostly the right length.
                    final StringBuilder sb = new StringBuilder(rnd.nextBoolean() ? "npub1" : "nsec1");
                    final int len = rnd.nextInt(4) == 0 ? rnd.nextInt(120) : 58;
                    for (int k = 0; k < len; k++) {
                        sb.append(CHARSET.charAt(rnd.nextInt(32)));
                    }
                    input = sb.toString();
                }
                case 2 -> {
                    final StringBuilder sb = new StringBuilder();
                    final int len = rnd.nextInt(80);
                    for (int k = 0; k < len; k++) {
                        sb.append(NOISE.charAt(rnd.nextInt(NOISE.length())));
                    }
                    input = sb.toString();
                }
                default -> {
                    final byte[] raw = new byte[rnd.nextInt(70)];
                    rnd.nextBytes(raw);
                    input = rnd.nextBoolean() ? HEX.formatHex(raw)
                            : new String(raw, StandardCharsets.ISO_8859_1);
                }
            }
            feed(input);
        }
        // Valid bech32 of every payload length and HRP, to reach the HRP/length/key checks, not just checksums.
        for (int i = 0; i < 300; i++) {
            final byte[] payload = new byte[rnd.nextInt(40)];
            rnd.nextBytes(payload);
            feed(Bech32.encode(new String[] {"npub", "nsec", "NPUB", "x"}[i % 4], payload));
        }
        assertTrue(accepted > 0, "some inputs decode");
        for (final IdentityFormatException.Problem p : IdentityFormatException.Problem.values()) {
            assertTrue(problems.getOrDefault(p, 0) > 0, "fuzzing reached " + p + ": " + problems);
        }
    }

    @Test
    void verifyNeverThrowsOnRandomBytes() {
        final Random rnd = new Random(340_340L);
        final NodeIdentity id = NodeIdentity.generate();
        final byte[] msg = new byte[32];
        final byte[] sig = Schnorr.sign(id.secretKey(), msg, new byte[32]);
        int valid = 0;
        for (int i = 0; i < 1500; i++) {
            final byte[] pk = i % 3 == 0 ? id.publicKey() : randomBytes(rnd, 30 + rnd.nextInt(5));
            final byte[] s = i % 2 == 0 ? sig.clone() : randomBytes(rnd, 62 + rnd.nextInt(5));
            if (s.length == 64 && i % 4 == 0) {
                s[rnd.nextInt(64)] ^= (byte) (1 << rnd.nextInt(8));
            }
            if (Schnorr.verify(pk, msg, s)) {
                valid++;
            }
        }
        // Only the untouched (key, signature) pairs verify: i % 6 == 0 without a flipped bit, i.e. i % 12 == 6.
        assertEquals(1500 / 12 + (1500 % 12 > 6 ? 1 : 0), valid);
    }

    private static byte[] randomBytes(final Random rnd, final int n) {
        final byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
