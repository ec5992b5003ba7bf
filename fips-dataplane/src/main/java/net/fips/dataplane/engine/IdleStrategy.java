package net.fips.dataplane.engine;

/**
 * What an agent's thread does between duty cycles. Called with the work count of the last cycle: a positive
 * count resets the strategy, zero lets it back off. One instance per thread (strategies keep state).
 */
public interface IdleStrategy {
    /** @param workCount what the last {@code doWork()} returned */
    void idle(int workCount);

    /** Forgets the back-off state, e.g. before a new run. */
    void reset();
}
