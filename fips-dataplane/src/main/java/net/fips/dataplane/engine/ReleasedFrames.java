package net.fips.dataplane.engine;

import java.util.Arrays;

import net.fips.dataplane.pool.PacketPool;

/**
 * Frames the receive side held for a link index ({@link LinkFrameHold}) that an install just brought in: queued
 * by the worker while it applies a round of commands, opened in arrival order once the round is done. Commands
 * applied while they are opened may queue more; those are appended and opened in the same pass. Single-threaded.
 */
final class ReleasedFrames {
    private final PacketPool pool;
    private int[] slots = new int[LinkFrameHold.MIN_FRAMES];
    private int count;
    private boolean opening;

    ReleasedFrames(final PacketPool pool) {
        this.pool = pool;
    }

    /** Queues {@code held}, each slot marked for {@code linkId}. */
    void add(final long linkId, final int[] held) {
        if (count + held.length > slots.length) {
            slots = Arrays.copyOf(slots, Math.max(slots.length * 2, count + held.length));
        }
        for (final int slot : held) {
            SlotMeta.linkId(pool.slotSegment(slot), linkId);
            slots[count++] = slot;
        }
    }

    /** @return whether frames wait and no pass is opening them already */
    boolean ready() {
        return count > 0 && !opening;
    }

    /** Starts a pass: {@link #size()} and {@link #get(int)} until {@link #endPass()}. */
    void startPass() {
        opening = true;
    }

    /** @return how many frames are queued (it may grow during a pass) */
    int size() {
        return count;
    }

    /** @return the slot of frame {@code i} */
    int get(final int i) {
        return slots[i];
    }

    /** Ends a pass: every queued frame was taken. */
    void endPass() {
        count = 0;
        opening = false;
    }
}
