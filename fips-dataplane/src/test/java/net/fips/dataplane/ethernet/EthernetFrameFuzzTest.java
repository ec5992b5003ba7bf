package net.fips.dataplane.ethernet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.WireError;
import net.fips.dataplane.wire.WireResult;

/**
 * Bounded, seeded fuzzing of {@link EthernetFrame} in the style of {@code WireFuzzTest}: 20,000 random inputs and
 * 20,000 mutations of valid frames. Each input must give a view or a {@link WireError} (never an exception); the same
 * bytes at a random offset inside a larger garbage-filled buffer must give the same outcome (no reads outside the
 * window); and every accepted frame must re-encode to its own prefix (data: header + packet; beacon: 34 bytes).
 */
class EthernetFrameFuzzTest {
    private static final int INPUTS = 20_000;
    private static final long SEED = 0xE7E4_2121L;

    @Test
    void randomAndMutatedInputsNeverThrowAndRoundTrip() {
        final Random rnd = new Random(SEED);
        final List<byte[]> corpus = new ArrayList<>();
        corpus.add(EthernetFrame.dataFrame(new byte[0]));
        corpus.add(EthernetFrame.dataFrame(new byte[] {1, 2, 3, 4, 5, 6, 7}));
        final byte[] padded = Arrays.copyOf(EthernetFrame.dataFrame(new byte[] {9, 8, 7, 6}), 46);
        corpus.add(padded);
        final byte[] key = new byte[32];
        rnd.nextBytes(key);
        corpus.add(EthernetFrame.beacon(key));
        corpus.add(Arrays.copyOf(EthernetFrame.beacon(key), 46));
        int accepted = 0;
        for (int i = 0; i < INPUTS; i++) {
            final byte[] in = new byte[rnd.nextInt(80)];
            rnd.nextBytes(in);
            if (in.length > 0 && rnd.nextBoolean()) {
                in[0] = (byte) rnd.nextInt(3);   // bias towards the known types
            }
            accepted += check(in, rnd) ? 1 : 0;
        }
        for (int i = 0; i < INPUTS; i++) {
            final byte[] in = mutate(corpus.get(rnd.nextInt(corpus.size())), rnd);
            accepted += check(in, rnd) ? 1 : 0;
        }
        assertTrue(accepted > INPUTS / 4, "the fuzzer reaches the accepting paths: " + accepted);
    }

    private static byte[] mutate(final byte[] base, final Random rnd) {
        byte[] b = base.clone();
        switch (rnd.nextInt(4)) {
            case 0 -> {
                if (b.length > 0) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            case 1 -> b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            case 2 -> b = Arrays.copyOf(b, b.length + rnd.nextInt(20));
            default -> {
                if (b.length > 2) {
                    b[1] = (byte) rnd.nextInt(256);
                    b[2] = (byte) rnd.nextInt(4);
                }
            }
        }
        return b;
    }

    /** @return whether the frame was accepted */
    private static boolean check(final byte[] in, final Random rnd) {
        final EthernetFrame f = new EthernetFrame();
        final WireResult<EthernetFrame> r = f.wrap(in, 0, in.length);
        final byte[] canonical = r.isOk() ? canonical(f) : null;

        final int pad = rnd.nextInt(16);
        final byte[] big = new byte[pad + in.length + rnd.nextInt(16)];
        rnd.nextBytes(big);
        System.arraycopy(in, 0, big, pad, in.length);
        final EthernetFrame g = new EthernetFrame();
        final WireResult<EthernetFrame> r2 = g.wrap(MemorySegment.ofArray(big), pad, in.length);
        assertEquals(r.errorOrNull(), r2.errorOrNull(), "same outcome inside a larger buffer");
        if (!r.isOk()) {
            return false;
        }
        assertArrayEquals(canonical, canonical(g), "same view inside a larger buffer");
        assertArrayEquals(Arrays.copyOf(in, canonical.length), canonical, "re-encoding is a prefix of the input");
        return true;
    }

    private static byte[] canonical(final EthernetFrame f) {
        if (f.type() == EthernetFrame.TYPE_BEACON) {
            return EthernetFrame.beacon(f.beaconKey());
        }
        return EthernetFrame.dataFrame(f.payload());
    }
}
