package net.fips.dataplane.engine;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.AgentRunner;
import net.fips.dataplane.agent.BackoffIdleStrategy;
import net.fips.dataplane.agent.IdleStrategy;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.tun.TunCoalescer;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunWriter;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.WakeFd;

/**
 * The agents of a started {@link DataPlane}, the rings between them and the threads that run them: built by
 * {@link DataPlane#start()} (see the diagram there), stopped by {@link #close()}.
 *
 * <ul>
 * <li>one SPSC ring per (transport, worker) each way, one per ordered pair of workers (forwards and session
 * deliveries handed over), one per worker from the TUN reader, one MPSC ring per worker from local senders;</li>
 * <li>a receive agent and a transmit agent per UDP transport, a {@link LoopPort} per transport that runs its own
 * loop, the workers, the TUN reader;</li>
 * <li>threads as {@link ThreadingMode} says: an {@link AgentRunner} per agent, one {@link CompactRunner}, or
 * none (the caller runs {@link #doWork()}).</li>
 * </ul>
 */
final class AgentSet {
    private final DataPlaneContext ctx;
    private final Transport[] transports;
    private final TunDevice tun;
    private final boolean dedicated;
    private final boolean compact;
    /** COMPACT: the eventfd the one thread polls; else null. */
    private final WakeFd compactWake;
    /** COMPACT: the signal every agent shares; else null. */
    private final WakeSignal compactSignal;
    /** Per transport: its receive agent (UDP), else null. */
    final RxAgent[] rx;
    /** Per transport: its transmit agent (UDP), else null. */
    final TxAgent[] tx;
    /** Per transport: its port (a transport with its own loop), else null. */
    final LoopPort[] ports;
    /** Per transport: frames held for link indices being installed (see {@link LinkFrameHold}). */
    final LinkFrameHold[] linkHolds;
    final WorkerAgent[] workers;
    /** Per worker: the ring local senders hand it slots through. */
    final MpscSlotRing[] callerRings;
    final WakeSignal[] workerSignals;
    private final TunRxAgent tunRx;
    /** Every agent in the order of one duty cycle: receive, TUN, workers, transmit. */
    private final List<Agent> agents = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private CompactRunner compactRunner;

