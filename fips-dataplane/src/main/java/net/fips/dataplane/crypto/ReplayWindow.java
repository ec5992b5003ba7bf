package net.fips.dataplane.crypto;

import java.util.Arrays;

/**
 * The 2048-packet anti-replay window of one receiving direction of one FMP or FSP session (spec crypto-link §5.7),
 * with the reference's exact acceptance rules.
 *
 * <p>State: {@code highest}, the largest counter accepted so far (0 before anything arrives), and a 2048-bit map in
 * which bit {@code i} means "counter {@code highest - i} has been accepted". Counters are unsigned 64-bit values
 * carried in a {@code long}.
 *
 * <p>Use it in two steps, because a forged packet must not move the window:
 * <ol>
 *   <li>{@link #check} before the AEAD open: cheap, changes nothing;</li>
 *   <li>{@link #accept} only after the tag verified.</li>
 * </ol>
 * Counter 0 is accepted exactly once: the initial state has {@code highest = 0} with bit 0 clear.
 *
 * <p>Allocation-free and not thread-safe: the one thread that decrypts a session's packets owns its window.
 */
public final class ReplayWindow {
    /** Window size in packets, as in the reference ({@code REPLAY_WINDOW_SIZE}). */
    public static final int SIZE = 2048;

    private static final int WORDS = SIZE / Long.SIZE;

    private long highest;
    private final long[] bitmap = new long[WORDS];

    /** Creates an empty window: nothing accepted, {@code highest = 0}. */
    public ReplayWindow() {
    }

    /**
     * Tells whether a packet with {@code counter} may be decrypted: it is above the highest counter seen, or within
     * the last {@link #SIZE} counters and not yet accepted. Changes nothing.
     *
     * @param counter the unsigned 64-bit counter from the packet header
     * @return true when the packet is neither a replay nor too old
     */
    public boolean check(final long counter) {
        if (Long.compareUnsigned(counter, highest) > 0) {
            return true;
        }
        final long diff = highest - counter;
        if (Long.compareUnsigned(diff, SIZE) >= 0) {
            return false;
        }
        final int d = (int) diff;
        return (bitmap[d >>> 6] & (1L << d)) == 0;
    }

    /**
     * Records {@code counter} as received. Call only after the packet authenticated; a counter above the highest
     * slides the window forward (everything 2048 or more behind the new highest is forgotten).
     *
     * @param counter the unsigned 64-bit counter of an authenticated packet
     */
    public void accept(final long counter) {
        if (Long.compareUnsigned(counter, highest) > 0) {
            final long shift = counter - highest;
            if (Long.compareUnsigned(shift, SIZE) >= 0) {
                Arrays.fill(bitmap, 0L);
            } else {
                shiftLeft((int) shift);
            }
            highest = counter;
            bitmap[0] |= 1L;
        } else {
            // The caller checked first, so diff < SIZE; a stale accept of a too-old counter is simply ignored
            // rather than indexing outside the map (the reference would panic there).
            final long diff = highest - counter;
            if (Long.compareUnsigned(diff, SIZE) < 0) {
                final int d = (int) diff;
                bitmap[d >>> 6] |= 1L << d;
            }
        }
    }

    /**
     * Check-and-accept in one call, for callers that have already authenticated the packet.
     *
     * @return true when {@code counter} was fresh and is now recorded; false for a replay or a too-old counter
     */
    public boolean checkAndAccept(final long counter) {
        if (!check(counter)) {
            return false;
        }
        accept(counter);
        return true;
    }

    /** @return the highest counter accepted so far (unsigned), 0 when nothing has been accepted */
    public long highest() {
        return highest;
    }

    /** Forgets everything, as for a fresh session. */
    public void reset() {
        highest = 0;
        Arrays.fill(bitmap, 0L);
    }

    /** Copies {@code other}'s state into this window (a snapshot for a hand-off), without allocating. */
    public void copyFrom(final ReplayWindow other) {
        highest = other.highest;
        System.arraycopy(other.bitmap, 0, bitmap, 0, WORDS);
    }

    /** Moves every bit {@code shift} positions towards older counters (0 < shift < SIZE); bits pushed out drop. */
    private void shiftLeft(final int shift) {
        final int wordShift = shift >>> 6;
        final int bitShift = shift & 63;
        if (wordShift > 0) {
            // Walk from the top so a word is read before it is overwritten.
            for (int i = WORDS - 1; i >= wordShift; i--) {
                bitmap[i] = bitmap[i - wordShift];
            }
            for (int i = 0; i < wordShift; i++) {
                bitmap[i] = 0L;
            }
        }
        if (bitShift > 0) {
            long carry = 0L;
            for (int i = 0; i < WORDS; i++) {
                final long w = bitmap[i];
                bitmap[i] = (w << bitShift) | carry;
                carry = w >>> (64 - bitShift);
            }
        }
    }

    @Override
    public String toString() {
        return "ReplayWindow[highest=" + Long.toUnsignedString(highest) + ", size=" + SIZE + "]";
    }
}
