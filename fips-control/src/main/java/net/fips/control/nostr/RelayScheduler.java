package net.fips.control.nostr;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where the relay client's timers run (reconnect backoff, fetch and publish timeouts), injected so tests drive time
 * themselves.
 */
@FunctionalInterface
public interface RelayScheduler {
    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    interface Task {
        /** Cancels the task if it has not run. */
        void cancel();
    }

    /**
     * Runs {@code task} once after {@code delayMs}.
     *
     * @param task    what to run
     * @param delayMs delay in milliseconds
     * @return a handle to cancel it
     */
    Task schedule(Runnable task, long delayMs);

    /**
     * @param executor a scheduled executor
     * @return a scheduler on it
     */
    static RelayScheduler of(final ScheduledExecutorService executor) {
        return (task, delayMs) -> {
            final ScheduledFuture<?> f = executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
            return () -> f.cancel(false);
        };
    }
}
