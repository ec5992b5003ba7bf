package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.tun.TunCoalescer;
import net.fips.dataplane.tun.TunWriter;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.SessionStats;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.WakeFd;

/**
 * The FMP data-plane engine: receive, open, deliver; frame, seal, send, for every established link of the node.
 *
 * <pre>
 *   UDP t:        fips-rx-t --(SPSC, by link id mod W)--> fips-worker-w --(SPSC)--> fips-tx-t
 *   other t:      t's own loop --(TransportPort.deliver)--> fips-worker-w --(SPSC)--> t's own loop
 *   callers:      sendDatagram --(MPSC)--> fips-worker-w
 *   control:      DataPlaneCommands --(command queue)--> owning agent;   events <--(bounded queue)-- agents
 * </pre>
 *
 * Packets live in one off-heap {@link PacketPool}; only slot indices cross the rings, and each slot has exactly one
 * owner at a time. Each link is pinned to one worker, which owns all its mutable state (single writer): the control
 * thread changes it only through commands, applied by that worker in call order. Established frames are dispatched
 * through an immutable {@link IndexTable} that is replaced copy-on-write; handshakes and non-data link messages
 * reach the control plane as {@link DataPlaneEvent}s, SessionDatagrams the {@link net.fips.dataplane.LocalDelivery}
 * hook.
 *
 * <p>Lifecycle: construct from a {@link DataPlaneContext}, {@link #addTransport} each transport, {@link #start()},
 * then issue commands; {@link #close()} stops the threads and closes the transports and the pool. In
 * {@link ThreadingMode#SHARED} no thread is started and the caller runs {@link #doWork()}; in
 * {@link ThreadingMode#COMPACT} one thread runs all the agents (see {@link CompactRunner}).
 *
 * <p>Command methods are for the one control thread; {@link #sendDatagram} may be called from any thread.
 */
public final class DataPlane implements DataPlaneCommands, AutoCloseable {
    /** Unsigned little-endian 32-bit field, as FMP writes them. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Little-endian 16-bit field. */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Unsigned little-endian 64-bit field. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final System.Logger LOG = System.getLogger(DataPlane.class.getName());

    private enum State { NEW, RUNNING, CLOSED }

    /** What every agent shares, fixed at start. */
    record Shared(DataPlaneContext context, PacketPool pool, Transport[] transports,
                  TransportDestination[] slotDestination, MemorySegment[] slotSource, IndexTableHolder table,
                  EventQueue events, ForwardingTableHolder routes) {
    }

    private final DataPlaneContext ctx;
    private final PacketPool pool;
    private final EventQueue events;
    private final IndexTableHolder table = new IndexTableHolder();
    private final ForwardingTableHolder routes = new ForwardingTableHolder();
    private final List<Transport> transportList = new ArrayList<>();
    private final Map<Long, Link> links = new ConcurrentHashMap<>();
    private final Map<NodeAddr, FspSession> sessions = new ConcurrentHashMap<>();
    private final Arena tunArena = Arena.ofShared();
    private TunDevice tun;
    private TunRxAgent tunRx;
    private final List<Counters> counters = new ArrayList<>();
    private final List<Agent> agents = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private CompactRunner compactRunner;
    private final Counters controlCounters = new Counters();
    private RxAgent[] rx;
    private WorkerAgent[] workers;
    private TxAgent[] tx;
    private LoopPort[] ports;
    /** Per transport: frames held for link indices being installed (see {@link LinkFrameHold}). */
    private LinkFrameHold[] linkHolds = new LinkFrameHold[0];
    private MpscSlotRing[] callerRings;
    private WakeSignal[] workerSignals;
    private volatile Throwable agentFailure;
    private State state = State.NEW;

    /**
     * Allocates the pool and event queue; starts nothing.
     *
     * @param context settings; concluded here if it was not
     */
    public DataPlane(final DataPlaneContext context) {
        this.ctx = context.concluded() ? context : context.conclude();
        this.pool = new PacketPool(ctx.poolSlots(), ctx.maxMtuBytes());
        this.events = new EventQueue(ctx.eventQueueCapacity(), ctx.eventSignal());
        counters.add(controlCounters);
    }

