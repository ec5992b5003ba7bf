package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.Objects;
import java.util.function.LongConsumer;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.acl.AclProblem;
import net.fips.control.acl.AclWatcher;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkCounter;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.session.SessionLayer;
import net.fips.control.metrics.StatsHistory;
import net.fips.control.metrics.StatsSampler;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportCounters;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The {@code fips-control} thread: the only thread that touches the {@link LinkConductor}. Each pass drains the
 * data plane's events into the conductor, applies queued control requests, runs the conductor's tick when due
 * and polls the ACL files every {@value #ACL_POLL_SECONDS} s. With nothing to do it parks until the next tick;
 * the data plane's event signal and {@link #submit} unpark it, so a handshake is answered at once and an idle
 * node does not spin.
 */
final class ControlLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(ControlLoop.class.getName());
    static final int ACL_POLL_SECONDS = 2;
    private static final long ACL_POLL_NANOS = ACL_POLL_SECONDS * 1_000_000_000L;
    /** Requests waiting for the control thread; a full queue refuses instead of blocking a socket thread. */
    static final int REQUEST_QUEUE_CAPACITY = 256;
    /** In SHARED mode the data plane cannot block in the kernel, so an idle loop polls at this period. */
    private static final long SHARED_IDLE_NANOS = 1_000_000L;
    private static final long FLUSH_TIMEOUT_NANOS = 1_000_000_000L;
    private static final long JOIN_TIMEOUT_MS = 10_000;

    private final LinkConductor conductor;
    private final MeshControl mesh;
    private final SessionLayer sessions;
    private volatile MeshSnapshot meshSnapshot;
    private volatile ObjectNode sessionsSnapshot;
    private volatile ArrayNode sessionsMmpSnapshot;
    /** {@code {destinations, packets}} queued for a session (show_routing.pending_tun_*), as of the last tick. */
    private volatile long[] pendingTun = new long[2];
    private final String sessionMmpMode;
    private final DataPlane dataPlane;
    private final List<Transport> transports;
    private final AclWatcher acl;
    private final LongSupplier clock;
    private final boolean shared;
    private final long tickNanos;
    private final ArrayBlockingQueue<Runnable> requests = new ArrayBlockingQueue<>(REQUEST_QUEUE_CAPACITY);
    private final Thread thread;
    private volatile boolean stopRequested;
    private volatile boolean goodbye = true;
    private volatile long loopErrors;
    private long now;
    private final Consumer<DataPlaneEvent> toConductor;
    private final Function<NodeAddr, String> names;
    private final StatsSampler stats;
    private LongConsumer tickHook = now -> { };
    private Consumer<DataPlaneEvent.ForeignVersionReceived> foreignVersion = v -> { };

    ControlLoop(final LinkConductor conductor, final MeshControl mesh, final SessionLayer sessions,
                final DataPlane dataPlane,
                final List<Transport> transports, final AclWatcher acl, final LongSupplier clock,
                final boolean shared, final long tickNanos, final Function<NodeAddr, String> names,
                final String sessionMmpMode) {
        this.conductor = conductor;
        this.mesh = mesh;
        this.sessions = sessions;
        this.names = names;
        this.dataPlane = dataPlane;
        this.transports = List.copyOf(transports);
        this.acl = acl;
        this.clock = clock;
        this.shared = shared;
        this.tickNanos = Math.max(1, tickNanos);
        this.thread = Thread.ofPlatform().name("fips-control").daemon().unstarted(this);
        this.toConductor = e -> {
            if (e instanceof DataPlaneEvent.RoutingEvent r) {
                mesh.onRoutingEvent(r, now);
            } else if (e instanceof DataPlaneEvent.ForeignVersionReceived v) {
                foreignVersion.accept(v);
            } else if (sessions != null && sessions.onEvent(e, now)) {
                return;
            } else {
                conductor.onEvent(e, now);
            }
        };
        this.sessionMmpMode = sessionMmpMode;
        this.meshSnapshot = mesh.snapshot(names, clock.getAsLong(), System.currentTimeMillis());
        renderSessions(clock.getAsLong());
        this.stats = new StatsSampler(new StatsHistory(), conductor::snapshot, () -> meshSnapshot, transports);
    }

    /**
     * Adds what else runs on each 1 s tick, on this thread, right after the conductor's (Ethernet beacons, the other
     * media's discovery), after the hooks added before it. Call before {@link #start()}.
     */
    void onTick(final LongConsumer hook) {
        this.tickHook = this.tickHook.andThen(Objects.requireNonNull(hook, "hook"));
    }

    /**
     * Sets who hears of packets of another FMP version on an adopted NAT-traversal transport (Nostr discovery's
     * protocol-mismatch cooldown, discovery-gateway.md §1.12); run on this thread. Call before {@link #start()}.
     */
    void onForeignVersion(final Consumer<DataPlaneEvent.ForeignVersionReceived> handler) {
        this.foreignVersion = Objects.requireNonNull(handler, "handler");
    }

    /** @return the stats history's sampler (feed {@code active_sessions} through it) */
    StatsSampler stats() {
        return stats;
    }

    /** Starts the thread; the conductor belongs to it from now on. */
    void start() {
        thread.start();
    }

    /** Any thread: makes a parked control thread run a pass. */
    void wakeup() {
        LockSupport.unpark(thread);
    }

    /**
     * Any thread: queues work for the control thread.
     *
     * @return false when the queue is full
     */
    boolean submit(final Runnable request) {
        if (!requests.offer(request)) {
            return false;
        }
        wakeup();
        return true;
    }

    /** @return the routing layers (control thread only: use through {@link #submit}) */
    MeshControl mesh() {
        return mesh;
    }

    private void renderSessions(final long nowNanos) {
        if (sessions == null) {
            final ObjectNode empty =
                    JsonNodeFactory.instance.objectNode();
            empty.putArray("sessions");
            sessionsSnapshot = empty;
            sessionsMmpSnapshot = JsonNodeFactory.instance.arrayNode();
            return;
        }
        sessionsSnapshot = sessions.renderSessions(names, nowNanos, System.currentTimeMillis());
        sessionsMmpSnapshot = sessions.renderMmp(names, sessionMmpMode);
        pendingTun = new long[] {sessions.sessions().queuedDestinations(), sessions.sessions().queuedPackets()};
    }

    /**
     * @return {@code {destinations, packets}} of outbound TUN packets queued for a session or a lookup, as of the
     *     last tick (any thread; do not modify); both 0 when the node runs without a session layer (nothing queues)
     */
    long[] pendingTun() {
        return pendingTun;
    }

    /** @return show_sessions data of the last tick (any thread; do not modify) */
    ObjectNode sessionsSnapshot() {
        return sessionsSnapshot;
    }

    /** @return the session half of show_mmp of the last tick (any thread; do not modify) */
    ArrayNode sessionsMmpSnapshot() {
        return sessionsMmpSnapshot;
    }

    /** @return the session layer (control thread only), or null when the node runs without it */
    SessionLayer sessions() {
        return sessions;
    }

    /** @return the routing layers' snapshot of the last tick (any thread) */
    MeshSnapshot meshSnapshot() {
        return meshSnapshot;
    }

    /** @return unexpected exceptions caught in the loop (a bug if ever non-zero) */
    long loopErrors() {
        return loopErrors;
    }

    /**
     * Stops the thread and waits for it.
     *
     * @param sayGoodbye send Disconnect(Shutdown) to every peer and let the data plane send it first; false
     *                   stops silently, as a crash would
     */
    void stop(final boolean sayGoodbye) {
        goodbye = sayGoodbye;
        stopRequested = true;
        wakeup();
        try {
            thread.join(JOIN_TIMEOUT_MS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(Level.WARNING, "control thread did not stop within {0} ms", JOIN_TIMEOUT_MS);
        }
    }

    @Override
    public void run() {
        now = clock.getAsLong();
        long nextTick = now;
        long nextAclPoll = now + ACL_POLL_NANOS;
        while (!stopRequested) {
            try {
                now = clock.getAsLong();
                int work = shared ? dataPlane.doWork() : 0;
                work += dataPlane.drainEvents(toConductor);
                Runnable r;
                while ((r = requests.poll()) != null) {
                    r.run();
                    work++;
                }
                if (conductor.doWork(now) > 0) {
                    nextTick = now + tickNanos;
                    tickHook.accept(now);
                    // Rendered once per tick: show_tree and friends are at most one tick old, as in the reference.
                    meshSnapshot = mesh.snapshot(names, now, System.currentTimeMillis());
                    renderSessions(now);
                    // Right after the tick published the link snapshot, so each sample sees fresh counters.
                    stats.maybeSample(now);
                }
                mesh.flush();
                if (now - nextAclPoll >= 0) {
                    pollAcl();
                    nextAclPoll = now + ACL_POLL_NANOS;
                }
                if (work == 0) {
                    long park = Math.min(nextTick - now, nextAclPoll - now);
                    if (shared) {
                        park = Math.min(park, SHARED_IDLE_NANOS);
                    }
                    if (park > 0) {
                        LockSupport.parkNanos(this, park);
                    }
                }
            } catch (final RuntimeException e) {
                // A bug in one pass must not silently stop the node's only control thread.
                loopErrors++;
                LOG.log(Level.ERROR, "control loop: unexpected error (continuing)", e);
                LockSupport.parkNanos(this, 10_000_000L);
            }
        }
        if (goodbye) {
            sayGoodbye();
        }
    }

    private void sayGoodbye() {
        try {
            final long sentBefore = packetsOut();
            final long disconnectsBefore = conductor.snapshot().counter(LinkCounter.DISCONNECTS_SENT);
            conductor.shutdown();
            final long disconnects = conductor.snapshot().counter(LinkCounter.DISCONNECTS_SENT) - disconnectsBefore;
            // The Disconnects are queued to the workers; give the transmit side a moment to put them on the wire.
            final long deadline = System.nanoTime() + FLUSH_TIMEOUT_NANOS;
            while (packetsOut() - sentBefore < disconnects && System.nanoTime() - deadline < 0) {
                if (shared) {
                    dataPlane.doWork();
                } else {
                    LockSupport.parkNanos(1_000_000L);
                }
            }
            if (disconnects > 0) {
                LOG.log(Level.INFO, "sent Disconnect to {0} peer(s)", String.valueOf(disconnects));
            }
        } catch (final RuntimeException e) {
            LOG.log(Level.WARNING, "shutdown: could not say goodbye to every peer", e);
        }
    }

    private long packetsOut() {
        long sum = 0;
        for (final Transport t : transports) {
            sum += Math.max(0, TransportCounters.packetsSent(t.stats()));
        }
        return sum;
    }

    private void pollAcl() {
        final AclWatcher.PollResult r = acl.pollForChanges();
        switch (r.outcome()) {
            case UNCHANGED -> {
            }
            case RELOADED -> {
                LOG.log(Level.INFO, "peer ACL reloaded: {0}", acl.current().effectiveMode());
                logProblems(r.problems());
            }
            case REJECTED -> {
                LOG.log(Level.WARNING, "peer ACL change rejected; the previous ACL stays in force");
                logProblems(r.problems());
            }
        }
    }

    static void logProblems(final List<AclProblem> problems) {
        for (final AclProblem p : problems) {
            LOG.log(Level.WARNING, "peer ACL: {0}", p);
        }
    }
}
