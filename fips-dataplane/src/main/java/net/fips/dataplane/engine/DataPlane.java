package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.SessionStats;
import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.wire.NodeAddr;

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
    private static final System.Logger LOG = System.getLogger(DataPlane.class.getName());

    private enum State { NEW, RUNNING, CLOSED }

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
    private final List<Counters> counters = new ArrayList<>();
    private final Counters controlCounters = new Counters();
    /** The agents, rings and threads, once started. */
    private AgentSet agentSet;
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
        final AgentSet set = new AgentSet(ctx, pool, transportList.toArray(new Transport[0]), tun, tunArena, table,
                events, routes, this::newCounters);
        // Assigned before the transports start: a close() after a failed start clears the holds.
        linkHolds = set.linkHolds;
        set.startTransports();
        agentSet = set;
        tx = set.tx;
        ports = set.ports;
        workers = set.workers;
        callerRings = set.callerRings;
        workerSignals = set.workerSignals;
        state = State.RUNNING;
        set.startThreads(this::onAgentError);
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
        return agentSet.doWork();
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
        install(transportId, spec.ourIndex(), spec.linkId(), held -> new WorkerCommand.AddLink(link, held));
    }

    /**
     * Registers {@code ourIndex} for dispatch to {@code linkId}'s worker, queueing the install command first; the
     * frames the transport held for the index so far travel inside that command (opened first), and none can be
     * held after ({@link LinkFrameHold#install}).
     */
    private void install(final int transportId, final int ourIndex, final long linkId,
                         final Function<int[], WorkerCommand> command) {
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
                held -> new WorkerCommand.InstallPending(linkId, link.transportId, session, held));
    }

    @Override
    public void cutover(final long linkId, final long sessionStartNanos) {
        checkRunning();
        worker(linkId).enqueue(new WorkerCommand.Cutover(linkId, sessionStartNanos));
    }

    @Override
    public void dropPrevious(final long linkId) {
        checkRunning();
        worker(linkId).enqueue(new WorkerCommand.DropPrevious(linkId));
    }

    @Override
    public void setLinkCongested(final long linkId, final boolean congested) {
        checkRunning();
        worker(linkId).enqueue(new WorkerCommand.SetCongested(linkId, congested));
    }

    @Override
    public void removeLink(final long linkId) {
        checkRunning();
        if (links.remove(linkId) != null) {
            worker(linkId).enqueue(new WorkerCommand.RemoveLink(linkId));
        }
    }

    @Override
    public void sendLinkMessage(final long linkId, final byte[] message) {
        checkRunning();
        worker(linkId).enqueue(new WorkerCommand.SendLinkMessage(linkId, message.clone()));
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
        sessionWorker(spec.remote()).enqueue(new WorkerCommand.AddSession(s));
    }

    @Override
    public void installSessionPending(final NodeAddr remote, final byte[] sendKey, final byte[] recvKey) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.InstallSessionPending(remote, sendKey.clone(),
                recvKey.clone()));
    }

    @Override
    public void cutoverSession(final NodeAddr remote, final long sessionStartNanos) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.CutoverSession(remote, sessionStartNanos));
    }

    @Override
    public void dropSessionPrevious(final NodeAddr remote) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.DropSessionPrevious(remote));
    }

    @Override
    public void removeSession(final NodeAddr remote) {
        checkRunning();
        sessions.remove(remote);
        sessionWorker(remote).enqueue(new WorkerCommand.RemoveSession(remote));
    }

    @Override
    public void setSessionWarmup(final NodeAddr remote, final int packets) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.SetSessionWarmup(remote, packets));
    }

    @Override
    public void lowerSessionPathMtu(final NodeAddr remote, final int pathMtu) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.LowerSessionPathMtu(remote, pathMtu));
    }

    @Override
    public void sendSessionMessage(final NodeAddr remote, final int msgType, final byte[] body,
                                   final boolean withCoords) {
        checkRunning();
        sessionWorker(remote).enqueue(new WorkerCommand.SendSessionMessage(remote, msgType,
                body == null ? null : body.clone(), withCoords));
    }

    @Override
    public void sendIpv6(final byte[] packet) {
        checkRunning();
        final byte[] copy = packet.clone();
        final int worker = Pinning.ofPacket(MemorySegment.ofArray(copy), 0, copy.length, workers.length);
        workers[worker].enqueue(new WorkerCommand.SendIpv6(copy));
    }

    @Override
    public void writeIpv6(final byte[] packet) {
        checkRunning();
        workers[0].enqueue(new WorkerCommand.WriteIpv6(packet.clone()));
    }

    /** @return the live figures of the session with {@code remote}, or null when there is none */
    public SessionStats sessionStats(final NodeAddr remote) {
        return sessions.get(remote);
    }

    private WorkerAgent sessionWorker(final NodeAddr remote) {
        return workers[Pinning.ofNode(remote, workers.length)];
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
        final int worker = Pinning.ofLink(linkId, callerRings.length);
        // release (inside offer): the worker sees the bytes and the metadata before the index
        if (!callerRings[worker].offer(slot)) {
            return false;
        }
        workerSignals[worker].wake();
        return true;
    }

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
        SlotMeta.linkId(seg, SlotMeta.IPV6_PACKET);
        final int worker = Pinning.ofPacket(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, length,
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
        return agentSet == null ? List.of() : agentSet.threadNames();
    }

    /** @return the compact thread's runner, or null when the mode is not {@link ThreadingMode#COMPACT} (tests) */
    CompactRunner compactRunner() {
        return agentSet == null ? null : agentSet.compactRunner();
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
            agentSet.close();
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
        return workers[Pinning.ofLink(linkId, workers.length)];
    }
}
