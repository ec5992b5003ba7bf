package net.fips.testing;

import java.util.Arrays;
import java.util.Random;
import java.util.function.ToIntFunction;

/**
 * Seeded byte-level mutation for the fuzz tests: a few random edits of a genuine message, each picked from a list
 * the test gives (the generic ones here, plus any that know its format). The same seed gives the same inputs, so a
 * failure names a seed that reproduces it.
 */
public final class Mutate {
    /** One edit of {@code b} at {@code pos}; it may change {@code b} in place or return a new array. */
    @FunctionalInterface
    public interface Edit {
        /**
         * @param b   the message so far (a copy the mutation owns; never empty)
         * @param pos a position in {@code b}, drawn before the edit
         * @param rnd the test's random source
         * @return the edited message
         */
        byte[] apply(byte[] b, int pos, Random rnd);
    }

    /** Flips one random bit of the byte at the position. */
    public static final Edit FLIP_BIT = (b, pos, rnd) -> {
        b[pos] ^= (byte) (1 << rnd.nextInt(8));
        return b;
    };
    /** Sets the byte at the position to a random value. */
    public static final Edit RANDOM_BYTE = (b, pos, rnd) -> {
        b[pos] = (byte) rnd.nextInt(256);
        return b;
    };
    /** Cuts the message at the position. */
    public static final Edit CUT_AT = (b, pos, rnd) -> Arrays.copyOf(b, pos);
    /** Cuts the message to a random length (the whole message included). */
    public static final Edit CUT_RANDOM = (b, pos, rnd) -> Arrays.copyOf(b, rnd.nextInt(b.length + 1));
    /** Leaves the message as it is (the genuine message must still work). */
    public static final Edit KEEP = (b, pos, rnd) -> b;

    private Mutate() {
    }

    /**
     * @param most   the most bytes appended (at least one is)
     * @param filler draws each appended byte
     * @return an edit that appends 1 to {@code most} bytes drawn by {@code filler}
     */
    public static Edit extend(final int most, final ToIntFunction<Random> filler) {
        return (b, pos, rnd) -> {
            final byte[] longer = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(most));
            for (int j = b.length; j < longer.length; j++) {
                longer[j] = (byte) filler.applyAsInt(rnd);
            }
            return longer;
        };
    }

    /** @return an edit that appends 1 to {@code most} random bytes */
    public static Edit extendRandom(final int most) {
        return extend(most, r -> r.nextInt(256));
    }

    /**
     * Applies 1 to {@code maxEdits} edits to a copy of {@code seed}: each draws a position, then one of
     * {@code edits} with equal chance; it stops early once the message is empty.
     *
     * @param seed     the genuine message (not changed)
     * @param rnd      the test's random source
     * @param maxEdits the most edits
     * @param edits    the edits to choose from
     * @return the mutated message
     */
    public static byte[] edits(final byte[] seed, final Random rnd, final int maxEdits, final Edit... edits) {
        byte[] b = seed.clone();
        final int n = 1 + rnd.nextInt(maxEdits);
        for (int i = 0; i < n && b.length > 0; i++) {
            final int pos = rnd.nextInt(b.length);
            b = edits[rnd.nextInt(edits.length)].apply(b, pos, rnd);
        }
        return b;
    }
}
