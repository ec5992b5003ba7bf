package net.fips.dataplane.engine;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets an idle consumer thread (a worker or a tx loop) park until a producer has handed it something, without
 * making producers pay a system call per item: a producer unparks the consumer only while it has announced that
 * it is going to sleep.
 *
 * <p>The handshake is Dekker's. The consumer announces itself ({@link #prepareToSleep()}), then re-checks every
 * queue it owns, then parks; the producer publishes its item, then reads the announcement ({@link #wake()}). Each
 * side puts a full fence between its store and its load, so they cannot both miss each other: either the
 * consumer's re-check sees the item, or the producer sees the announcement and unparks. An unpark that arrives
 * before the park leaves a permit, so the park returns at once. The rings publish with release stores only, which
 * may be reordered after a later load of another variable; hence the explicit fences rather than relying on the
 * announcement field being volatile.
 */
final class WakeSignal {
    /** The consumer thread while it is announced as going to sleep, else null. */
    private volatile Thread sleeper;

    /**
     * Producer, after publishing an item to the consumer (ring offer, queue add): wakes the consumer if it is
     * parked or about to park. Costs a fence and one volatile read when it is awake.
     */
    void wake() {
        VarHandle.fullFence();
        final Thread t = sleeper;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Consumer: announces that it will park; it must then re-check all its inputs before parking. */
    void prepareToSleep() {
        sleeper = Thread.currentThread();
        VarHandle.fullFence();
    }

    /** Consumer: withdraws the announcement after parking (or after deciding not to park). */
    void awake() {
        sleeper = null;
    }
}