    /**
     * Adds a transport; the data plane owns it from now on and closes it in {@link #close()}. A
     * {@link UdpTransport} is driven by this data plane's receive and send agents; any other transport gets
     * {@link Transport#start(net.fips.dataplane.transport.TransportPort)} with its port in {@link #start()} and runs
     * its own loop.
     *
     * @return the transport id to use in {@link LinkSpec}s and {@link #sendHandshake}
     * @throws IllegalStateException after {@link #start()}
     */
    public synchronized int addTransport(final Transport transport) {
        if (state != State.NEW) {
            throw new IllegalStateException("transports are added before start()");
        }
        if (transport.mtu() > pool.maxMtuBytes()) {
            throw new IllegalArgumentException("transport MTU " + transport.mtu() + " exceeds the pool's "
                    + pool.maxMtuBytes());
        }
        transportList.add(Objects.requireNonNull(transport));
        return transportList.size() - 1;
    }

    /**
     * Attaches the TUN device as the IPv6 side of the session path: a receive agent reads it and hands packets to
     * the workers, and each worker writes decrypted packets to it with its own writer. The data plane does not
     * close the device (its opener does, after {@link #close()}).
     *
     * @throws IllegalStateException after {@link #start()}, or when the session path is off
     */
    public synchronized void attachTun(final TunDevice device) {
        if (state != State.NEW) {
            throw new IllegalStateException("the TUN device is attached before start()");
        }
        if (!ctx.sessionPath()) {
            throw new IllegalStateException("the TUN device needs the session path (DataPlaneContext.sessionPath)");
        }
        if (device.mtu() > pool.maxMtuBytes()) {
            throw new IllegalArgumentException("TUN MTU " + device.mtu() + " exceeds the pool's " + pool.maxMtuBytes());
        }
        this.tun = Objects.requireNonNull(device);
    }

