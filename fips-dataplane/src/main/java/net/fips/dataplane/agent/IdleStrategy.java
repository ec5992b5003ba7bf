package net.fips.dataplane.agent;

/**
 * What an agent's thread does between duty cycles. Called with the work count of the last cycle: a positive
 * count resets the strategy, zero lets it back off. One instance per thread (strategies keep state).
 */
public interface IdleStrategy {
    /** @param workCount what the last {@code doWork()} returned */
    void idle(int workCount);

    /** Forgets the back-off state, e.g. before a new run. */
    void reset();

    /**
     * Whether empty cycles have taken the strategy through all its phases (for a back-off: spinning, yielding and
     * short parks, up to its longest park period). Where the agent has a wake signal and the runner's park bound
     * ({@code DataPlaneContext.idleParkBoundNs}) allows it, the runner then parks until a producer signals instead
     * of calling {@link #idle(int)}. A strategy that must keep its thread hot (busy spinning) keeps the
     * default, false.
     *
     * @return true once backed off completely
     */
    default boolean isExhausted() {
        return false;
    }
}
