package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.testing.Mutate;

/**
 * Seeded, bounded fuzzing of the two decoders of this package: the SOCKS5 client fed random and mutated proxy
 * replies in random fragments, and the address parser fed random and mutated address text. The only outcomes
 * allowed are the typed ones; nothing may throw, and the client never consumes a byte past the proxy's reply.
 */
class Socks5FuzzTest {
    private static final int ITERATIONS = 20_000;
    /** Up to four edits: a flipped bit, a random byte, a cut, 1-8 random bytes appended, or none. */
    private static final Mutate.Edit[] EDITS = {
        Mutate.FLIP_BIT, Mutate.RANDOM_BYTE, Mutate.CUT_AT, Mutate.extendRandom(8), Mutate.KEEP,
    };
    private static final HexFormat HEX = HexFormat.of();
    static final byte[][] REPLY_SEEDS = {
        HEX.parseHex("0502" + "0100" + "05000001 7f000001 1f90".replace(" ", "")),
        HEX.parseHex("0500" + "05000004 00000000000000000000000000000001 0050".replace(" ", "")),
        HEX.parseHex("0502" + "0100" + "05000003 09 626f756e642e6e6574 1234".replace(" ", "")),
        HEX.parseHex("0502" + "0101"),
        HEX.parseHex("05ff"),
        HEX.parseHex("0500" + "05050001 00000000 0000".replace(" ", "")),
    };
    private static final String[] ADDRESS_SEEDS = {
        TorAddressTest.ONION + ":443", "192.0.2.7:8443", "[2001:db8::1]:443", "peer.example.com:8443",
        "[fe80::1%2]:80", "a.onion:b.onion:1", "01.2.3.4:80", ":1", "x:", "[]:1",
    };

    @Test
    void socks5ClientSurvivesAnyProxyBytes() throws Exception {
        final Random rnd = new Random(0x50C55);
        final Map<Socks5Handshake.Status, Integer> ends = new EnumMap<>(Socks5Handshake.Status.class);
        final TorAddress[] targets = {TorAddress.parse(TorAddressTest.ONION + ":443"),
            TorAddress.parse("192.0.2.7:8443"), TorAddress.parse("[2001:db8::1]:443")};
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] b;
            if (rnd.nextInt(4) == 0) {
                b = new byte[rnd.nextInt(300)];
                rnd.nextBytes(b);
            } else {
                b = Mutate.edits(REPLY_SEEDS[rnd.nextInt(REPLY_SEEDS.length)], rnd, 4, EDITS);
            }
            final TorAddress t = targets[rnd.nextInt(targets.length)];
            final Socks5Handshake hs = rnd.nextBoolean() ? Socks5Handshake.tor(t) : Socks5Handshake.noAuth(t);
            ends.merge(feed(hs, b, rnd), 1, Integer::sum);
        }
        assertTrue(ends.getOrDefault(Socks5Handshake.Status.CONNECTED, 0) > 0, ends.toString());
        assertTrue(ends.getOrDefault(Socks5Handshake.Status.FAILED, 0) > 0, ends.toString());
        assertTrue(ends.getOrDefault(Socks5Handshake.Status.NEED_MORE, 0) > 0, ends.toString());
    }

    /**
     * Runs a handshake against the proxy bytes {@code b}, delivered in random fragments of 1-8 bytes, and checks the
     * end: no exception, an incomplete message consumed whole, a FAILED end with its reason, a CONNECTED end with a
     * valid port. Shared with {@link Socks5JazzerTest}.
     */
    static Socks5Handshake.Status feed(final Socks5Handshake hs, final byte[] b, final Random rnd) {
        final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
        Socks5Handshake.Status st;
        try {
            st = hs.start(out);
            int pos = 0;
            while (true) {
                out.clear();
                if (st == Socks5Handshake.Status.CONNECTED || st == Socks5Handshake.Status.FAILED) {
                    break;
                }
                if (st == Socks5Handshake.Status.NEED_MORE && pos >= b.length) {
                    break;
                }
                final int n = Math.min(b.length - pos, 1 + rnd.nextInt(8));
                final ByteBuffer in = ByteBuffer.wrap(b, pos, n);
                st = hs.onReceive(in, out);
                if (st == Socks5Handshake.Status.NEED_MORE) {
                    assertEquals(0, in.remaining(), "an incomplete message leaves nothing unconsumed");
                }
                pos = in.position();
            }
        } catch (final RuntimeException e) {
            fail("unexpected " + e + " for " + HEX.formatHex(b), e);
            return null;
        }
        if (st == Socks5Handshake.Status.FAILED) {
            assertNotNull(hs.failure());
            assertNotNull(hs.detail());
        } else if (st == Socks5Handshake.Status.CONNECTED) {
            assertTrue(hs.boundPort() >= 0 && hs.boundPort() <= 0xFFFF);
        }
        return st;
    }

    @Test
    void addressParserSurvivesAnyText() {
        final Random rnd = new Random(0x70A);
        int ok = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            final byte[] b;
            if (rnd.nextInt(4) == 0) {
                b = new byte[rnd.nextInt(80)];
                final String alphabet = ":.[]%0123456789abfonix-\u00ff";
                for (int j = 0; j < b.length; j++) {
                    b[j] = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
                }
            } else {
                b = Mutate.edits(ADDRESS_SEEDS[rnd.nextInt(ADDRESS_SEEDS.length)].getBytes(StandardCharsets.UTF_8), rnd,
                        4, EDITS);
            }
            final TorAddress a;
            try {
                a = TorAddress.parse(b);
            } catch (final TorAddressException e) {
                assertNotNull(e.problem());
                assertNotNull(e.getMessage());
                continue;
            } catch (final RuntimeException e) {
                fail("unexpected " + e + " for " + HEX.formatHex(b), e);
                return;
            }
            ok++;
            assertTrue(a.port() >= 1 && a.port() <= 0xFFFF);
            assertTrue(!a.host().isEmpty());
            assertEquals(a.kind() == TorAddress.Kind.IP, a.ip() != null);
            if (a.kind() == TorAddress.Kind.ONION) {
                assertTrue(a.text().contains(".onion:"));
            }
            if (a.kind() == TorAddress.Kind.HOSTNAME) {
                assertTrue(a.host().contains("."));
            }
            if (a.isDomain()) {
                assertTrue(a.host().getBytes(StandardCharsets.UTF_8).length <= TorAddress.MAX_DOMAIN_BYTES);
            }
            // Whatever parses can be dialled: the CONNECT request is built without error.
            if (a.text().getBytes(StandardCharsets.UTF_8).length <= 255) {
                final Socks5Handshake hs = Socks5Handshake.tor(a);
                final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
                hs.start(out);
                out.clear();
                assertEquals(Socks5Handshake.Status.WRITE, hs.onReceive(ByteBuffer.wrap(new byte[] {5, 0}), out));
            }
        }
        assertTrue(ok > 100, "some mutations stay valid: " + ok);
    }
}
