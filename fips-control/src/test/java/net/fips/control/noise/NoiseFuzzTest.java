package net.fips.control.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.HandshakeState.Progress;
import net.fips.control.noise.NoiseTestKeys.Pair;
import net.fips.control.identity.TestIdentities;

/**
 * Seeded fuzzing of every message reader and of transport decryption: random bytes of random and exact lengths,
 * and mutations of genuine messages (bit flips, byte overwrites, truncation, extension, splices). The only
 * acceptable failure is a {@link NoiseException}; a refused read leaves the state unchanged, which is checked by
 * reading the genuine message afterwards.
 */
class NoiseFuzzTest {
    private static final int ITERATIONS = 700;

    interface Reader {
        void read(HandshakeState hs, byte[] msg) throws NoiseException;
    }

    /** A handshake positioned just before one read, plus the genuine message for that read. */
    record Target(HandshakeState reader, byte[] genuine) {
    }

    static Target target(final Pattern pattern, final int message, final Random rnd) throws NoiseException {
        final Pair p = Pair.of(pattern, rnd);
        final byte[] m1 = p.init().writeMessage1();
        if (message == 1) {
            return new Target(p.resp(), m1);
        }
        p.resp().readMessage1(m1);
        final byte[] m2 = p.resp().writeMessage2();
        if (message == 2) {
            return new Target(p.init(), m2);
        }
        p.init().readMessage2(m2);
        return new Target(p.resp(), p.init().writeMessage3());
    }

    static Reader reader(final int message) {
        return switch (message) {
            case 1 -> HandshakeState::readMessage1;
            case 2 -> HandshakeState::readMessage2;
            default -> HandshakeState::readMessage3;
        };
    }

    static byte[] mutate(final byte[] genuine, final Random rnd) {
        byte[] m = genuine.clone();
        switch (rnd.nextInt(7)) {
            case 0 -> m = new byte[rnd.nextInt(200)];
            case 1 -> m = new byte[genuine.length];
            case 2 -> m[rnd.nextInt(m.length)] ^= (byte) (1 << rnd.nextInt(8));
            case 3 -> {
                for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
                    m[rnd.nextInt(m.length)] = (byte) rnd.nextInt(256);
                }
            }
            case 4 -> m = Arrays.copyOf(genuine, rnd.nextInt(genuine.length));
            case 5 -> m = Arrays.copyOf(genuine, genuine.length + 1 + rnd.nextInt(8));
            default -> {
                final byte[] other = new byte[genuine.length];
                rnd.nextBytes(other);
                final int cut = rnd.nextInt(genuine.length);
                System.arraycopy(other, cut, m, cut, genuine.length - cut);
            }
        }
        if (rnd.nextInt(7) < 2 && m.length > 0) {
            rnd.nextBytes(m);
            if (m.length > 0 && rnd.nextBoolean()) {
                m[0] = (byte) (2 + rnd.nextInt(2)); // a plausible key prefix gets further into the parser
            }
        }
        return m;
    }

    /**
     * Offers one input to a read: true if accepted; false if refused with a {@link NoiseException} that leaves the
     * reader's progress and handshake hash unchanged; anything else fails. Shared with {@link NoiseJazzerTest}.
     */
    static boolean check(final HandshakeState reader, final Reader read, final byte[] input, final String what) {
        final Progress before = reader.progress();
        final byte[] hBefore = reader.handshakeHash();
        try {
            read.read(reader, input);
            return true;
        } catch (final NoiseException e) {
            assertEquals(before, reader.progress());
            assertArrayEquals(hBefore, reader.handshakeHash());
            return false;
        } catch (final RuntimeException | Error e) {
            fail(what + " threw " + e + " for " + NoiseTestKeys.HEX.formatHex(input), e);
            return false;
        }
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void everyReaderRefusesGarbageWithACheckedError(final Pattern pattern) throws Exception {
        final Random rnd = new Random(0xF1F5_0000L + pattern.ordinal());
        final int messages = pattern == Pattern.IK ? 2 : 3;
        int accepted = 0;
        int refused = 0;
        for (int message = 1; message <= messages; message++) {
            final Reader read = reader(message);
            Target t = target(pattern, message, rnd);
            for (int i = 0; i < ITERATIONS; i++) {
                final byte[] input = mutate(t.genuine(), rnd);
                if (check(t.reader(), read, input, pattern + " read message " + message)) {
                    accepted++;
                    // Accepted mutants are the unauthenticated ones: XK msg1, or an ephemeral's prefix parity.
                    t = target(pattern, message, rnd);
                } else {
                    refused++;
                }
            }
            // The last state, whatever it went through, still takes the genuine message.
            read.read(t.reader(), t.genuine());
        }
        assertTrue(refused > accepted, "refused " + refused + ", accepted " + accepted);
    }

    @Test
    void transportDecryptRefusesGarbageWithACheckedError() throws Exception {
        final Random rnd = new Random(0xF1F5_7777L);
        final byte[] k1 = TestIdentities.secret(rnd);
        final byte[] k2 = TestIdentities.secret(rnd);
        final TransportSession tx = new TransportSession(k1, k2);
        final TransportSession rx = new TransportSession(k2, k1);
        final byte[] hdr = new byte[16];
        for (int i = 0; i < 3000; i++) {
            final long counter = tx.nextSendCounter();
            final byte[] pt = new byte[rnd.nextInt(64)];
            rnd.nextBytes(pt);
            final byte[] sealed = tx.encrypt(hdr, pt);
            final byte[] input = rnd.nextInt(4) == 0 ? sealed : mutate(sealed.length == 0 ? new byte[1] : sealed, rnd);
            final long c = rnd.nextInt(5) == 0 ? rnd.nextLong() : counter;
            try {
                final byte[] out = rx.decrypt(c, hdr, input);
                assertArrayEquals(pt, out, "only the genuine frame may open");
            } catch (final NoiseException e) {
                // expected for mutants, wrong counters and replays
            } catch (final RuntimeException | Error e) {
                fail("decrypt threw " + e, e);
            }
        }
    }
}
