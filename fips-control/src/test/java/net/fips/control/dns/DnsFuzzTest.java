package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.DIG_QUERY;
import static net.fips.control.dns.DnsTestSupport.HEX;
import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static net.fips.control.dns.DnsTestSupport.NPUB_B;
import static net.fips.control.dns.DnsTestSupport.u16;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.acl.HostAliases;
import net.fips.testing.Mutate;

/**
 * Seeded, bounded fuzzing of the codec and the responder: random bytes, and mutations (bit flips, byte
 * overwrites, pointer injection, count changes, truncation, extension) of real queries. The only failure allowed
 * is a typed drop; every reply must itself decode, keep the query's id and carry QR|AA and NOERROR or NXDOMAIN.
 */
class DnsFuzzTest {
    private static final int ITERATIONS = 20_000;
    /** A compression pointer (0xC0 | 0-1, any low byte) at the position, when one fits. */
    private static final Mutate.Edit POINTER = (b, pos, rnd) -> {
        if (pos + 1 < b.length) {
            b[pos] = (byte) (0xC0 | rnd.nextInt(2));
            b[pos + 1] = (byte) rnd.nextInt(256);
        }
        return b;
    };
    /** A small random value (0-3) in the low byte of one of the header's four section counts. */
    private static final Mutate.Edit COUNT = (b, pos, rnd) -> {
        if (b.length >= 12) {
            b[4 + 2 * rnd.nextInt(4) + 1] = (byte) rnd.nextInt(4);
        }
        return b;
    };
    /** Up to four edits: a flipped bit, a random byte, a pointer, a count, a cut, or 1-40 random bytes appended. */
    private static final Mutate.Edit[] EDITS = {
        Mutate.FLIP_BIT, Mutate.RANDOM_BYTE, POINTER, COUNT, Mutate.CUT_RANDOM, Mutate.extendRandom(40),
    };

    private final DnsResponder responder = new DnsResponder(
            FipsNameResolver.hostsThenNpub(() -> HostAliases.of(Map.of("gateway", NPUB_B))), 300, p -> { });
    private final Map<DnsResponder.Kind, Integer> kinds = new EnumMap<>(DnsResponder.Kind.class);

    /**
     * Feeds one query to the responder and checks the outcome: a typed drop with no bytes, or a reply that decodes,
     * keeps the query's id and carries QR|AA and NOERROR or NXDOMAIN. Shared with {@link DnsJazzerTest}.
     */
    void feed(final byte[] b) {
        final DnsResponder.Result r;
        try {
            r = responder.respond(b, 0, b.length);
        } catch (final RuntimeException e) {
            fail("unexpected " + e + " for " + HEX.formatHex(b), e);
            return;
        }
        kinds.merge(r.kind(), 1, Integer::sum);
        if (r.kind() == DnsResponder.Kind.DROPPED) {
            assertEquals(0, r.response().length);
            return;
        }
        final byte[] out = r.response();
        final DnsQuery reply;
        try {
            reply = DnsCodec.decode(out, 0, out.length);
        } catch (final DnsFormatException e) {
            fail("reply does not decode (" + e.problem() + ") for " + HEX.formatHex(b));
            return;
        }
        assertEquals(u16(b, 0), reply.id());
        assertEquals(DnsCodec.FLAG_QR | DnsCodec.FLAG_AA, reply.flags() & 0x8780);
        final int rcode = reply.flags() & 0xF;
        assertEquals(r.kind() == DnsResponder.Kind.NXDOMAIN ? 3 : 0, rcode);
        assertEquals(r.kind() == DnsResponder.Kind.ANSWERED ? 1 : 0, reply.answerCount());
        assertTrue(reply.questions().size() >= 1);
        if (r.kind() == DnsResponder.Kind.ANSWERED) {
            assertNotNull(r.resolved());
        }
    }

    private static byte[] mutate(final byte[] seed, final Random rnd) {
        return Mutate.edits(seed, rnd, 4, EDITS);
    }

    @Test
    void respondsOrDropsButNeverThrows() {
        final Random rnd = new Random(0xD15_5354L);
        final byte[][] seeds = {
            DIG_QUERY,
            DnsCodec.encodeQuery(1, true, "gateway.fips", DnsCodec.TYPE_AAAA, 1232),
            DnsCodec.encodeQuery(2, false, "GATEWAY.FIPS.", DnsCodec.TYPE_A, -1),
            DnsCodec.encodeQuery(3, true, NPUB_A + ".fips", 255, 512),
            DnsCodec.encodeQuery(4, true, "example.com", DnsCodec.TYPE_AAAA, 4096),
            HEX.parseHex("0009000000020000000000000767617465776179046669707300001c000107756e6b6e6f776ec014001c0001"),
        };
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] input;
            if (i % 5 == 0) {
                input = new byte[rnd.nextInt(80)];
                rnd.nextBytes(input);
                if (input.length > 12 && rnd.nextBoolean()) {
                    input[4] = 0;
                    input[5] = 1;
                    input[3] &= (byte) ~0x40;
                }
            } else {
                input = mutate(seeds[rnd.nextInt(seeds.length)], rnd);
            }
            feed(input);
        }
        for (final byte[] s : seeds) {
            feed(s);
        }
        // the corpus reaches every outcome
        for (final DnsResponder.Kind k : DnsResponder.Kind.values()) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "never saw " + k + ": " + kinds);
        }
    }

    @Test
    void everyProblemIsReachable() {
        final Random rnd = new Random(42);
        final EnumMap<DnsFormatException.Problem, Integer> seen = new EnumMap<>(DnsFormatException.Problem.class);
        final byte[] seed = DnsCodec.encodeQuery(1, true, "gateway.fips", DnsCodec.TYPE_AAAA, 1232);
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] b = mutate(seed, rnd);
            try {
                DnsCodec.decode(b, 0, b.length);
            } catch (final DnsFormatException e) {
                seen.merge(e.problem(), 1, Integer::sum);
            } catch (final RuntimeException e) {
                fail("unexpected " + e + " for " + HEX.formatHex(b), e);
            }
        }
        for (final DnsFormatException.Problem p : new DnsFormatException.Problem[] {
            DnsFormatException.Problem.TRUNCATED, DnsFormatException.Problem.RESERVED_FLAG,
            DnsFormatException.Problem.LABEL_TOO_LONG, DnsFormatException.Problem.BAD_POINTER,
            DnsFormatException.Problem.UNKNOWN_QTYPE, DnsFormatException.Problem.UNKNOWN_QCLASS}) {
            assertTrue(seen.getOrDefault(p, 0) > 0, "never saw " + p + ": " + seen);
        }
    }
}
