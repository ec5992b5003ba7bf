package net.fips.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits in tests: polls a condition until it holds, and fails the test with what it waited for once the deadline
 * has passed. This is how a test waits for another thread; it never sleeps a fixed time instead.
 */
public final class Await {
    /** The pause between two polls of {@link #until(Duration, BooleanSupplier, String)}. */
    public static final Duration DEFAULT_POLL = Duration.ofMillis(1);
    /** How many polls {@link #spinUntil} makes with only a spin-wait hint between them before it yields. */
    static final int SPINS = 200;

    private Await() {
    }

    /**
     * Polls {@code condition} every millisecond until it holds.
     *
     * @param timeout   how long to wait at most
     * @param condition what must become true
     * @param what      what is waited for, for the failure message
     * @throws AssertionError naming {@code what} when {@code timeout} passes first
     */
    public static void until(final Duration timeout, final BooleanSupplier condition, final String what) {
        until(timeout, DEFAULT_POLL, condition, () -> what);
    }

    /**
     * Polls {@code condition} every millisecond until it holds.
     *
     * @param timeout   how long to wait at most
     * @param condition what must become true
     * @param what      what is waited for (evaluated only on failure, so it may describe the state then)
     * @throws AssertionError naming {@code what} when {@code timeout} passes first
     */
    public static void until(final Duration timeout, final BooleanSupplier condition, final Supplier<String> what) {
        until(timeout, DEFAULT_POLL, condition, what);
    }

    /**
     * Polls {@code condition} every {@code poll} until it holds; a long pause suits a condition that is costly to
     * test (a terminal screen capture, a process listing).
     *
     * @param timeout   how long to wait at most
     * @param poll      the pause between two polls
     * @param condition what must become true
     * @param what      what is waited for (evaluated only on failure)
     * @throws AssertionError naming {@code what} when {@code timeout} passes first
     */
    public static void until(final Duration timeout, final Duration poll, final BooleanSupplier condition,
            final Supplier<String> what) {
        final long timeoutNanos = timeout.toNanos();
        final long pauseNanos = poll.toNanos();
        final long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw timedOut(timeout, what);
            }
            LockSupport.parkNanos(pauseNanos);
        }
    }

    /**
     * Polls {@code condition} with spin-wait hints for the first {@value #SPINS} polls (to act at a precise moment),
     * then yields between polls, so that the test thread does not keep a core from the threads it waits for (the
     * build machine may have only two).
     *
     * @param timeout   how long to wait at most
     * @param condition what must become true
     * @param what      what is waited for (evaluated only on failure)
     * @throws AssertionError naming {@code what} when {@code timeout} passes first
     */
    public static void spinUntil(final Duration timeout, final BooleanSupplier condition,
            final Supplier<String> what) {
        final long timeoutNanos = timeout.toNanos();
        final long start = System.nanoTime();
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw timedOut(timeout, what);
            }
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    private static AssertionError timedOut(final Duration timeout, final Supplier<String> what) {
        return new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what.get());
    }
}