    /**
     * Builds the agents and starts their threads: one per agent in {@link ThreadingMode#DEDICATED}, one for all in
     * {@link ThreadingMode#COMPACT}, none in {@link ThreadingMode#SHARED}.
     */
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("already started");
        }
        final int t = transportList.size();
        final int w = ctx.workerCount();
        final int ring = ctx.ringCapacity();
        final Transport[] transports = transportList.toArray(new Transport[0]);
        final MemorySegment[] slotSource = new MemorySegment[pool.capacity()];
        for (int i = 0; i < slotSource.length; i++) {
            slotSource[i] = pool.slotSegment(i).asSlice(SlotMeta.SOURCE_OFFSET, SlotMeta.SOURCE_MAX_BYTES);
        }
        final Shared shared = new Shared(ctx, pool, transports, new TransportDestination[pool.capacity()],
                slotSource, table, events, routes);
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
        final boolean dedicated = ctx.threadingMode() == ThreadingMode.DEDICATED;
        final boolean compact = ctx.threadingMode() == ThreadingMode.COMPACT;
        final WakeFd compactWake;
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
        final WakeSignal compactSignal = compact ? new WakeSignal(compactWake) : null;
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
            tunRx = new TunRxAgent(tun, pool, tunToWorker, workerSignals, newCounters(), ctx.batch(),
                    dedicated ? 1000 : 0);
        }
        rx = new RxAgent[t];
        tx = new TxAgent[t];
        ports = new LoopPort[t];
        final LinkFrameHold[] holds = new LinkFrameHold[t];
        for (int i = 0; i < t; i++) {
            holds[i] = new LinkFrameHold(pool, ctx.nanoClock());
        }
        linkHolds = holds;
        workers = new WorkerAgent[w];
        callerRings = new MpscSlotRing[w];
        for (int i = 0; i < t; i++) {
            if (transports[i].drive() == Transport.Drive.DATA_PLANE_AGENTS) {
                final UdpTransport udp = UdpTransport.agentDriven(transports[i]);
                // A dedicated receive thread sleeps in poll; close() wakes it, the timeout is only a safety net.
                rx[i] = new RxAgent(i, udp, pool, rxToWorker[i], table, holds[i], events, newCounters(),
                        ctx.batch(), dedicated ? 1000 : 0, workerSignals);
            } else {
                final SpscSlotRing[] out = new SpscSlotRing[w];
                for (int j = 0; j < w; j++) {
                    out[j] = workerToTx[j][i];
                }
                ports[i] = new LoopPort(i, transports[i], pool, rxToWorker[i], workerSignals, table, holds[i], events,
                        newCounters(), out, ring, shared.slotDestination());
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
                    newCounters(), workerSignals[j], txSignals, handoff[j], fromWorkers, workerSignals,
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
            tx[i] = new TxAgent(i, udp, pool, in, shared.slotDestination(), newCounters(), ctx.batch(),
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
        for (int i = 0; i < t; i++) {
            if (ports[i] != null) {
                try {
                    transports[i].start(ports[i]);
                } catch (final java.io.IOException e) {
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
        state = State.RUNNING;
        if (dedicated) {
            for (final Agent a : agents) {
                // The receive agents block in the kernel instead of idling; the others back off, then park until
                // signalled (the receive agents have no signal: they only back off when the pool is exhausted).
                final IdleStrategy idle = a instanceof RxAgent || a instanceof TunRxAgent ? new BackoffIdleStrategy()
                        : ctx.idleStrategySupplier().get();
                final AgentRunner r = new AgentRunner(a, idle, ctx.idleParkBoundNs(), this::onAgentError);
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
                    this::onAgentError);
            compactRunner.start();
        }
    }

    private Counters newCounters() {
        final Counters c = new Counters();
        counters.add(c);
        return c;
    }

    private void onAgentError(final Agent agent, final Throwable error) {
        agentFailure = error;
        LOG.log(System.Logger.Level.ERROR, "data-plane agent " + agent.roleName() + " failed; it has stopped", error);
    }

    /**
     * {@link ThreadingMode#SHARED} only: one duty cycle of every agent (receive, workers, transmit), never blocking.
     *
     * @return units of work done; 0 when there was nothing to do
     */
    public int doWork() {
        if (ctx.threadingMode() != ThreadingMode.SHARED || state != State.RUNNING) {
            throw new IllegalStateException("doWork() is for a started data plane in SHARED mode");
        }
        int work = 0;
        for (final Agent a : agents) {
            work += a.doWork();
        }
        return work;
    }

    // ------------------------------------------------------------------ commands

    @Override
    public void addLink(final LinkSpec spec) {
        checkRunning();
        final int transportId = spec.transportId();
        final Transport transport = transport(transportId);
        if (links.containsKey(spec.linkId())) {
            throw new IllegalArgumentException("link " + spec.linkId() + " already exists");
        }
        final TransportDestination destination;
        try {
            destination = transport.destination(spec.remote());
        } catch (final TransportException e) {
            throw new IllegalArgumentException("link " + spec.linkId() + ": " + e.getMessage(), e);
        }
        final LinkSession session = new LinkSession(spec.ourIndex(), spec.theirIndex(), spec.sendKey(),
                spec.recvKey());
        final Link link = new Link(spec.linkId(), transportId, destination, session, spec.sessionStartNanos(),
                ctx.nanoClock().getAsLong());
        links.put(spec.linkId(), link);
        install(transportId, spec.ourIndex(), spec.linkId(), held -> new WorkerAgent.AddLink(link, held));
    }

    /**
     * Registers {@code ourIndex} for dispatch to {@code linkId}'s worker, queueing the install command first; the
     * frames the transport held for the index so far travel inside that command (opened first), and none can be
     * held after ({@link LinkFrameHold#install}).
     */
    private void install(final int transportId, final int ourIndex, final long linkId,
                         final Function<int[], WorkerAgent.Command> command) {
        linkHolds[transportId].install(table, IndexTable.key(transportId, ourIndex), ourIndex, linkId,
                held -> worker(linkId).enqueue(command.apply(held)));
    }

    @Override
    public void installPending(final long linkId, final int ourIndex, final int theirIndex, final byte[] sendKey,
                               final byte[] recvKey) {
        checkRunning();
        final Link link = links.get(linkId);
        if (link == null) {
            controlCounters.increment(DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        final LinkSession session = new LinkSession(ourIndex, theirIndex, sendKey, recvKey);
        install(link.transportId, ourIndex, linkId,
                held -> new WorkerAgent.InstallPending(linkId, link.transportId, session, held));
    }

    @Override
    public void cutover(final long linkId, final long sessionStartNanos) {
        checkRunning();
        worker(linkId).enqueue(new WorkerAgent.Cutover(linkId, sessionStartNanos));
    }

    @Override
    public void dropPrevious(final long linkId) {
        checkRunning();
        worker(linkId).enqueue(new WorkerAgent.DropPrevious(linkId));
    }

    @Override
    public void setLinkCongested(final long linkId, final boolean congested) {
        checkRunning();
        worker(linkId).enqueue(new WorkerAgent.SetCongested(linkId, congested));
    }

    @Override
    public void removeLink(final long linkId) {
        checkRunning();
        if (links.remove(linkId) != null) {
            worker(linkId).enqueue(new WorkerAgent.RemoveLink(linkId));
        }
    }

    @Override
    public void sendLinkMessage(final long linkId, final byte[] message) {
        checkRunning();
        worker(linkId).enqueue(new WorkerAgent.SendLinkMessage(linkId, message.clone()));
    }

    @Override
    public void sendHandshake(final int transportId, final TransportAddr to, final byte[] packet) {
        checkRunning();
        transport(transportId);
        if (tx[transportId] != null) {
            tx[transportId].enqueue(new TxAgent.Handshake(to, packet.clone()));
        } else {
            ports[transportId].enqueueHandshake(to, packet);
        }
    }

    // ------------------------------------------------------------------ end-to-end sessions

    @Override
    public void addSession(final SessionSpec spec) {
        checkRunning();
        final FspSession s = FspSession.of(spec, ctx.nanoClock().getAsLong());
        sessions.put(spec.remote(), s);
        sessionWorker(spec.remote()).enqueue(new WorkerAgent.AddSession(s));
    }

    @Override
    public void installSessionPending(final NodeAddr remote, final byte[] sendKey, final byte[] recvKey) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.InstallSessionPending(remote, sendKey.clone(),
                recvKey.clone()));
    }

    @Override
    public void cutoverSession(final NodeAddr remote, final long sessionStartNanos) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.CutoverSession(remote, sessionStartNanos));
    }

    @Override
    public void dropSessionPrevious(final NodeAddr remote) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.DropSessionPrevious(remote));
    }

    @Override
    public void removeSession(final NodeAddr remote) {
        checkRunning();
        sessions.remove(remote);
        sessionWorker(remote).enqueue(new WorkerAgent.RemoveSession(remote));
    }

    @Override
    public void setSessionWarmup(final NodeAddr remote, final byte[] cpCoords, final int packets) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.SetSessionWarmup(remote,
                cpCoords == null ? null : cpCoords.clone(), packets));
    }

    @Override
    public void lowerSessionPathMtu(final NodeAddr remote, final int pathMtu) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.LowerSessionPathMtu(remote, pathMtu));
    }

    @Override
    public void sendSessionMessage(final NodeAddr remote, final int msgType, final byte[] body,
                                   final boolean withCoords) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerAgent.SendSessionMessage(remote, msgType,
                body == null ? null : body.clone(), withCoords));
    }

    @Override
    public void sendIpv6(final byte[] packet) {
        checkRunning();
        final byte[] copy = packet.clone();
        final int worker = SessionPath.workerOfPacket(MemorySegment.ofArray(copy), 0, copy.length, workers.length);
        workers[worker].enqueue(new WorkerAgent.SendIpv6(copy));
    }

    @Override
    public void writeIpv6(final byte[] packet) {
        checkRunning();
        workers[0].enqueue(new WorkerAgent.WriteIpv6(packet.clone()));
    }

    /** @return the live figures of the session with {@code remote}, or null when there is none */
    public SessionStats sessionStats(final NodeAddr remote) {
        return sessions.get(remote);
    }

    private WorkerAgent sessionWorker(final NodeAddr remote) {
        return workers[SessionPath.workerOf(remote, workers.length)];
    }

    /** Any time, from the control thread; takes effect from each worker's next datagram. */
    @Override
    public void setForwardingTable(final ForwardingTable forwardingTable) {
        routes.set(forwardingTable);
    }

    /** @return the forwarding table installed now, or null */
    public ForwardingTable forwardingTable() {
        return routes.get();
    }

    // ------------------------------------------------------------------ data path for local senders

    /**
     * Sends a SessionDatagram (a link message whose first byte is msg_type 0x00) to the link's peer, copying it
     * into a packet slot. Any thread. Nothing is counted when this returns false: the caller sees the refusal and
     * may retry (back-pressure) or drop.
     *
     * @param linkId the link
     * @param src    memory holding the datagram
     * @param offset where it starts in {@code src}
     * @param length its length including the type byte, at most the pool's MTU
     * @return false if no slot was free or the worker's queue is full
     */
    public boolean sendDatagram(final long linkId, final MemorySegment src, final long offset, final int length) {
        if (length < 1 || length > pool.maxMtuBytes()) {
            throw new IllegalArgumentException("datagram length " + length);
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            return false;
        }
        final MemorySegment seg = pool.slotSegment(slot);
        MemorySegment.copy(src, offset, seg, SlotDescriptor.DEFAULT_DATA_OFFSET, length);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, length);
        if (!sendDatagram(linkId, slot)) {
            pool.release(slot);
            return false;
        }
        return true;
    }

    /**
     * Zero-copy variant: sends the packet already in {@code slot} (acquired from {@link #pool()}, data offset and
     * length set, e.g. through a {@link net.fips.dataplane.pool.PacketView}). Ownership passes to the data plane
     * only when this returns true.
     *
     * @return false if the worker's queue is full (the caller still owns the slot)
     */
    public boolean sendDatagram(final long linkId, final int slot) {
        if (state != State.RUNNING) {
            throw new IllegalStateException("data plane not running");
        }
        SlotMeta.linkId(pool.slotSegment(slot), linkId);
        final int worker = workerOf(linkId, callerRings.length);
        // release (inside offer): the worker sees the bytes and the metadata before the index
        if (!callerRings[worker].offer(slot)) {
            return false;
        }
        workerSignals[worker].wake();
        return true;
    }

    /** {@link SlotMeta} link id marking a caller's slot as an IPv6 packet for the session path. */
    static final long IPV6_PACKET = Long.MIN_VALUE;

    /**
     * Sends an IPv6 packet through the session path as if it had been read from TUN, copying it into a packet
     * slot (what the TUN read does too); any thread, nothing allocated. A packet without a session reaches the
     * control plane as an {@link net.fips.dataplane.DataPlaneEvent.OutboundWithoutSession} event.
     *
     * @return false if no slot was free or the owning worker's queue is full (nothing counted: back-pressure)
     */
    public boolean sendIpv6(final MemorySegment src, final long offset, final int length) {
        if (length < 1 || length > pool.maxMtuBytes()) {
            throw new IllegalArgumentException("packet length " + length);
        }
        if (state != State.RUNNING) {
            throw new IllegalStateException("data plane not running");
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            return false;
        }
        final MemorySegment seg = pool.slotSegment(slot);
        MemorySegment.copy(src, offset, seg, SlotDescriptor.DEFAULT_DATA_OFFSET, length);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, length);
        SlotMeta.linkId(seg, IPV6_PACKET);
        final int worker = SessionPath.workerOfPacket(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, length,
                callerRings.length);
        // release (inside offer): the worker sees the bytes and the metadata before the index
        if (!callerRings[worker].offer(slot)) {
            pool.release(slot);
            return false;
        }
        workerSignals[worker].wake();
        return true;
    }

    // ------------------------------------------------------------------ observation

    /** @return the oldest undrained event, or null */
    public DataPlaneEvent pollEvent() {
        return events.poll();
    }

    /** @return how many events were handed to {@code sink} (everything queued at the time) */
    public int drainEvents(final Consumer<? super DataPlaneEvent> sink) {
        expireHeldFrames();
        return events.drain(sink);
    }

    /** Drops (and counts) frames held for link indices that no install took within the hold time. */
    private void expireHeldFrames() {
        for (final LinkFrameHold hold : linkHolds) {
            if (hold.active()) {
                controlCounters.add(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED, hold.expire());
            }
        }
    }

    /** @return the link's live statistics, or null if the link is unknown (removed, or never added) */
    public LinkStats linkStats(final long linkId) {
        return links.get(linkId);
    }

    /** @return a counter summed over all agents (a moment old while they run) */
    public long counter(final DataPlaneCounter counter) {
        if (counter == DataPlaneCounter.DROP_EVENT_QUEUE_FULL) {
            return events.dropped();
        }
        long sum = 0;
        for (final Counters c : counters) {
            sum += c.get(counter);
        }
        return sum;
    }

    /** @return the shared packet pool (for zero-copy {@link #sendDatagram(long, int)}) */
    public PacketPool pool() {
        return pool;
    }

    /** @return transport {@code transportId} */
    public Transport transport(final int transportId) {
        if (transportId < 0 || transportId >= transportList.size()) {
            throw new IllegalArgumentException("no transport " + transportId);
        }
        return transportList.get(transportId);
    }

    /**
     * @return transport {@code transportId}, which must be a {@link UdpTransport}
     * @throws IllegalArgumentException when there is no such transport or it is not UDP
     */
    public UdpTransport udpTransport(final int transportId) {
        final Transport t = transport(transportId);
        if (t.drive() == Transport.Drive.DATA_PLANE_AGENTS) {
            return UdpTransport.agentDriven(t);
        }
        throw new IllegalArgumentException("transport " + transportId + " is not UDP");
    }

    /** @return how many transports were added */
    public int transportCount() {
        return transportList.size();
    }

    /** @return how the agents are packed onto threads */
    public ThreadingMode threadingMode() {
        return ctx.threadingMode();
    }

    /**
     * @return the names of the data plane's own threads (none in {@link ThreadingMode#SHARED}, one in
     *         {@link ThreadingMode#COMPACT}); empty before {@link #start()}
     */
    public synchronized List<String> threadNames() {
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

    /** @return the compact thread's runner, or null when the mode is not {@link ThreadingMode#COMPACT} (tests) */
    CompactRunner compactRunner() {
        return compactRunner;
    }

    /** @return the first unexpected exception that stopped an agent thread, or null (a bug if ever set) */
    public Throwable agentFailure() {
        return agentFailure;
    }

    /** @return indices currently registered for dispatch */
    public int registeredIndices() {
        return table.lvTable().size();
    }

    /**
     * Stops every agent (receive first, so nothing new enters), returns their slots, closes the transports and
     * frees the pool. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        final boolean wasRunning = state == State.RUNNING;
        state = State.CLOSED;
        if (wasRunning) {
            // Receive first: the loop transports stop reading (and hand back their slots) before the agents stop.
            for (int i = 0; i < ports.length; i++) {
                if (ports[i] != null) {
                    transportList.get(i).stop();
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
        }
        if (wasRunning) {
            for (final LoopPort p : ports) {
                if (p != null) {
                    p.onClose();
                }
            }
        }
        for (final LinkFrameHold hold : linkHolds) {
            hold.clear();
        }
        for (final Transport t : transportList) {
            t.close();
        }
        pool.close();
        tunArena.close();
    }

    private void checkRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("data plane is " + state);
        }
    }

    private WorkerAgent worker(final long linkId) {
        return workers[workerOf(linkId, workers.length)];
    }

    /** The worker a link is pinned to. */
    static int workerOf(final long linkId, final int workers) {
        return (int) Math.floorMod(linkId, (long) workers);
    }

    /** Holds the published {@link ForwardingTable}: one writer (the control thread), acquire loads by workers. */
    static final class ForwardingTableHolder {
        private static final VarHandle TABLE;

        static {
            try {
                TABLE = MethodHandles.lookup().findVarHandle(ForwardingTableHolder.class, "table",
                        ForwardingTable.class);
            } catch (final ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused")
        private ForwardingTable table;

        ForwardingTable get() {
            return (ForwardingTable) TABLE.getAcquire(this);
        }

        void set(final ForwardingTable t) {
            TABLE.setRelease(this, t);
        }
    }

    /**
     * Holds the current {@link IndexTable}. Writers (the control thread adding indices, workers removing them)
     * are rare and serialise through a compare-and-set loop; readers do one acquire load per frame.
     */
    static final class IndexTableHolder {
        private static final VarHandle TABLE;

        static {
            try {
                TABLE = MethodHandles.lookup().findVarHandle(IndexTableHolder.class, "table", IndexTable.class);
            } catch (final ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused")
        private IndexTable table = IndexTable.EMPTY;

        IndexTable lvTable() {
            return (IndexTable) TABLE.getAcquire(this);
        }

        void add(final long key, final long linkId) {
            while (true) {
                final IndexTable t = lvTable();
                if (TABLE.compareAndSet(this, t, t.with(key, linkId))) {
                    return;
                }
            }
        }

        /** Removes {@code key} only while it still maps to {@code linkId}. */
        void remove(final long key, final long linkId) {
            while (true) {
                final IndexTable t = lvTable();
                if (t.get(key) != linkId) {
                    return;
                }
                if (TABLE.compareAndSet(this, t, t.without(key))) {
                    return;
                }
            }
        }
    }
}
