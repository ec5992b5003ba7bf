package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.ctl.ControlJson;

/**
 * {@link JsonText} against Jackson: the same text for the same tree (pretty as {@code ControlJson.pretty}, compact
 * as {@code JsonNode.toString()}), the same tree from the same text, and a seeded fuzz of the parser in which the
 * only failure allowed is {@link JsonText.JsonTextException}.
 */
class JsonTextTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final String CHARS = "aZ09 _-\"\\/\b\f\n\r\t\u0000\u001f\u007f\u00e9\u2028\u20ac\ud83d\ude00";

    private static String randomString(final Random rnd) {
        final StringBuilder sb = new StringBuilder();
        final int n = rnd.nextInt(8);
        for (int i = 0; i < n; i++) {
            final int k = rnd.nextInt(CHARS.length());
            final char c = CHARS.charAt(k);
            if (Character.isHighSurrogate(c) && k + 1 < CHARS.length()) {
                sb.append(c).append(CHARS.charAt(k + 1));
            } else if (!Character.isLowSurrogate(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static JsonNode randomTree(final Random rnd, final int depth) {
        final int kind = depth > 4 ? rnd.nextInt(6) : rnd.nextInt(8);
        return switch (kind) {
            case 0 -> F.nullNode();
            case 1 -> F.booleanNode(rnd.nextBoolean());
            case 2 -> switch (rnd.nextInt(4)) {
                case 0 -> F.numberNode(rnd.nextInt());
                case 1 -> F.numberNode(rnd.nextLong() | 1L << 40);
                case 2 -> F.numberNode(BigInteger.valueOf(rnd.nextLong()).shiftLeft(70));
                default -> F.numberNode(rnd.nextInt(3) == 0 ? rnd.nextInt(1000) / 8.0 : rnd.nextGaussian() * 1e9);
            };
            case 3 -> F.numberNode(new double[] {0.0, -0.0, 1e-7, 12345.678, 1.0e21, 41.3, Double.MIN_VALUE}[
                    rnd.nextInt(7)]);
            case 4, 5 -> F.textNode(randomString(rnd));
            case 6 -> {
                final ObjectNode o = F.objectNode();
                final int n = rnd.nextInt(4);
                for (int i = 0; i < n; i++) {
                    o.set(randomString(rnd), randomTree(rnd, depth + 1));
                }
                yield o;
            }
            default -> {
                final ArrayNode a = F.arrayNode();
                final int n = rnd.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(randomTree(rnd, depth + 1));
                }
                yield a;
            }
        };
    }

    @Test
    void writesWhatJacksonWritesAndReadsWhatJacksonReads() throws Exception {
        final Random rnd = new Random(10);
        for (int i = 0; i < 3000; i++) {
            final JsonNode tree = randomTree(rnd, 0);
            assertEquals(ControlJson.pretty(tree), JsonText.pretty(tree));
            final String compact = JsonText.compact(tree);
            assertEquals(tree.toString(), compact);
            for (final String text : new String[] {compact, JsonText.pretty(tree)}) {
                final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                final JsonNode mine = JsonText.parse(utf8);
                final JsonNode jackson = ControlJson.MAPPER.readTree(utf8);
                assertEquals(jackson, mine, text);
                assertEquals(ControlJson.pretty(jackson), JsonText.pretty(mine), text);
            }
        }
    }

    @Test
    void parsesTheLiteralFormsJacksonDoes() throws Exception {
        for (final String text : new String[] {"0", "-0", "1e2", "-1.5E-3", "2147483647", "2147483648",
            "-9223372036854775808", "9223372036854775808", "123456789012345678901234567890",
            "1.7976931348623157e309", "[-1e999]",
            " \t\n\r[ ] ", "{\"a\":1,\"a\":2}", "\"\\u00e9\\ud83d\\ude00\\/\"", "{\"x\": [true, false, null]}"}) {
            final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            final JsonNode jackson = ControlJson.MAPPER.readTree(utf8);
            final JsonNode mine = JsonText.parse(utf8);
            assertEquals(jackson, mine, text);
            assertEquals(jackson.getNodeType(), mine.getNodeType(), text);
            assertEquals(ControlJson.pretty(jackson), JsonText.pretty(mine), text);
        }
    }

    @Test
    void rejectsWhatIsNotOneJsonValue() {
        for (final String text : new String[] {"", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "1e", "-",
            "+1", "NaN", "tru", "nul", "\"abc", "\"a\u0001\"", "\"\\x\"", "\"\\u12g4\"", "[1 2]", "{\"a\" 1}",
            "{1:2}", "1 2", "[1]]", "{}x", "'a'", "/* c */1", "[".repeat(JsonText.MAX_DEPTH + 1)}) {
            final JsonText.JsonTextException e = assertThrows(JsonText.JsonTextException.class,
                    () -> JsonText.parse(text.getBytes(StandardCharsets.UTF_8)), text);
            assertTrue(e.getMessage().contains("offset") || e.getMessage().contains("UTF-8"), e.getMessage());
        }
        assertThrows(JsonText.JsonTextException.class, () -> JsonText.parse(new byte[] {'"', (byte) 0xC3, '"'}));
        assertThrows(JsonText.JsonTextException.class, () -> JsonText.parse(new byte[] {(byte) 0xFF}));
    }

    /** Found by JsonTextJazzerTest: a lone surrogate was written bare, which UTF-8 turns into '?'. */
    @Test
    void loneSurrogatesAreWrittenEscapedSoTheTextSaysWhatTheReplyHeld() throws Exception {
        final byte[] reply = "[\"a\\ude00b\",\"\\ud83d\",\"\\ud83d\\ude00\"]".getBytes(StandardCharsets.UTF_8);
        final JsonNode tree = JsonText.parse(reply);
        assertEquals("a\ude00b", tree.get(0).asText());
        assertEquals("[\"a\\uDE00b\",\"\\uD83D\",\"\ud83d\ude00\"]", JsonText.compact(tree),
                "lone halves escaped, a pair written as the character");
        assertEquals(tree, JsonText.parse(JsonText.compact(tree).getBytes(StandardCharsets.UTF_8)));
        assertTrue(check(reply));
    }

    /**
     * Found by JsonTextJazzerTest (2026-12-06): a lone surrogate escape in a field name was accepted, where
     * Jackson's byte reader refuses it (it keeps one in a value, and so do we).
     */
    @Test
    void loneSurrogatesInFieldNamesAreRefusedAsJacksonRefusesThem() throws Exception {
        for (final String name : List.of("a\\ude00", "\\ude00", "a\\ud83d", "a\\ud83dx", "a\\ud83d\\ud83d",
                "rt3d\\ude00d83d\\ude0d\\r")) {
            final byte[] in = ("{\"" + name + "\":1}").getBytes(StandardCharsets.UTF_8);
            final JsonText.JsonTextException e = assertThrows(JsonText.JsonTextException.class,
                    () -> JsonText.parse(in), name);
            assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
            assertThrows(IOException.class, () -> ControlJson.MAPPER.readTree(in), name);
            assertFalse(check(in));
        }
        final byte[] pair = "{\"a\\ud83d\\ude00\":\"b\\ude00\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(ControlJson.MAPPER.readTree(pair), JsonText.parse(pair), "a pair in a name, a half in a value");
        assertTrue(check(pair));
    }

    @Test
    void fuzzedInputIsATreeOrAJsonTextException() throws Exception {
        final Random rnd = new Random(0x50f7);
        final String noise = "{}[]:,\"\\ -+.0123456789eEtrufalsn\u00e9\n\u0001";
        int accepted = 0;
        for (int i = 0; i < 20000; i++) {
            final byte[] input;
            if (rnd.nextInt(4) == 0) {
                input = new byte[rnd.nextInt(40)];
                rnd.nextBytes(input);
            } else {
                final StringBuilder sb = new StringBuilder(JsonText.compact(randomTree(rnd, 0)));
                final int edits = 1 + rnd.nextInt(3);
                for (int k = 0; k < edits; k++) {
                    final int at = sb.isEmpty() ? 0 : rnd.nextInt(sb.length());
                    switch (rnd.nextInt(3)) {
                        case 0 -> sb.insert(at, noise.charAt(rnd.nextInt(noise.length())));
                        case 1 -> {
                            if (!sb.isEmpty()) {
                                sb.deleteCharAt(at);
                            }
                        }
                        default -> sb.setLength(at);
                    }
                }
                input = sb.toString().getBytes(StandardCharsets.UTF_8);
            }
            if (check(input)) {
                accepted++;
            }
        }
        assertTrue(accepted > 100, "the mutations leave some valid documents: " + accepted);
    }

    /**
     * The parser's contract for one input (shared with {@link JsonTextJazzerTest}): a tree that Jackson reads the
     * same, whose compact text is a fixed point, or a {@link JsonText.JsonTextException} with a message; nothing else.
     *
     * @return whether the input was accepted
     */
    static boolean check(final byte[] input) throws Exception {
        try {
            final JsonNode tree = JsonText.parse(input);
            // Whatever it accepts, Jackson reads as the same tree, and its text is a fixed point (not the
            // same tree: an overflowing number comes back as the string "Infinity", as with Jackson).
            assertEquals(ControlJson.MAPPER.readTree(input), tree);
            final String text = JsonText.compact(tree);
            assertEquals(text, JsonText.compact(JsonText.parse(text.getBytes(StandardCharsets.UTF_8))));
            return true;
        } catch (final JsonText.JsonTextException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
            return false;
        } catch (final RuntimeException | StackOverflowError e) {
            fail("unexpected " + e + " for " + new String(input, StandardCharsets.UTF_8), e);
            return false;
        }
    }
}
