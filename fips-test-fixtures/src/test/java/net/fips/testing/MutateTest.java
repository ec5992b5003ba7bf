package net.fips.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Byte mutation: reproducible from the seed, never touching the genuine message, each edit doing what it says. */
class MutateTest {
    private static final byte[] GENUINE = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    private static final Mutate.Edit[] ALL = {
        Mutate.FLIP_BIT, Mutate.RANDOM_BYTE, Mutate.CUT_AT, Mutate.CUT_RANDOM, Mutate.extendRandom(8), Mutate.KEEP,
    };

    @Test
    void theSameSeedGivesTheSameInputsAndTheGenuineMessageStaysAsItWas() {
        final Random a = new Random(42);
        final Random b = new Random(42);
        boolean anyChanged = false;
        for (int i = 0; i < 1000; i++) {
            final byte[] x = Mutate.edits(GENUINE, a, 4, ALL);
            assertArrayEquals(x, Mutate.edits(GENUINE, b, 4, ALL), "iteration " + i);
            anyChanged |= !Arrays.equals(GENUINE, x);
        }
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, GENUINE);
        assertTrue(anyChanged, "some inputs differ from the genuine message");
    }

    @Test
    void eachEditDoesWhatItsNameSays() {
        final Random rnd = new Random(7);
        final byte[] flipped = Mutate.FLIP_BIT.apply(GENUINE.clone(), 3, rnd);
        assertEquals(1, Integer.bitCount((flipped[3] ^ GENUINE[3]) & 0xFF), "exactly one bit of byte 3");
        assertArrayEquals(Arrays.copyOf(GENUINE, 5), Mutate.CUT_AT.apply(GENUINE.clone(), 5, rnd));
        final byte[] cut = Mutate.CUT_RANDOM.apply(GENUINE.clone(), 0, rnd);
        assertArrayEquals(Arrays.copyOf(GENUINE, cut.length), cut);
        assertArrayEquals(GENUINE, Mutate.KEEP.apply(GENUINE.clone(), 0, rnd));
        for (int i = 0; i < 100; i++) {
            final byte[] longer = Mutate.extend(3, r -> 'x').apply(GENUINE.clone(), 0, rnd);
            assertTrue(longer.length > GENUINE.length && longer.length <= GENUINE.length + 3,
                    "length " + longer.length);
            assertArrayEquals(GENUINE, Arrays.copyOf(longer, GENUINE.length));
            for (int j = GENUINE.length; j < longer.length; j++) {
                assertEquals('x', longer[j]);
            }
        }
    }

    @Test
    void editsStopOnceTheMessageIsEmpty() {
        final Mutate.Edit[] cutToNothing = {(b, pos, rnd) -> new byte[0]};
        final int[] applied = {0};
        final Mutate.Edit[] counting = {(b, pos, rnd) -> {
            applied[0]++;
            return cutToNothing[0].apply(b, pos, rnd);
        }};
        for (int i = 0; i < 50; i++) {
            assertEquals(0, Mutate.edits(GENUINE, new Random(i), 4, counting).length);
        }
        assertEquals(50, applied[0], "one edit each: the loop stops at the empty message");
        assertNotEquals(0, Mutate.edits(GENUINE, new Random(1), 4, Mutate.KEEP).length);
    }
}
