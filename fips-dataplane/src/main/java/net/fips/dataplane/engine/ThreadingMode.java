package net.fips.dataplane.engine;

/** How the data plane's agents are packed onto threads. */
public enum ThreadingMode {
    /**
     * Every agent on its own platform thread: {@code fips-rx-N} per transport, {@code fips-worker-N} per worker,
     * {@code fips-tx-N} per transport.
     */
    DEDICATED,
    /**
     * No threads: the caller drives everything through {@link DataPlane#doWork()}, one agent after the other.
     * Deterministic, for tests and for embedders with their own loop.
     */
    SHARED
}
