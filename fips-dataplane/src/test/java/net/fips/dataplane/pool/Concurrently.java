package net.fips.dataplane.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Runs tasks on named platform threads, joins them and rethrows the first failure; no sleeps. */
final class Concurrently {
    private Concurrently() {
    }

    /** A task that may throw and can see the shared deadline. */
    interface Task {
        void run(Deadline deadline) throws Exception;
    }

    /** A spin-wait deadline shared by all tasks of one run. */
    static final class Deadline {
        private final long endNs;
        private volatile boolean aborted;

        Deadline(final long timeoutNs) {
            this.endNs = System.nanoTime() + timeoutNs;
        }

        /**
         * One wait step: hints the CPU and yields (the build machine may run more threads than it has cores, and a
         * descheduled peer only makes progress if we give up the core), then fails once the deadline has passed or
         * another task failed.
         */
        void spin(final String what) {
            Thread.onSpinWait();
            Thread.yield();
            if (aborted) {
                throw new AssertionError("aborted while waiting for " + what + ": another task failed");
            }
            if (System.nanoTime() - endNs > 0) {
                throw new AssertionError("deadline passed while waiting for " + what);
            }
        }
    }

    static void run(final long timeoutNs, final Task... tasks) throws Exception {
        final Deadline deadline = new Deadline(timeoutNs);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < tasks.length; i++) {
            final Task task = tasks[i];
            final Thread thread = new Thread(() -> {
                try {
                    task.run(deadline);
                } catch (final Throwable t) {
                    failure.compareAndSet(null, t);
                    deadline.aborted = true;
                }
            }, "pool-test-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        for (final Thread thread : threads) {
            thread.join();
        }
        final Throwable t = failure.get();
        if (t instanceof Exception e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
    }
}
