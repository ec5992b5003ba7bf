package net.fips.dataplane.engine;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

import net.fips.dataplane.pool.PacketPool;

/**
 * Established frames that arrive for a link index the control plane is about to install, held instead of dropped
 * (issue: nothing lost behind a handshake). An IK responder promotes the link the moment it writes msg2 and may
 * send at once (crypto-link.md §5.8: a TreeAnnounce right after promotion; §5.11: a rekey responder's cutover), so
 * frames addressed to the index our msg1 named can arrive while our control thread is still reading msg2. The
 * receive side marks that index as expected when it passes the msg2 up ({@link #expect}); a frame whose index then
 * misses the {@link IndexTable} is held ({@link #onMiss}); the control thread's {@link #install} takes the held
 * frames and hands them to the link's worker inside the same command that adds the link, ahead of any
 * frame that finds the new index.
 *
 * <p>One per transport. The receive thread writes expectations and frames, the control thread takes them and
 * expires them; both under this object's monitor, and the control thread publishes the index while holding it, so a
 * frame is either held before the take or finds the index after it: none can fall between. Only the miss path of a
 * receive thread ever locks, and only while something is expected.
 *
 * <p>Bounded: {@value #MAX_EXPECTED} expected indices (the oldest gives way), a quarter of the slot pool in all and
 * per index (at least {@value #MIN_FRAMES} and {@value #MIN_FRAMES_PER_INDEX}; later ones are dropped, so what is
 * held stays in order), and an expectation lasts {@link #HOLD_NANOS}: then its frames are dropped and counted. The
 * bound is what can arrive while the control thread reads a msg2: a rekey responder may cut over right after
 * sending it (crypto-link.md §5.11), and at a full-rate stream (some 300,000 frames a second) the control thread's
 * milliseconds are hundreds to thousands of frames (docs/benchmarks.md, "Frames under new link keys held").
 */
final class LinkFrameHold {
    /** How long after a msg2 its index's frames may be held: the control plane reads a msg2 in milliseconds. */
    static final long HOLD_NANOS = 1_000_000_000L;
    static final int MAX_EXPECTED = 16;
    /** Frames held in all, at the least (small pools). */
    static final int MIN_FRAMES = 64;
    /** Frames held per index, at the least (small pools). */
    static final int MIN_FRAMES_PER_INDEX = 32;
    /** The share of the slot pool the hold may take: one slot in {@value}. */
    static final int POOL_SHARE = 4;
    /** {@link #onMiss} result: the frame is held (the slot now belongs to the hold). */
    static final long HELD = Long.MIN_VALUE + 1;
    /** {@link #onMiss} result: nothing expects the index; the caller drops the frame as an unknown index. */
    static final long NOT_EXPECTED = IndexTable.MISSING;
    /** {@link #onMiss} result: expected, but the bounds are reached; the caller drops and counts it. */
    static final long OVERFLOW = Long.MIN_VALUE + 2;

    private static final int[] NONE = new int[0];

    private final PacketPool pool;
    private final LongSupplier clock;
    private final int maxFrames;
    private final int maxFramesPerIndex;
    private final int[] expectedIdx = new int[MAX_EXPECTED];
    private final long[] expectedUntil = new long[MAX_EXPECTED];
    /** Frames held per expectation: the per-index bound without a scan per frame. */
    private final int[] expectedHeld = new int[MAX_EXPECTED];
    private int expected;
    /** Held frames in arrival order: their index and slot. */
    private final int[] frameIdx;
    private final int[] frameSlot;
    private int frames;
    /** Whether anything is expected or held: the receive thread's miss path reads it without the lock. */
    private volatile boolean active;

    /**
     * @param poolSlots the slot pool's capacity, which sizes the bounds
     * @param clock     the data plane's nanosecond clock
     */
    LinkFrameHold(final PacketPool pool, final int poolSlots, final LongSupplier clock) {
        this.pool = pool;
        this.clock = clock;
        this.maxFrames = Math.max(MIN_FRAMES, poolSlots / POOL_SHARE);
        this.maxFramesPerIndex = Math.max(MIN_FRAMES_PER_INDEX, poolSlots / POOL_SHARE);
        this.frameIdx = new int[maxFrames];
        this.frameSlot = new int[maxFrames];
    }

    /** @return the data plane's clock, which this hold reads */
    LongSupplier clock() {
        return clock;
    }

    /** @return whether anything is expected or held (any thread) */
    boolean active() {
        return active;
    }

    /**
     * Receive thread, after {@code receiverIdx} missed the index table. Nothing expected (the usual case, a flood of
     * unknown indices among them): no lock, but the table is read again, since an install may have published the
     * index (and then ended the last expectation) since the first look. Otherwise {@link #offer}.
     *
     * @return the link id when the index is there now, {@link #HELD}, {@link #NOT_EXPECTED} or {@link #OVERFLOW}
     */
    long onMiss(final IndexTableHolder table, final long key, final int receiverIdx, final int slot) {
        if (!active) {
            // volatile read first: an install that cleared it had published the index before (see install)
            return table.lvTable().get(key);
        }
        return offer(table, key, receiverIdx, slot);
    }

