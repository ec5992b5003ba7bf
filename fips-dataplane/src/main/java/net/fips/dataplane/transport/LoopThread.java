package net.fips.dataplane.transport;

/**
 * The one event-loop thread of a transport that runs its own loop (TCP, Ethernet, BLE; see
 * {@link Transport#start(TransportPort)}): started once, and joined, bounded, by {@link Transport#stop()} after the
 * transport told its loop to end. Thread-safe.
 */
public final class LoopThread {
    /** How long {@link #join()} waits for the loop to return its slots and end. */
    public static final long JOIN_MILLIS = 5_000;

    private Thread thread;

    /** @return whether {@link #start} was called */
    public synchronized boolean started() {
        return thread != null;
    }

    /**
     * Starts {@code body} on a daemon platform thread named {@code name}.
     *
     * @throws IllegalStateException when already started
     */
    public synchronized void start(final String name, final Runnable body) {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        thread = Thread.ofPlatform().name(name).daemon().unstarted(body);
        thread.start();
    }

    /** @return the thread's name, or null before {@link #start} */
    public synchronized String name() {
        return thread == null ? null : thread.getName();
    }

    /** Waits up to {@value #JOIN_MILLIS} ms for the thread to end (no-op when never started). */
    public void join() {
        final Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(JOIN_MILLIS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
