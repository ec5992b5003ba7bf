package net.fips.dataplane.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets an idle consumer thread (a worker or a tx loop) park until a producer has handed it something, without
 * making producers pay a system call per item: a producer wakes the consumer only while it has announced that it
 * is going to sleep.
 *
 * <p>The handshake is Dekker's. The consumer announces itself ({@link #prepareToSleep()}), then re-checks every
 * queue it owns, then sleeps; the producer publishes its item, then reads the announcement ({@link #wake()}). Each
 * side puts a full fence between its store and its load, so they cannot both miss each other: either the
 * consumer's re-check sees the item, or the producer sees the announcement and wakes it. The rings publish with
 * release stores only, which may be reordered after a later load of another variable; hence the explicit fences
 * rather than relying on the announcement field being volatile.
 *
 * <p>Two ways to sleep. Without a descriptor (a thread per agent) the consumer parks and the producer unparks it;
 * an unpark that arrives before the park leaves a permit, so the park returns at once. With a descriptor's
 * {@link Waker} (an eventfd in the compact threading mode, where one signal is shared by every agent of the one
 * data-plane thread) the consumer blocks in {@code poll} on its sockets, the TUN device and the eventfd, and the
 * producer writes the eventfd; the eventfd stays readable until the consumer reads it, so a write that arrives
 * before the poll makes the poll return at once. The first producer that sees the announcement withdraws it
 * (compare-and-set), so a burst of producers costs one write, not one each.
 */
public final class WakeSignal {
    private static final VarHandle SLEEPER;

    static {
        try {
            SLEEPER = MethodHandles.lookup().findVarHandle(WakeSignal.class, "sleeper", Thread.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Makes a consumer's wake-up descriptor readable; it stays readable until the consumer reads it. */
    @FunctionalInterface
    public interface Waker {
        /** Writes the descriptor (safe from any thread). */
        void wake();
    }

    /** The consumer thread while it is announced as going to sleep, else null. */
    private volatile Thread sleeper;
    /** Writes the descriptor the consumer polls (an eventfd), or null when it parks. */
    private final Waker fd;

    /** A signal whose consumer parks. */
    public WakeSignal() {
        this(null);
    }

    /**
     * @param fd makes the descriptor the consumer polls together with its others readable (an eventfd's write);
     *           null: the consumer parks
     */
    public WakeSignal(final Waker fd) {
        this.fd = fd;
    }

    /**
     * Producer, after publishing an item to the consumer (ring offer, queue add): wakes the consumer if it is
     * asleep or about to sleep. Costs a fence and one volatile read when it is awake.
     */
    public void wake() {
        VarHandle.fullFence();
        final Thread t = sleeper;
        if (t != null) {
            if (fd == null) {
                LockSupport.unpark(t);
            } else if (SLEEPER.compareAndSet(this, t, null)) {
                fd.wake();
            }
        }
    }

    /** Consumer: announces that it will sleep; it must then re-check all its inputs before sleeping. */
    public void prepareToSleep() {
        sleeper = Thread.currentThread();
        VarHandle.fullFence();
    }

    /** Consumer: withdraws the announcement after sleeping (or after deciding not to sleep). */
    public void awake() {
        sleeper = null;
    }
}
