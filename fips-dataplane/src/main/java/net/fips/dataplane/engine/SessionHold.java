package net.fips.dataplane.engine;

import java.util.function.LongSupplier;

import net.fips.dataplane.pool.PacketPool;

/**
 * Encrypted FSP messages that arrive for session keys the control plane is about to install, held instead of
 * dropped. An XK initiator is established the moment it writes msg3 and sends its queued data right behind it
 * (crypto-link.md §7.4), so at the responder those messages reach the session's worker while the control thread is
 * still reading msg3; the same holds for a responder's first messages behind the SessionAck, and for a rekey's new
 * keys (§7.7). The session's worker marks the remote as expected when it passes a SessionAck or SessionMsg3 up
 * ({@link #expect}); a message from it that finds no session, or no key that opens it, is then held; the command
 * that installs the keys takes them ({@link #take}) and the worker opens them in arrival order before anything that
 * arrives later.
 *
 * <p>Single-threaded: owned by one worker's {@link SessionPath}. Bounded: {@value #MAX_EXPECTED} expected remotes
 * (the oldest gives way, its messages dropped), {@value #MAX_MESSAGES} messages in all and
 * {@value #MAX_PER_REMOTE} per remote (later ones dropped, so what is held stays in order), and an expectation lasts
 * {@link #HOLD_NANOS}; then its messages are dropped and counted.
 */
final class SessionHold {
    /** How long after a handshake message its sender's messages may be held. */
    static final long HOLD_NANOS = 1_000_000_000L;
    static final int MAX_EXPECTED = 16;
    static final int MAX_MESSAGES = 64;
    static final int MAX_PER_REMOTE = 32;

    private final PacketPool pool;
    private final LongSupplier clock;
    private final long[] expectedHi = new long[MAX_EXPECTED];
    private final long[] expectedLo = new long[MAX_EXPECTED];
    private final long[] expectedUntil = new long[MAX_EXPECTED];
    private int expected;
    private final long[] heldHi = new long[MAX_MESSAGES];
    private final long[] heldLo = new long[MAX_MESSAGES];
    private final int[] heldSlot = new int[MAX_MESSAGES];
    private int held;

    SessionHold(final PacketPool pool, final LongSupplier clock) {
        this.pool = pool;
        this.clock = clock;
    }

    /** @return whether anything is expected or held */
    boolean active() {
        return expected > 0;
    }

    /**
     * A SessionAck or SessionMsg3 from {@code hi:lo} goes up to the control plane.
     *
     * @return messages dropped because the oldest expectation gave way to this one
     */
    int expect(final long hi, final long lo) {
        int dropped = 0;
        int at = find(hi, lo);
        if (at < 0) {
            if (expected == MAX_EXPECTED) {
                dropped = dropExpectation(0);
            }
            at = expected++;
            expectedHi[at] = hi;
            expectedLo[at] = lo;
        }
        expectedUntil[at] = clock.getAsLong() + HOLD_NANOS;
        return dropped;
    }

    /** @return whether keys from {@code hi:lo} are expected now */
    boolean expecting(final long hi, final long lo) {
        if (expected == 0) {
            return false;
        }
        final int at = find(hi, lo);
        return at >= 0 && clock.getAsLong() - expectedUntil[at] < 0;
    }

    /**
     * Holds the message in {@code slot} (its data offset and length, and the CE flag in the forward flags, already
     * in the slot's metadata); the caller checked {@link #expecting}.
     *
     * @return false when the bounds are reached (the caller drops and counts it)
     */
    boolean hold(final long hi, final long lo, final int slot) {
        if (held == MAX_MESSAGES) {
            return false;
        }
        int mine = 0;
        for (int i = 0; i < held; i++) {
            if (heldHi[i] == hi && heldLo[i] == lo) {
                mine++;
            }
        }
        if (mine == MAX_PER_REMOTE) {
            return false;
        }
        heldHi[held] = hi;
        heldLo[held] = lo;
        heldSlot[held] = slot;
        held++;
        return true;
    }

    /**
     * Keys for {@code hi:lo} are in: the expectation ends and its messages are moved to {@code out}, oldest first.
     *
     * @param out room for {@link #MAX_PER_REMOTE} slots
     * @return how many
     */
    int take(final long hi, final long lo, final int[] out) {
        final int at = find(hi, lo);
        if (at < 0) {
            return 0;
        }
        removeExpectation(at);
        int n = 0;
        int kept = 0;
        for (int i = 0; i < held; i++) {
            if (heldHi[i] == hi && heldLo[i] == lo) {
                out[n++] = heldSlot[i];
            } else {
                keep(i, kept++);
            }
        }
        held = kept;
        return n;
    }

    /** Drops the messages of expectations that ran out. @return messages dropped (slots released) */
    int expire() {
        final long now = clock.getAsLong();
        int dropped = 0;
        for (int i = expected - 1; i >= 0; i--) {
            if (now - expectedUntil[i] >= 0) {
                dropped += dropExpectation(i);
            }
        }
        return dropped;
    }

    /** Releases everything (worker shutdown). */
    void clear() {
        for (int i = 0; i < held; i++) {
            pool.release(heldSlot[i]);
        }
        held = 0;
        expected = 0;
    }

    /** @return messages held now */
    int held() {
        return held;
    }

    private int find(final long hi, final long lo) {
        for (int i = 0; i < expected; i++) {
            if (expectedHi[i] == hi && expectedLo[i] == lo) {
                return i;
            }
        }
        return -1;
    }

    private int dropExpectation(final int at) {
        final long hi = expectedHi[at];
        final long lo = expectedLo[at];
        removeExpectation(at);
        int dropped = 0;
        int kept = 0;
        for (int i = 0; i < held; i++) {
            if (heldHi[i] == hi && heldLo[i] == lo) {
                pool.release(heldSlot[i]);
                dropped++;
            } else {
                keep(i, kept++);
            }
        }
        held = kept;
        return dropped;
    }

    private void keep(final int from, final int to) {
        heldHi[to] = heldHi[from];
        heldLo[to] = heldLo[from];
        heldSlot[to] = heldSlot[from];
    }

    private void removeExpectation(final int at) {
        final int tail = expected - at - 1;
        System.arraycopy(expectedHi, at + 1, expectedHi, at, tail);
        System.arraycopy(expectedLo, at + 1, expectedLo, at, tail);
        System.arraycopy(expectedUntil, at + 1, expectedUntil, at, tail);
        expected--;
    }
}
