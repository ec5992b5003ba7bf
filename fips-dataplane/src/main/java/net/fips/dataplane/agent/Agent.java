package net.fips.dataplane.agent;

/**
 * One data-plane loop. {@link #doWork()} does a bounded amount of work and returns how much; it blocks only where
 * the agent says so (a receive agent may wait in the kernel when it runs on its own thread). Run by an
 * {@link AgentRunner} on a thread of its own, or by another runner together with other agents.
 */
public interface Agent {
    /** @return units of work done (0 = idle) */
    int doWork();

    /** @return the thread name role, e.g. {@code fips-worker-0} */
    String roleName();

    /** Called on the agent's thread after its last {@code doWork()}: return owned slots, free native state. */
    void onClose();

    /** Asks an agent blocked in {@code doWork()} to return soon (safe from any thread). */
    default void wakeup() {
    }

    /**
     * @return the signal its producers raise after handing it input, so its idle thread may park until then; null
     *         if it has none (it must then be polled)
     */
    default WakeSignal wakeSignal() {
        return null;
    }

    /**
     * Agent thread, after it announced that it is going to sleep: whether any of its inputs holds something. Only
     * asked of agents with a {@link #wakeSignal()}; it must look at every queue those producers feed.
     */
    default boolean hasPendingWork() {
        return true;
    }
}
