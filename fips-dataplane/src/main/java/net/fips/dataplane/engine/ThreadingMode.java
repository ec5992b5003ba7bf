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
    SHARED,
    /**
     * Every agent on one platform thread, {@code fips-dataplane}, in run-to-completion cycles (receive, workers,
     * transmit, one after the other, as {@link DataPlane#doWork()} does); when a cycle finds nothing it blocks in
     * {@code poll(2)} on the UDP sockets, the TUN device and an eventfd that every other producer (commands,
     * transports with their own loops, {@code sendDatagram} callers, close) writes. No packet changes threads
     * inside the data plane: meant for small machines, where thread hand-offs cost more than they parallelise.
     */
    COMPACT
}