    /**
     * Builds every ring and agent; starts nothing.
     *
     * @param tunArena    where the TUN writers live (closed by the data plane)
     * @param newCounters a fresh counter set for each agent, registered with the data plane
     */
    AgentSet(final DataPlaneContext ctx, final PacketPool pool, final Transport[] transports, final TunDevice tun,
             final Arena tunArena, final IndexTableHolder table, final EventQueue events,
             final ForwardingTableHolder routes, final Supplier<Counters> newCounters) {
        this.ctx = ctx;
        this.transports = transports;
        this.tun = tun;
        this.dedicated = ctx.threadingMode() == ThreadingMode.DEDICATED;
        this.compact = ctx.threadingMode() == ThreadingMode.COMPACT;
        final int t = transports.length;
        final int w = ctx.workerCount();
        final int ring = ctx.ringCapacity();
        final MemorySegment[] slotSource = new MemorySegment[pool.capacity()];
        for (int i = 0; i < slotSource.length; i++) {
            slotSource[i] = pool.slotSegment(i).asSlice(SlotMeta.SOURCE_OFFSET, SlotMeta.SOURCE_MAX_BYTES);
        }
        final EngineShared shared = new EngineShared(ctx, pool, transports,
                new TransportDestination[pool.capacity()], slotSource, table, events, routes);
        final SpscSlotRing[][] rxToWorker = new SpscSlotRing[t][w];
        final SpscSlotRing[][] workerToTx = new SpscSlotRing[w][t];
        for (int i = 0; i < t; i++) {
            for (int j = 0; j < w; j++) {
                rxToWorker[i][j] = new SpscSlotRing(ring);
                workerToTx[j][i] = new SpscSlotRing(ring);
            }
        }
        // Forwarded datagrams move from the worker of the inbound link to the worker of the outbound one through
        // one ring per ordered pair, so each flow keeps its order.
        final SpscSlotRing[][] handoff = new SpscSlotRing[w][w];
        for (int a = 0; a < w; a++) {
            for (int b = 0; b < w; b++) {
                handoff[a][b] = a == b ? null : new SpscSlotRing(ring);
            }
        }
        if (compact) {
            try {
                compactWake = WakeFd.open();
            } catch (final ErrnoException e) {
                throw new IllegalStateException("no eventfd for the compact data-plane thread: " + e.getMessage(), e);
            }
        } else {
            compactWake = null;
        }
        // COMPACT: one thread consumes every ring, so every producer wakes it through the one signal
        compactSignal = compact ? new WakeSignal(compactWake::wake) : null;
        workerSignals = new WakeSignal[w];
        for (int j = 0; j < w; j++) {
            workerSignals[j] = compact ? compactSignal : new WakeSignal();
        }
        final WakeSignal[] txSignals = new WakeSignal[t];
        for (int i = 0; i < t; i++) {
            txSignals[i] = compact ? compactSignal : new WakeSignal();
        }
        final SpscSlotRing[] tunToWorker = new SpscSlotRing[w];
        if (tun != null) {
            for (int j = 0; j < w; j++) {
                tunToWorker[j] = new SpscSlotRing(ring);
            }
            tunRx = new TunRxAgent(tun, pool, tunToWorker, workerSignals, newCounters.get(), ctx.batch(),
                    dedicated ? 1000 : 0);
        } else {
            tunRx = null;
        }
        rx = new RxAgent[t];
        tx = new TxAgent[t];
        ports = new LoopPort[t];
        linkHolds = new LinkFrameHold[t];
        for (int i = 0; i < t; i++) {
            linkHolds[i] = new LinkFrameHold(pool, pool.capacity(), ctx.nanoClock());
        }
        workers = new WorkerAgent[w];
        callerRings = new MpscSlotRing[w];
        for (int i = 0; i < t; i++) {
            if (transports[i].drive() == Transport.Drive.DATA_PLANE_AGENTS) {
                final UdpTransport udp = UdpTransport.agentDriven(transports[i]);
                // A dedicated receive thread sleeps in poll; close() wakes it, the timeout is only a safety net.
                rx[i] = new RxAgent(i, udp, pool, rxToWorker[i], table, linkHolds[i], events, newCounters.get(),
                        ctx.batch(), dedicated ? 1000 : 0, workerSignals);
            } else {
                final SpscSlotRing[] out = new SpscSlotRing[w];
                for (int j = 0; j < w; j++) {
                    out[j] = workerToTx[j][i];
                }
                ports[i] = new LoopPort(i, transports[i], pool, rxToWorker[i], workerSignals, table, linkHolds[i],
                        events, newCounters.get(), out, ring, shared.slotDestination());
            }
        }
        for (int j = 0; j < w; j++) {
            final SpscSlotRing[] in = new SpscSlotRing[t];
            for (int i = 0; i < t; i++) {
                in[i] = rxToWorker[i][j];
            }
            callerRings[j] = new MpscSlotRing(ring);
            final SpscSlotRing[] fromWorkers = new SpscSlotRing[w];
            for (int a = 0; a < w; a++) {
                fromWorkers[a] = handoff[a][j];
            }
            final Ipv6Sink sink;
            if (tun != null) {
                final TunWriter writer = tun.newWriter(tunArena);
                // header mode: TCP segments of one flow are coalesced into one write (the kernel takes GSO writes
                // whatever TUNSETOFFLOAD accepted); plain mode: one write per packet
                sink = writer.vnetHeader() ? new TunCoalescer(writer, tunArena) : writer::write;
            } else {
                sink = ctx.ipv6SinkSupplier() == null ? null : ctx.ipv6SinkSupplier().get();
            }
            workers[j] = new WorkerAgent(j, shared, ctx.cipherSupplier().get(), in, callerRings[j], workerToTx[j],
                    newCounters.get(), workerSignals[j], txSignals, handoff[j], fromWorkers, workerSignals,
                    tunToWorker[j], sink);
        }
        for (int i = 0; i < t; i++) {
            if (transports[i].drive() != Transport.Drive.DATA_PLANE_AGENTS) {
                continue;
            }
            final UdpTransport udp = UdpTransport.agentDriven(transports[i]);
            final SpscSlotRing[] in = new SpscSlotRing[w];
            for (int j = 0; j < w; j++) {
                in[j] = workerToTx[j][i];
            }
            tx[i] = new TxAgent(i, udp, pool, in, shared.slotDestination(), newCounters.get(), ctx.batch(),
                    txSignals[i]);
        }
        for (final RxAgent r : rx) {
            if (r != null) {
                agents.add(r);
            }
        }
        if (tunRx != null) {
            agents.add(tunRx);
        }
        agents.addAll(List.of(workers));
        for (final TxAgent x : tx) {
            if (x != null) {
                agents.add(x);
            }
        }
    }

