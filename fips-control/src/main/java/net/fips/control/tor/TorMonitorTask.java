package net.fips.control.tor;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import net.fips.dataplane.tor.TorCounters;

/**
 * The Tor transport's monitoring loop (transports.md §6.6): one control connection, authenticated once, asked for
 * a {@link TorMonitoring} snapshot every {@link TorMonitor#INTERVAL_NANOS}; the latest is what
 * {@code show_transports} shows. A failed connect, authentication or snapshot counts one {@code control_errors},
 * logs a warning, drops the connection and is retried at the next poll (the reference keeps a dead connection
 * and reports defaults forever). Its own virtual thread; never the control loop's.
 */
public final class TorMonitorTask implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TorMonitorTask.class.getName());
    private static final long REPLY_TIMEOUT_NANOS = 10_000_000_000L;

    private final String controlAddr;
    private final ControlAuth auth;
    private final TorCounters counters;
    private final LongSupplier nanoClock;
    private final TorMonitor monitor;
    private final String label;
    private TorControlClient client;
    private volatile boolean closed;
    private volatile Thread thread;

    /**
     * @param label       the transport's name, for logs
     * @param controlAddr {@code control_addr}
     * @param auth        the authentication method
     * @param counters    where {@code control_errors} goes
     * @param nanoClock   monotonic nanoseconds
     */
    public TorMonitorTask(final String label, final String controlAddr, final ControlAuth auth,
                          final TorCounters counters, final LongSupplier nanoClock) {
        this.label = Objects.requireNonNull(label, "label");
        this.controlAddr = Objects.requireNonNull(controlAddr, "controlAddr");
        this.auth = Objects.requireNonNull(auth, "auth");
        this.counters = Objects.requireNonNull(counters, "counters");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.monitor = new TorMonitor(nanoClock.getAsLong());
    }

    /**
     * Connects and authenticates now (control_port mode: a failure here is a start failure).
     *
     * @throws TorControlException when Tor cannot be reached or refuses the credentials (counted)
     */
    public void connect() throws TorControlException {
        try {
            final TorControlClient c = TorControlClient.connect(controlAddr, REPLY_TIMEOUT_NANOS, nanoClock);
            try {
                c.authenticate(auth);
            } catch (final TorControlException e) {
                c.close();
                throw e;
            }
            client = c;
        } catch (final TorControlException e) {
            counters.recordControlError();
            throw e;
        }
    }

    /**
     * One poll: (re)connect if needed, take a snapshot, log what it changes. Failures are counted and logged.
     *
     * @return the log events of this poll (for tests), empty after a failure
     */
    public synchronized List<TorMonitor.Event> pollOnce() {
        try {
            if (client == null) {
                connect();
            }
            final List<TorMonitor.Event> events = monitor.onSnapshot(client.monitoringSnapshot(),
                    nanoClock.getAsLong());
            for (final TorMonitor.Event e : events) {
                LOG.log(e.warning() ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
                        label + ": " + e.message());
            }
            return events;
        } catch (final TorControlException e) {
            if (client != null) {
                counters.recordControlError();
                client.close();
                client = null;
            }
            LOG.log(System.Logger.Level.WARNING, label + ": Tor monitoring query failed: " + e.getMessage());
            return List.of();
        }
    }

    /** @return the latest snapshot, or null before the first good poll */
    public TorMonitoring latest() {
        return monitor.latest();
    }

    /** Starts polling every {@link TorMonitor#INTERVAL_NANOS} on a virtual thread, the first poll at once. */
    public void start() {
        thread = Thread.ofVirtual().name("fips-tor-monitor-" + label).start(() -> {
            while (!closed) {
                pollOnce();
                final long until = nanoClock.getAsLong() + TorMonitor.INTERVAL_NANOS;
                long left;
                while (!closed && (left = until - nanoClock.getAsLong()) > 0) {
                    LockSupport.parkNanos(this, left);
                }
            }
        });
    }

    @Override
    public synchronized void close() {
        closed = true;
        final Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
