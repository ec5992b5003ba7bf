package net.fips.dataplane.engine;

/**
 * One data-plane loop. {@link #doWork()} does a bounded amount of work and returns how much; it blocks only where
 * the agent says so ({@link RxAgent} may wait in the kernel when it runs on its own thread).
 */
interface Agent {
    /** @return units of work done (0 = idle) */
    int doWork();

    /** @return the thread name role, e.g. {@code fips-worker-0} */
    String roleName();

    /** Called on the agent's thread after its last {@code doWork()}: return owned slots, free native state. */
    void onClose();

    /** Asks an agent blocked in {@code doWork()} to return soon (safe from any thread). */
    default void wakeup() {
    }
}