    /**
     * Starts the transports that run their own loop, with their ports.
     *
     * @throws IllegalStateException when one does not start (those started before it are stopped again)
     */
    void startTransports() {
        final int t = transports.length;
        for (int i = 0; i < t; i++) {
            if (ports[i] != null) {
                try {
                    transports[i].start(ports[i]);
                } catch (final IOException e) {
                    for (int k = 0; k < i; k++) {
                        if (ports[k] != null) {
                            transports[k].stop();
                        }
                    }
                    if (compactWake != null) {
                        compactWake.close();
                    }
                    throw new IllegalStateException(transports[i].typeName() + " transport " + i
                            + " did not start: " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * Starts the threads: one per agent in {@link ThreadingMode#DEDICATED}, one for all in
     * {@link ThreadingMode#COMPACT}, none in {@link ThreadingMode#SHARED}.
     */
    void startThreads(final AgentRunner.ErrorHandler errors) {
        if (dedicated) {
            for (final Agent a : agents) {
                // The receive agents block in the kernel instead of idling; the others back off, then park until
                // signalled (the receive agents have no signal: they only back off when the pool is exhausted).
                final IdleStrategy idle = a instanceof RxAgent || a instanceof TunRxAgent ? new BackoffIdleStrategy()
                        : ctx.idleStrategySupplier().get();
                final AgentRunner r = new AgentRunner(a, idle, ctx.idleParkBoundNs(), errors);
                runners.add(r);
                r.start();
            }
        } else if (compact) {
            final List<Integer> fds = new ArrayList<>();
            for (final Transport x : transports) {
                if (x.drive() == Transport.Drive.DATA_PLANE_AGENTS) {
                    fds.add(UdpTransport.agentDriven(x).fileDescriptor());
                }
            }
            if (tun != null) {
                fds.add(tun.fileDescriptor());
            }
            compactRunner = new CompactRunner(agents, fds.stream().mapToInt(Integer::intValue).toArray(), tunRx,
                    compactSignal, compactWake, ctx.idleStrategySupplier().get(), ctx.idleParkBoundNs(),
                    errors);
            compactRunner.start();
        }
    }

    /** {@link ThreadingMode#SHARED}: one duty cycle of every agent. @return the units of work done */
    int doWork() {
        int work = 0;
        for (final Agent a : agents) {
            work += a.doWork();
        }
        return work;
    }

    /** @return the names of the threads started (none in SHARED, one in COMPACT) */
    List<String> threadNames() {
        if (compactRunner != null) {
            return List.of(CompactRunner.THREAD_NAME);
        }
        final List<String> names = new ArrayList<>();
        if (!runners.isEmpty()) {
            for (final Agent a : agents) {
                names.add(a.roleName());
            }
        }
        return names;
    }

    /** @return the compact thread's runner, or null when the mode is not {@link ThreadingMode#COMPACT} */
    CompactRunner compactRunner() {
        return compactRunner;
    }

    /**
     * Stops every agent, receive first (the loop transports stop reading and hand back their slots), then the
     * agents' threads (or, without threads, runs each agent's {@link Agent#onClose()}), then the ports.
     */
    void close() {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] != null) {
                transports[i].stop();
            }
        }
        if (compactRunner != null) {
            compactRunner.close();
        } else if (runners.isEmpty()) {
            for (final Agent a : agents) {
                a.onClose();
            }
        } else {
            for (final AgentRunner r : runners) {
                r.close();
            }
        }
        for (final LoopPort p : ports) {
            if (p != null) {
                p.onClose();
            }
        }
    }
}
