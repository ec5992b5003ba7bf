package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import java.nio.file.InvalidPathException;

import org.junit.jupiter.api.Test;

import net.fips.testing.Mutate;

/**
 * Seeded, bounded fuzzing of the control-port decoders: random and mutated reply bytes in random fragments into
 * {@link ControlReplyParser} (only replies or PROTOCOL errors, codes 0-999, nothing thrown otherwise), the
 * bootstrap-phase value parser and the {@code control_auth} parser.
 */
class ControlFuzzTest {
    private static final int ITERATIONS = 20_000;
    /** Up to four edits: a flipped bit, a random byte, a cut, 1-8 bytes of control-port syntax appended, or none. */
    private static final Mutate.Edit[] EDITS = {
        Mutate.FLIP_BIT, Mutate.RANDOM_BYTE, Mutate.CUT_AT, Mutate.extend(8, r -> "\r\n.+- 250".charAt(r.nextInt(9))),
        Mutate.KEEP,
    };
    static final String[] SEEDS = {
        "250 OK\r\n",
        "250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=0 TAG=starting SUMMARY=\"Starting\"\r\n250 OK\r\n",
        "250+config-text=\r\nControlPort 1\r\n..x\r\n.\r\n250 OK\r\n",
        "515 Authentication failed: Password did not match HashedControlPassword value from configuration\r\n",
        "552 Unrecognized key \"nosuch\"\r\n",
    };

    @Test
    void replyParserSurvivesAnyBytes() {
        final Random rnd = new Random(0xC0471);
        int replies = 0;
        int errors = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] b;
            if (rnd.nextInt(4) == 0) {
                b = new byte[rnd.nextInt(200)];
                final byte[] alphabet = "0123456789 -+.\r\n=abcPROGRESS".getBytes(StandardCharsets.US_ASCII);
                for (int j = 0; j < b.length; j++) {
                    b[j] = rnd.nextInt(8) == 0 ? (byte) rnd.nextInt(256) : alphabet[rnd.nextInt(alphabet.length)];
                }
            } else {
                b = mutate(SEEDS[rnd.nextInt(SEEDS.length)].getBytes(StandardCharsets.UTF_8), rnd);
            }
            final int n = feed(b, rnd);
            if (n < 0) {
                errors++;
            } else {
                replies += n;
            }
        }
        assertTrue(replies > 100 && errors > 100, replies + " replies, " + errors + " errors");
    }

    /**
     * Offers {@code b} to a fresh parser in random fragments of 1-16 bytes and checks each reply (code 0-999, a
     * message, every line's content, the bootstrap-phase lookup): the number of replies, or -1 when the parser
     * refused the bytes with a PROTOCOL {@link TorControlException}; anything else fails. Shared with
     * {@link ControlJazzerTest}.
     */
    static int feed(final byte[] b, final Random rnd) {
        final ControlReplyParser p = new ControlReplyParser();
        int replies = 0;
        int pos = 0;
        try {
            while (pos < b.length) {
                final ByteBuffer in = ByteBuffer.wrap(b, pos, Math.min(b.length - pos, 1 + rnd.nextInt(16)));
                final ControlReply r = p.offer(in);
                pos = in.position();
                if (r != null) {
                    replies++;
                    assertTrue(r.code() >= 0 && r.code() <= 999);
                    assertNotNull(r.message());
                    r.lines().forEach(l -> assertNotNull(l.content()));
                    r.value("status/bootstrap-phase");
                }
            }
        } catch (final TorControlException e) {
            assertEquals(TorControlException.Kind.PROTOCOL, e.kind());
            return -1;
        } catch (final RuntimeException e) {
            fail("unexpected " + e + " for " + HexFormat.of().formatHex(b), e);
        }
        return replies;
    }

    @Test
    void bootstrapProgressAndAuthFormsNeverThrowUnexpectedly() {
        final Random rnd = new Random(0xB007);
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] b = mutate("NOTICE BOOTSTRAP PROGRESS=85 TAG=ap_conn".getBytes(StandardCharsets.UTF_8), rnd);
            final Integer p = TorControlClient.bootstrapProgress(new String(b, StandardCharsets.UTF_8));
            assertTrue(p == null || (p >= 0 && p <= 100), String.valueOf(p));
            final String auth = new String(mutate("password:x\"\\y".getBytes(StandardCharsets.UTF_8), rnd),
                    StandardCharsets.UTF_8);
            try {
                final ControlAuth a = ControlAuth.parse(auth, "/nonexistent/cookie");
                if (a instanceof ControlAuth.Password pw) {
                    final String cmd = pw.command();
                    assertTrue(cmd.startsWith("AUTHENTICATE \"") && cmd.endsWith("\"\r\n"), cmd);
                }
            } catch (final InvalidPathException expected) {
                // cookie:<path with NUL>: the config layer reports it
            } catch (final IllegalArgumentException expected) {
                assertTrue(expected.getMessage().startsWith("expected cookie"));
            }
        }
    }

    private static byte[] mutate(final byte[] seed, final Random rnd) {
        return Mutate.edits(seed, rnd, 4, EDITS);
    }
}