    /**
     * Receive thread: a msg2 naming {@code receiverIdx} goes up to the control plane.
     *
     * @return frames dropped because the oldest expectation gave way to this one
     */
    synchronized int expect(final int receiverIdx) {
        int dropped = 0;
        int at = find(receiverIdx);
        if (at < 0) {
            if (expected == MAX_EXPECTED) {
                // the oldest expectation gives way (with its frames)
                dropped = dropExpectation(0);
            }
            at = expected++;
            expectedIdx[at] = receiverIdx;
            expectedHeld[at] = 0;
        }
        expectedUntil[at] = clock.getAsLong() + HOLD_NANOS;
        active = true;
        return dropped;
    }

    /**
     * Receive thread, after {@code receiverIdx} missed the index table: looks again under the lock (the control
     * thread publishes under it), then holds the frame if its index is expected.
     *
     * @return the link id when the index is there now, {@link #HELD}, {@link #NOT_EXPECTED} or {@link #OVERFLOW}
     */
    private synchronized long offer(final IndexTableHolder table, final long key, final int receiverIdx,
                                    final int slot) {
        final long linkId = table.lvTable().get(key);
        if (linkId != IndexTable.MISSING) {
            return linkId;
        }
        final int at = find(receiverIdx);
        if (at < 0 || clock.getAsLong() - expectedUntil[at] >= 0) {
            return NOT_EXPECTED;
        }
        if (frames == maxFrames || expectedHeld[at] == maxFramesPerIndex) {
            return OVERFLOW;
        }
        expectedHeld[at]++;
        frameIdx[frames] = receiverIdx;
        frameSlot[frames] = slot;
        frames++;
        return HELD;
    }

    /**
     * Control thread: installs {@code key} (this transport's {@code receiverIdx}) for {@code linkId}. Under the lock
     * that {@link #offer} takes: the frames held for the index are taken (oldest first; the expectation ends) and
     * passed to {@code command}, which queues them with the install command for the link's worker; then the index is
     * published. Command first, index second: a frame routed through the new index finds the command queued.
     */
    synchronized void install(final IndexTableHolder table, final long key, final int receiverIdx,
                              final long linkId, final Consumer<int[]> command) {
        command.accept(take(receiverIdx));
        table.add(key, linkId);
        // Only now: a receive thread that reads "nothing expected" must find the index in the table.
        updateActive();
    }

    /** The frames held for {@code receiverIdx}, oldest first; the expectation ends. */
    private int[] take(final int receiverIdx) {
        final int at = find(receiverIdx);
        if (at >= 0) {
            removeExpectation(at);
        }
        int n = 0;
        for (int i = 0; i < frames; i++) {
            if (frameIdx[i] == receiverIdx) {
                n++;
            }
        }
        if (n == 0) {
            return NONE;
        }
        final int[] taken = new int[n];
        int k = 0;
        int kept = 0;
        for (int i = 0; i < frames; i++) {
            if (frameIdx[i] == receiverIdx) {
                taken[k++] = frameSlot[i];
            } else {
                frameIdx[kept] = frameIdx[i];
                frameSlot[kept] = frameSlot[i];
                kept++;
            }
        }
        frames = kept;
        return taken;
    }

    /**
     * Any thread: drops the frames of expectations that ran out (their keys never came) and releases the slots.
     *
     * @return frames dropped
     */
    synchronized int expire() {
        final long now = clock.getAsLong();
        int dropped = 0;
        for (int i = expected - 1; i >= 0; i--) {
            if (now - expectedUntil[i] >= 0) {
                dropped += dropExpectation(i);
            }
        }
        return dropped;
    }

    /** Releases everything held (shutdown). @return frames released */
    synchronized int clear() {
        final int n = frames;
        for (int i = 0; i < n; i++) {
            pool.release(frameSlot[i]);
        }
        frames = 0;
        expected = 0;
        active = false;
        return n;
    }

    /** @return frames held now */
    synchronized int held() {
        return frames;
    }

    private int find(final int receiverIdx) {
        for (int i = 0; i < expected; i++) {
            if (expectedIdx[i] == receiverIdx) {
                return i;
            }
        }
        return -1;
    }

    /** Removes expectation {@code at} and drops (releases) its frames. @return frames dropped */
    private int dropExpectation(final int at) {
        final int idx = expectedIdx[at];
        removeExpectation(at);
        int kept = 0;
        int dropped = 0;
        for (int i = 0; i < frames; i++) {
            if (frameIdx[i] == idx) {
                pool.release(frameSlot[i]);
                dropped++;
            } else {
                frameIdx[kept] = frameIdx[i];
                frameSlot[kept] = frameSlot[i];
                kept++;
            }
        }
        frames = kept;
        updateActive();
        return dropped;
    }

    private void removeExpectation(final int at) {
        System.arraycopy(expectedIdx, at + 1, expectedIdx, at, expected - at - 1);
        System.arraycopy(expectedUntil, at + 1, expectedUntil, at, expected - at - 1);
        System.arraycopy(expectedHeld, at + 1, expectedHeld, at, expected - at - 1);
        expected--;
    }

    private void updateActive() {
        active = expected > 0 || frames > 0;
    }
}
