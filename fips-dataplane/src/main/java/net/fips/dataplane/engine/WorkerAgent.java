package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.PacketView;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.route.RouteClass;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.SessionSetup;
import net.fips.dataplane.wire.WireResult;

/**
 * An AEAD worker: owns the links pinned to it (link id mod worker count) and everything per link: sessions, keys,
 * replay windows, send counters, K bit, address. Being the only thread that touches them, it needs no locks, and a
 * link's frames stay in order in both directions.
 *
 * <p>Inbound (crypto-link.md §5.4, §5.11, §5.14): K-bit trial against the pending session with immediate cutover;
 * otherwise the session the index names (current, or previous while it drains); replay check, open in place with
 * the 16-byte header as AD, accept the counter only once authenticated; count consecutive failures; then liveness,
 * roaming, and dispatch on msg_type: SessionDatagrams to the {@link LocalDelivery} hook, other link messages to the
 * control plane as events.
 *
 * <p>Transit (routing-session.md §4.2), only while a {@link ForwardingTable} is installed: a SessionDatagram with
 * ttl 0 is dropped; coordinates it carries (SessionSetup, SessionAck, CP) are reported to the control plane and
 * used for this packet's routing; one addressed to us goes to the hook; otherwise {@link NextHop} picks the peer,
 * ttl is decremented, path_mtu folded with the peer's link MTU, and the datagram, already in place after the open,
 * is re-sealed in the same slot for the outbound link with the incoming CE flag - here if that link is pinned to
 * this worker, else after a handoff through the SPSC ring to its worker. No route: a counted drop and a
 * rate-limited {@link DataPlaneEvent.RoutingError}. Too big for the outbound transport's MTU once framed: a counted
 * drop ({@link DataPlaneCounter#DROP_FORWARD_MTU_EXCEEDED}) and a {@link DataPlaneEvent.ForwardMtuExceeded} under
 * the same per-destination rate limit.
 *
 * <p>Outbound: prepend the inner header (timestamp) and the FMP header in the slot's headroom, seal in place with
 * the current session, and pass the slot to the transport's tx agent.
 */
final class WorkerAgent implements Agent {
    /** Control-thread requests, applied here in order. */
    sealed interface Command {
    }

    /** @param held frames that arrived for the link's index before it was installed ({@link LinkFrameHold}) */
    record AddLink(Link link, int[] held) implements Command {
    }

    /** @param held frames that arrived for the pending index before it was installed */
    record InstallPending(long linkId, int transportId, LinkSession session, int[] held) implements Command {
    }

    record Cutover(long linkId, long sessionStartNanos) implements Command {
    }

    record DropPrevious(long linkId) implements Command {
    }

    record RemoveLink(long linkId) implements Command {
    }

    record SendLinkMessage(long linkId, byte[] message) implements Command {
    }

    record SetCongested(long linkId, boolean congested) implements Command {
    }

    record AddSession(FspSession session) implements Command {
    }

    record InstallSessionPending(NodeAddr remote, byte[] sendKey, byte[] recvKey) implements Command {
    }

    record CutoverSession(NodeAddr remote, long sessionStartNanos) implements Command {
    }

    record DropSessionPrevious(NodeAddr remote) implements Command {
    }

    record RemoveSession(NodeAddr remote) implements Command {
    }

    record SetSessionWarmup(NodeAddr remote, byte[] cpCoords, int packets) implements Command {
    }

    record LowerSessionPathMtu(NodeAddr remote, int pathMtu) implements Command {
    }

    record SendSessionMessage(NodeAddr remote, int msgType, byte[] body, boolean withCoords) implements Command {
    }

    record SendIpv6(byte[] packet) implements Command {
    }

    record WriteIpv6(byte[] packet) implements Command {
    }

    /** Handoff flag: a datagram for us whose session this worker owns (rather than a forward). */
    static final int HANDOFF_DELIVER = 1 << 16;
    /** Handoff flag: a datagram we originated (counted as sent, not as forwarded). */
    static final int HANDOFF_ORIGINATED = 1 << 17;

    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final int HEADER = FmpEstablishedHeader.SIZE;
    private static final int TAG = AeadCipher.TAG_BYTES;
    private static final int INNER = FmpInnerHeader.SIZE;
    private static final int TIMESTAMP = FmpInnerHeader.MSG_TYPE_OFFSET;
    private static final int SESSION_DATAGRAM = LinkMessageType.SESSION_DATAGRAM.code();
    private static final int DATAGRAM_HEADER = SessionDatagramHeader.SIZE;
    private static final ValueLayout.OfLong U64_BE = ValueLayout.JAVA_LONG_UNALIGNED
            .withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    /** Slots of the routing-error rate limiter (direct-mapped by destination). */
    private static final int ERROR_SLOTS = 1024;
    /** At most one routing error per destination per this interval (the reference's 100 ms). */
    static final long ROUTING_ERROR_INTERVAL_NANOS = 100_000_000L;
    private static final DataPlaneCounter[] ROUTE_COUNTERS = {
        DataPlaneCounter.ROUTE_DIRECT_PEER, DataPlaneCounter.ROUTE_TREE_UP, DataPlaneCounter.ROUTE_TREE_DOWN,
        DataPlaneCounter.ROUTE_TREE_DOWN_CROSS, DataPlaneCounter.ROUTE_CROSSLINK_DESCEND,
        DataPlaneCounter.ROUTE_CROSSLINK_ASCEND,
    };

    static {
        if (ROUTE_COUNTERS.length != RouteClass.values().length) {
            throw new ExceptionInInitializerError("one counter per route class");
        }
    }

    private final int id;
    private final PacketPool pool;
    private final PacketView view;
    private final AeadCipher cipher;
    private final SpscSlotRing[] fromRx;
    private final MpscSlotRing fromCallers;
    private final SpscSlotRing[] toTx;
    private final WakeSignal signal;
    private final WakeSignal[] txSignals;
    private final boolean[] txFed;
    private final Transport[] transports;
    /** Per transport: the transports that run their own loop (woken through {@link Transport#wakeup()}), else null. */
    private final Transport[] loopTransports;
    /** Per transport: its MTU (read once: the transport's MTU is fixed). */
    private final int[] transportMtu;
    private final TransportDestination[] slotDestination;
    private final MemorySegment[] slotSource;
    private final DataPlane.IndexTableHolder table;
    private final EventQueue events;
    private final Counters counters;
    private final LocalDelivery delivery;
    private final LongSupplier clock;
    /** {@link #clock} as read once in this duty cycle (see {@link #now()}); valid while {@link #cycleTimeValid}. */
    private long cycleNanos;
    private boolean cycleTimeValid;
    private final int failureLimit;
    private final int batch;
    private final Queue<Command> commands = new ConcurrentLinkedQueue<>();
    private final LinkMap links = new LinkMap();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment nonce;
    private final MemorySegment trialCopy;
    private final int[] drained;
    /** Held frames handed over with an install, opened once the commands of this round are applied. */
    private int[] released = new int[LinkFrameHold.MAX_FRAMES];
    private int releasedCount;
    private boolean releasing;
    private final DataPlane.ForwardingTableHolder routes;
    private final NextHop nextHop = new NextHop();
    private final SpscSlotRing[] toWorkers;
    private final SpscSlotRing[] fromWorkers;
    private final WakeSignal[] workerSignals;
    private final boolean[] workerFed;
    private final long[] coordHi;
    private final long[] coordLo;
    private final SpscSlotRing fromTun;
    private final SessionPath sessions;
    private final long[] errorAt = new long[ERROR_SLOTS];
    private final boolean[] errorSet = new boolean[ERROR_SLOTS];

    WorkerAgent(final int id, final DataPlane.Shared shared, final AeadCipher cipher, final SpscSlotRing[] fromRx,
                final MpscSlotRing fromCallers, final SpscSlotRing[] toTx, final Counters counters,
                final WakeSignal signal, final WakeSignal[] txSignals, final SpscSlotRing[] toWorkers,
                final SpscSlotRing[] fromWorkers, final WakeSignal[] workerSignals, final SpscSlotRing fromTun,
                final Ipv6Sink sink) {
        this.id = id;
        this.pool = shared.pool();
        this.view = pool.newView();
        this.cipher = cipher;
        this.fromRx = fromRx;
        this.fromCallers = fromCallers;
        this.toTx = toTx;
        this.signal = signal;
        this.txSignals = txSignals;
        this.txFed = new boolean[toTx.length];
        this.transports = shared.transports();
        this.loopTransports = new Transport[transports.length];
        this.transportMtu = new int[transports.length];
        for (int t = 0; t < transports.length; t++) {
            loopTransports[t] = transports[t] instanceof UdpTransport ? null : transports[t];
            transportMtu[t] = transports[t].mtu();
        }
        this.slotDestination = shared.slotDestination();
        this.slotSource = shared.slotSource();
        this.table = shared.table();
        this.events = shared.events();
        this.counters = counters;
        this.delivery = shared.context().localDelivery();
        this.clock = shared.context().nanoClock();
        this.failureLimit = shared.context().decryptFailureLimit();
        this.batch = shared.context().batch();
        this.nonce = arena.allocate(AeadCipher.NONCE_BYTES, 8);
        this.trialCopy = arena.allocate(pool.slotStrideBytes(), 64);
        this.drained = new int[batch];
        this.routes = shared.routes();
        this.toWorkers = toWorkers;
        this.fromWorkers = fromWorkers;
        this.workerSignals = workerSignals;
        this.workerFed = new boolean[toWorkers.length];
        final int maxCoords = pool.maxMtuBytes() / NodeAddr.SIZE + 1;
        this.coordHi = new long[maxCoords];
        this.coordLo = new long[maxCoords];
        this.fromTun = fromTun;
        if (shared.context().sessionPath()) {
            int transportMtu = Integer.MAX_VALUE;
            for (final Transport t : transports) {
                transportMtu = Math.min(transportMtu, t.mtu());
            }
            this.sessions = new SessionPath(pool, cipher, events, counters, this::now, sink, new SessionPath.Originator() {
                @Override
                public int nextHop(final ForwardingTable t, final long destHi, final long destLo, final long now) {
                    return nextHopOf(t, destHi, destLo, now);
                }

                @Override
                public boolean send(final ForwardingTable t, final int slot, final int peer) {
                    return sendOriginated(t, slot, peer);
                }
            },
                    transportMtu == Integer.MAX_VALUE ? pool.maxMtuBytes() : transportMtu, arena);
        } else {
            this.sessions = null;
        }
    }

    @Override
    public String roleName() {
        return "fips-worker-" + id;
    }

    /** Control thread (or a caller thread): queues a command. */
    void enqueue(final Command command) {
        commands.add(command);
        signal.wake();
    }

    @Override
    public WakeSignal wakeSignal() {
        return signal;
    }

    @Override
    public boolean hasPendingWork() {
        if (!commands.isEmpty() || fromCallers.size() > 0 || fromTun != null && !fromTun.isEmpty()) {
            return true;
        }
        for (final SpscSlotRing ring : fromRx) {
            if (!ring.isEmpty()) {
                return true;
            }
        }
        for (final SpscSlotRing ring : fromWorkers) {
            if (ring != null && !ring.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The injected clock, read at most once per duty cycle rather than two or three times per packet: the packets
     * of one cycle came in one batch, and their timestamps are milliseconds. A command applied mid-cycle (it may
     * carry a newer session start) makes the next call read the clock again, so time never runs backwards
     * against a start instant.
     */
    long now() {
        if (!cycleTimeValid) {
            cycleNanos = clock.getAsLong();
            cycleTimeValid = true;
        }
        return cycleNanos;
    }

    @Override
    public int doWork() {
        cycleTimeValid = false;
        int work = drainCommands();
        final int[] drained = this.drained;
        for (final SpscSlotRing ring : fromRx) {
            final int n = ring.drainTo(drained, batch);
            for (int i = 0; i < n; i++) {
                onInbound(drained[i]);
            }
            work += n;
        }
        for (final SpscSlotRing ring : fromWorkers) {
            if (ring == null) {
                continue;
            }
            final int n = ring.drainTo(drained, batch);
            for (int i = 0; i < n; i++) {
                onHandoff(drained[i]);
            }
            work += n;
        }
        int budget = txBudget();
        if (budget > 0) {
            final int n = fromCallers.drainTo(drained, budget);
            for (int i = 0; i < n; i++) {
                onOutbound(drained[i]);
            }
            work += n;
            budget -= n;
        }
        if (budget > 0 && fromTun != null) {
            final int n = fromTun.drainTo(drained, budget);
            for (int i = 0; i < n; i++) {
                onIpv6Outbound(drained[i]);
            }
            work += n;
        }
        if (sessions != null) {
            sessions.expireHeld();
            sessions.flushIpv6();
        }
        wakeFedTx();
        wakeFedWorkers();
        return work;
    }

    private void wakeFedWorkers() {
        final boolean[] fed = workerFed;
        for (int w = 0; w < fed.length; w++) {
            if (fed[w]) {
                fed[w] = false;
                workerSignals[w].wake();
            }
        }
    }

    /** Once per cycle rather than per frame: the tx loops' wake-up costs a fence each. */
    private void wakeFedTx() {
        final boolean[] fed = txFed;
        for (int t = 0; t < fed.length; t++) {
            if (fed[t]) {
                fed[t] = false;
                final Transport loop = loopTransports[t];
                if (loop == null) {
                    txSignals[t].wake();
                } else {
                    loop.wakeup();
                }
            }
        }
    }

    /**
     * How many locally originated packets to take this cycle: no more than the fullest tx ring can still hold, so
     * a fast local sender meets back-pressure (its {@code sendDatagram} returns false) instead of drops here.
     */
    private int txBudget() {
        int budget = batch;
        for (final SpscSlotRing ring : toTx) {
            budget = Math.min(budget, ring.capacity() - ring.size());
        }
        return budget;
    }

    // ------------------------------------------------------------------ inbound

    private void onInbound(final int slot) {
        applyPendingCommands();
        final MemorySegment seg = pool.slotSegment(slot);
        final Link link = link(SlotMeta.linkId(seg));
        if (link == null) {
            drop(slot, DataPlaneCounter.DROP_NO_SESSION);
            return;
        }
        final long off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        final int flags = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + FmpEstablishedHeader.FLAGS_OFFSET));
        final int receiverIdx = seg.get(DataPlane.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET);
        final long counter = seg.get(DataPlane.U64, off + FmpEstablishedHeader.COUNTER_OFFSET);
        final int kBit = flags & FmpEstablishedHeader.FLAG_KEY_EPOCH;

        if (link.pending != null && kBit != link.kBit) {
            final int plaintext = trialPending(link.pending, seg, off, len, counter);
            if (plaintext >= 0) {
                // The data plane picks this cutover's instant; the control plane adopts it from the event.
                final long start = now();
                cutover(link, start);
                counters.increment(DataPlaneCounter.KBIT_CUTOVERS);
                events.offer(new DataPlaneEvent.CutOver(link.linkId, link.current.ourIndex, start));
                onAuthentic(link, slot, seg, off, len, plaintext);
                return;
            }
            // Not the pending session's frame (a stale pending, crypto-link.md §5.11): decrypt normally.
        }
        final LinkSession session = sessionFor(link, receiverIdx);
        if (session == null) {
            if (link.pending != null && receiverIdx == link.pending.ourIndex) {
                // Addressed to the pending session but without the K flip: the reference tries current and
                // previous, which cannot authenticate it; same outcome without the wasted crypto.
                onAuthFailure(link, slot);
            } else {
                drop(slot, DataPlaneCounter.DROP_NO_SESSION);
            }
            return;
        }
        if (!session.replay.check(counter)) {
            link.onReplayDrop();
            drop(slot, DataPlaneCounter.DROP_REPLAY);
            return;
        }
        AeadCipher.fipsNonce(nonce, counter);
        final int plaintext = cipher.open(session.recvKey, nonce, seg, off, HEADER, seg, off + HEADER, len - HEADER);
        if (plaintext < 0) {
            onAuthFailure(link, slot);
            return;
        }
        session.replay.accept(counter);
        onAuthentic(link, slot, seg, off, len, plaintext);
    }

    private static LinkSession sessionFor(final Link link, final int receiverIdx) {
        final LinkSession current = link.current;
        if (receiverIdx == current.ourIndex) {
            return current;
        }
        final LinkSession previous = link.previous;
        return previous != null && receiverIdx == previous.ourIndex ? previous : null;
    }

    /**
     * Opens the frame with the pending session. The open works in place and may leave garbage on failure, so the
     * ciphertext is saved first and restored for the normal path; this costs a copy only around a rekey.
     *
     * @return the plaintext length, or -1
     */
    private int trialPending(final LinkSession pending, final MemorySegment seg, final long off, final int len,
                             final long counter) {
        if (!pending.replay.check(counter)) {
            return -1;
        }
        final int ciphertext = len - HEADER;
        MemorySegment.copy(seg, off + HEADER, trialCopy, 0, ciphertext);
        AeadCipher.fipsNonce(nonce, counter);
        final int plaintext = cipher.open(pending.recvKey, nonce, seg, off, HEADER, seg, off + HEADER, ciphertext);
        if (plaintext < 0) {
            MemorySegment.copy(trialCopy, 0, seg, off + HEADER, ciphertext);
            return -1;
        }
        pending.replay.accept(counter);
        return plaintext;
    }

    private void onAuthFailure(final Link link, final int slot) {
        link.onAuthFailure();
        drop(slot, DataPlaneCounter.DROP_AUTH_FAILED);
        if (link.consecutiveFailures == failureLimit) {
            events.offer(new DataPlaneEvent.TooManyDecryptFailures(link.linkId));
        }
    }

    private void onAuthentic(final Link link, final int slot, final MemorySegment seg, final long off, final int len,
                             final int plaintext) {
        link.resetFailures();
        if (plaintext < INNER) {
            drop(slot, DataPlaneCounter.DROP_SHORT_PLAINTEXT);
            return;
        }
        final long now = now();
        link.onAuthenticated(now, len, link.current.replay.highest());
        if (seg.get(DataPlane.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET) == link.current.ourIndex) {
            // MMP receiver (§6.3) on the current session's frames: counter, inner timestamp, CE flag.
            link.mmp.onFrame(seg.get(DataPlane.U64, off + FmpEstablishedHeader.COUNTER_OFFSET),
                    Integer.toUnsignedLong(seg.get(DataPlane.U32, off + HEADER)),
                    (seg.get(ValueLayout.JAVA_BYTE, off + FmpEstablishedHeader.FLAGS_OFFSET)
                            & FmpEstablishedHeader.FLAG_CE) != 0, now);
        }
        counters.increment(DataPlaneCounter.FRAMES_IN);
        final int sourceLength = SlotMeta.sourceLength(seg);
        if (sourceLength > 0 && !link.destination.sameEndpoint(slotSource[slot], 0, sourceLength)) {
            onRoamed(link, slot, sourceLength);
        }
        final long message = off + HEADER + TIMESTAMP;
        final int messageLength = plaintext - TIMESTAMP;
        final int type = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, message));
        if (type == SESSION_DATAGRAM) {
            final ForwardingTable forwarding = routes.get();
            if (forwarding != null) {
                final int fmpFlags = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE,
                        off + FmpEstablishedHeader.FLAGS_OFFSET));
                onSessionDatagram(forwarding, link, slot, seg, message, messageLength, fmpFlags);
                return;
            }
            counters.increment(DataPlaneCounter.DATAGRAMS_DELIVERED);
            try {
                delivery.deliver(link.linkId, seg, message, messageLength);
            } finally {
                pool.release(slot);
            }
            return;
        }
        final long timestamp = Integer.toUnsignedLong(seg.get(DataPlane.U32, off + HEADER));
        final byte[] bytes = new byte[messageLength];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, message, bytes, 0, messageLength);
        pool.release(slot);
        events.offer(new DataPlaneEvent.LinkMessageReceived(link.linkId, timestamp, bytes));
    }

    // ------------------------------------------------------------------ transit

    /** A SessionDatagram at {@code seg[m, m+len)} with a forwarding table installed (routing-session.md §4.2). */
    private void onSessionDatagram(final ForwardingTable forwarding, final Link link, final int slot,
                                   final MemorySegment seg, final long m, final int len, final int fmpFlags) {
        if (len < DATAGRAM_HEADER) {
            drop(slot, DataPlaneCounter.DROP_MALFORMED_DATAGRAM);
            return;
        }
        final int ttl = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, m + SessionDatagramHeader.TTL_OFFSET));
        if (ttl == 0) {
            drop(slot, DataPlaneCounter.DROP_TTL_EXHAUSTED);
            return;
        }
        final long destHi = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET);
        final long destLo = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET + 8);
        final int coordLen = warm(seg, m, len);
        if (destHi == forwarding.self().hi() && destLo == forwarding.self().lo()) {
            counters.increment(DataPlaneCounter.DATAGRAMS_DELIVERED);
            if (sessions != null) {
                deliverToSession(forwarding, slot, seg, m, len, fmpFlags);
                return;
            }
            try {
                delivery.deliver(link.linkId, seg, m, len);
            } finally {
                pool.release(slot);
            }
            return;
        }
        final long now = now();
        final int peer = nextHop.find(forwarding, destHi, destLo, now, coordHi, coordLo, coordLen);
        if (peer < 0) {
            // Reads the source from the slot, so before the slot goes back to the pool.
            onNoRoute(seg, m, destHi, destLo, peer == NextHop.NO_ROUTE_HAD_COORDS, now);
            drop(slot, DataPlaneCounter.DROP_NO_ROUTE);
            return;
        }
        seg.set(ValueLayout.JAVA_BYTE, m + SessionDatagramHeader.TTL_OFFSET, (byte) (ttl - 1));
        final int pathMtu = Short.toUnsignedInt(seg.get(DataPlane.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET));
        final int linkMtu = forwarding.linkMtu(peer);
        if (linkMtu < pathMtu) {
            seg.set(DataPlane.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET, (short) linkMtu);
        }
        // Counted with the forward once it is sealed, as the reference counts route classes of sent packets.
        final int routeClass = nextHop.classifyLast(forwarding, destHi, destLo, peer).ordinal();
        // The datagram becomes the slot's data: the seal prepends the FMP header in the headroom before it.
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) m);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        final int forwardFlags = (fmpFlags & FmpEstablishedHeader.FLAG_CE) | routeClass << 8;
        final long outLinkId = forwarding.linkId(peer);
        final int worker = DataPlane.workerOf(outLinkId, workerFed.length);
        if (worker == id) {
            forward(outLinkId, slot, forwardFlags);
            return;
        }
        SlotMeta.linkId(seg, outLinkId);
        handOff(worker, slot, seg, forwardFlags);
    }

    /**
     * Passes {@code slot} to {@code worker} through this worker's SPSC ring to it, with {@code flags} in the slot
     * metadata (a forward's CE and route class, or {@link #HANDOFF_DELIVER}/{@link #HANDOFF_ORIGINATED}).
     *
     * @return false when the ring was full (the drop is counted and the slot released)
     */
    private boolean handOff(final int worker, final int slot, final MemorySegment seg, final int flags) {
        SlotMeta.forwardFlags(seg, flags);
        // release (inside offer): the other worker sees the bytes and the metadata before the index
        if (!toWorkers[worker].offer(slot)) {
            drop(slot, DataPlaneCounter.DROP_HANDOFF_RING_FULL);
            return false;
        }
        workerFed[worker] = true;
        counters.increment(DataPlaneCounter.HANDOFFS);
        return true;
    }

    /** A forward handed over by another worker (the outbound link is ours), or a datagram for our session. */
    private void onHandoff(final int slot) {
        applyPendingCommands();
        final MemorySegment seg = pool.slotSegment(slot);
        final int flags = SlotMeta.forwardFlags(seg);
        if ((flags & HANDOFF_DELIVER) != 0) {
            final ForwardingTable forwarding = routes.get();
            if (forwarding == null || sessions == null) {
                drop(slot, DataPlaneCounter.DROP_SESSION_UNKNOWN);
                return;
            }
            sessions.deliver(forwarding, slot, seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD),
                    seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD),
                    (flags & FmpEstablishedHeader.FLAG_CE) != 0);
            return;
        }
        forward(SlotMeta.linkId(seg), slot, flags);
    }

    // ------------------------------------------------------------------ end-to-end sessions

    /**
     * A SessionDatagram for us with the session path on: to the worker that owns the sender's session (here, or by
     * handoff), handshake messages too, so the keys they bring and the messages behind them meet on one thread.
     */
    private void deliverToSession(final ForwardingTable forwarding, final int slot, final MemorySegment seg,
                                  final long m, final int len, final int fmpFlags) {
        final long srcHi = seg.get(U64_BE, m + SessionDatagramHeader.SRC_OFFSET);
        final long srcLo = seg.get(U64_BE, m + SessionDatagramHeader.SRC_OFFSET + 8);
        final int owner = SessionPath.workerOf(srcHi, SessionMap.prefixLo(srcLo), workerFed.length);
        if (owner == id) {
            sessions.deliver(forwarding, slot, m, len, (fmpFlags & FmpEstablishedHeader.FLAG_CE) != 0);
            return;
        }
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) m);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        handOff(owner, slot, seg, HANDOFF_DELIVER | (fmpFlags & FmpEstablishedHeader.FLAG_CE));
    }

    /** An IPv6 packet read from TUN for a destination whose session this worker owns. */
    private void onIpv6Outbound(final int slot) {
        applyPendingCommands();
        if (sessions == null) {
            drop(slot, DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return;
        }
        sessions.onOutbound(routes.get(), slot);
    }

    /** Next hop toward a destination of ours (the session path's {@link SessionPath.Originator}). */
    private int nextHopOf(final ForwardingTable forwarding, final long destHi, final long destLo, final long now) {
        return nextHop.find(forwarding, destHi, destLo, now);
    }

    /**
     * Sends a SessionDatagram this node originated (the session path's {@link SessionPath.Originator}): path_mtu
     * seeded with the first link's MTU, then sealed here or handed to the link's worker.
     */
    private boolean sendOriginated(final ForwardingTable forwarding, final int slot, final int peer) {
        final MemorySegment seg = pool.slotSegment(slot);
        final long m = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final int linkMtu = forwarding.linkMtu(peer);
        if (linkMtu < 0xFFFF) {
            seg.set(DataPlane.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET, (short) linkMtu);
        }
        final long outLinkId = forwarding.linkId(peer);
        final int worker = DataPlane.workerOf(outLinkId, workerFed.length);
        if (worker == id) {
            final Link out = link(outLinkId);
            if (out == null) {
                drop(slot, DataPlaneCounter.DROP_NO_LINK);
                return false;
            }
            return seal(out, slot, 0);
        }
        SlotMeta.linkId(seg, outLinkId);
        return handOff(worker, slot, seg, HANDOFF_ORIGINATED);
    }

    /** @param forwardFlags the FMP flags to add (CE) in the low byte, the route class ordinal above */
    private void forward(final long linkId, final int slot, final int forwardFlags) {
        final Link out = link(linkId);
        if (out == null) {
            drop(slot, DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        final boolean transit = (forwardFlags & HANDOFF_ORIGINATED) == 0;
        if (transit && !fitsForward(out, slot)) {
            return;
        }
        int fmpFlags = forwardFlags & 0xFF;
        // ECN (§6.6): CE_out = CE_in OR congestion of the next hop's link, on transit only (never our own).
        if (transit && out.congested) {
            fmpFlags |= FmpEstablishedHeader.FLAG_CE;
            counters.increment(DataPlaneCounter.CONGESTION_DETECTED);
        }
        if (seal(out, slot, fmpFlags) && transit) {
            counters.increment(DataPlaneCounter.FORWARDED);
            counters.increment(ROUTE_COUNTERS[(forwardFlags >>> 8) & 0xFF]);
            if ((fmpFlags & FmpEstablishedHeader.FLAG_CE) != 0) {
                counters.increment(DataPlaneCounter.CE_FORWARDED);
            }
        }
    }

    /**
     * Coordinate warming (§4.2 step 3): reports coordinates a SessionSetup, SessionAck or CP message carries and
     * copies the destination's into {@link #coordHi}/{@link #coordLo} for this packet's routing. Parse errors are
     * ignored. Allocates, but only for these (rare) packets.
     *
     * @return the number of destination coordinate entries copied; 0 if none
     */
    private int warm(final MemorySegment seg, final long m, final int len) {
        final long payload = m + DATAGRAM_HEADER;
        final int payloadLen = len - DATAGRAM_HEADER;
        if (payloadLen < FspPrefix.SIZE) {
            return 0;
        }
        final int b0 = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payload));
        final int phase = b0 & 0x0F;
        final Coords src;
        final Coords dest;
        if (phase == FspPrefix.PHASE_MSG1) {
            final WireResult<SessionSetup> r = SessionSetup.decode(seg, payload, payloadLen);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().srcCoords();
            dest = r.valueOrNull().destCoords();
        } else if (phase == FspPrefix.PHASE_MSG2) {
            final WireResult<SessionAck> r = SessionAck.decode(seg, payload, payloadLen);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().srcCoords();
            dest = r.valueOrNull().destCoords();
        } else if (phase == FspPrefix.PHASE_ESTABLISHED
                && (seg.get(ValueLayout.JAVA_BYTE, payload + FspPrefix.FLAGS_OFFSET) & FspFlags.CP) != 0) {
            if (payloadLen < FspHeader.SIZE) {
                return 0;
            }
            final WireResult<FspCpCoords> r = FspCpCoords.decode(seg, payload + FspHeader.SIZE,
                    payloadLen - FspHeader.SIZE);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().src().isEmpty() ? null : r.valueOrNull().src();
            dest = r.valueOrNull().dest().isEmpty() ? null : r.valueOrNull().dest();
            if (src == null && dest == null) {
                return 0;
            }
        } else {
            return 0;
        }
        counters.increment(DataPlaneCounter.COORDS_OBSERVED);
        events.offer(new DataPlaneEvent.CoordsObserved(NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET), src,
                NodeAddr.read(seg, m + SessionDatagramHeader.DEST_OFFSET), dest));
        if (dest == null || dest.size() > coordHi.length) {
            return 0;
        }
        for (int i = 0; i < dest.size(); i++) {
            coordHi[i] = dest.addrs().get(i).hi();
            coordLo[i] = dest.addrs().get(i).lo();
        }
        return dest.size();
    }

    /**
     * §4.2 step 8: a transit datagram that would not fit the outbound transport's MTU once framed is dropped,
     * counted on its own (packets, and bytes without the link message type byte, as the reference counts), and
     * answered with a {@link DataPlaneEvent.ForwardMtuExceeded} carrying that transport MTU, under the limiter the
     * routing errors use (§4.5: one error signal per original destination per 100 ms, whatever its type). The
     * reference learns this from the transport's send error; we check before the seal, with the same sum the
     * seal checks. Allocates only when it raises.
     *
     * @return true when the frame fits (the slot is untouched); false when it was dropped
     */
    private boolean fitsForward(final Link out, final int slot) {
        final MemorySegment seg = pool.slotSegment(slot);
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        if (frameFits(out, len)) {
            return true;
        }
        final int mtu = transportMtu[out.transportId];
        final long m = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final long destHi = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET);
        final long destLo = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET + 8);
        counters.add(DataPlaneCounter.FORWARD_MTU_EXCEEDED_BYTES, len - 1);
        if (errorAllowed(destHi, destLo, now())) {
            events.offer(new DataPlaneEvent.ForwardMtuExceeded(
                    NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET), NodeAddr.of(destHi, destLo),
                    Math.min(mtu, 0xFFFF)));
        }
        drop(slot, DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED);
        return false;
    }

    /**
     * Raises a routing error unless one was raised within {@link #ROUTING_ERROR_INTERVAL_NANOS} for a destination in
     * the same limiter slot: exactly one per destination per interval, and at most {@value #ERROR_SLOTS} per
     * interval whatever the flood (a colliding destination waits for the slot). Allocates only when it raises.
     */
    private void onNoRoute(final MemorySegment seg, final long m, final long destHi, final long destLo,
                           final boolean hadCoords, final long now) {
        if (!errorAllowed(destHi, destLo, now)) {
            return;
        }
        events.offer(new DataPlaneEvent.RoutingError(NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET),
                NodeAddr.of(destHi, destLo), hadCoords ? DataPlaneEvent.RoutingErrorKind.PATH_BROKEN
                        : DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED));
    }

    /**
     * The error-signal limiter shared by every kind (CoordsRequired, PathBroken, MtuExceeded): takes the slot of
     * {@code dest} and counts the outcome in ROUTING_ERRORS_REPORTED or ROUTING_ERRORS_SUPPRESSED.
     *
     * @return true when an error may be raised for {@code dest} now
     */
    private boolean errorAllowed(final long destHi, final long destLo, final long now) {
        long h = destHi * 0x9E3779B97F4A7C15L ^ destLo;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        final int s = (int) h & (ERROR_SLOTS - 1);
        if (errorSet[s] && now - errorAt[s] < ROUTING_ERROR_INTERVAL_NANOS) {
            counters.increment(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED);
            return false;
        }
        errorSet[s] = true;
        errorAt[s] = now;
        counters.increment(DataPlaneCounter.ROUTING_ERRORS_REPORTED);
        return true;
    }

    /** Roaming (crypto-link.md §5.14): only ever after authentication; allocates, but only on a move. */
    private void onRoamed(final Link link, final int slot, final int sourceLength) {
        final Transport transport = transports[link.transportId];
        final TransportAddr address = transport.sourceAddress(slotSource[slot], 0, sourceLength);
        if (address == null) {
            return;
        }
        final TransportDestination destination;
        try {
            destination = transport.destination(address);
        } catch (final TransportException | RuntimeException e) {
            return;
        }
        link.destination = destination;
        counters.increment(DataPlaneCounter.ADDRESS_CHANGES);
        events.offer(new DataPlaneEvent.AddressChanged(link.linkId, address));
    }

    // ------------------------------------------------------------------ outbound

    private void onOutbound(final int slot) {
        applyPendingCommands();
        final long linkId = SlotMeta.linkId(pool.slotSegment(slot));
        if (linkId == DataPlane.IPV6_PACKET) {
            onIpv6Outbound(slot);
            return;
        }
        final Link link = link(linkId);
        if (link == null) {
            drop(slot, DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        seal(link, slot, 0);
    }

    /** Whether a link message of {@code messageLength} bytes, framed (header, timestamp, tag), fits the link's MTU. */
    private boolean frameFits(final Link link, final int messageLength) {
        return HEADER + TIMESTAMP + messageLength + TAG <= transportMtu[link.transportId];
    }

    /**
     * Frames the link message in {@code slot} and hands it to the link's tx agent.
     *
     * @param extraFlags FMP flags to set besides the K bit (CE on a forward)
     * @return true if the frame was queued for sending (otherwise the drop was counted and the slot released)
     */
    private boolean seal(final Link link, final int slot, final int extraFlags) {
        final PacketView view = this.view.wrap(slot);
        final LinkSession session = link.current;
        final int messageLength = view.length();
        if (!frameFits(link, messageLength) || view.tailroom() < TAG || !view.ensureHeadroom(HEADER + TIMESTAMP)) {
            drop(slot, DataPlaneCounter.DROP_MTU);
            return false;
        }
        final long counter = session.sendCounter;
        if (counter == -1L) {
            drop(slot, DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            return false;
        }
        session.sendCounter = counter + 1;
        view.prepend(HEADER + TIMESTAMP);
        final MemorySegment seg = view.slotSegment();
        final long off = view.dataOffset();
        final int timestampMs = (int) ((now() - session.startNanos) / NANOS_PER_MILLI);
        seg.set(DataPlane.U32, off + HEADER, timestampMs);
        FmpEstablishedHeader.write(seg, off, link.kBit | extraFlags, TIMESTAMP + messageLength, session.theirIndex, counter);
        AeadCipher.fipsNonce(nonce, counter);
        cipher.seal(session.sendKey, nonce, seg, off, HEADER, seg, off + HEADER, TIMESTAMP + messageLength);
        view.append(TAG);
        slotDestination[slot] = link.destination;
        // release (inside offer): the tx agent sees the sealed bytes, the slot header and the destination
        if (!toTx[link.transportId].offer(slot)) {
            slotDestination[slot] = null;
            drop(slot, DataPlaneCounter.DROP_TX_RING_FULL);
            return false;
        }
        txFed[link.transportId] = true;
        counters.increment(DataPlaneCounter.FRAMES_OUT);
        link.onSent(HEADER + TIMESTAMP + messageLength + TAG, counter + 1);
        return true;
    }

    // ------------------------------------------------------------------ commands

    /** The link, applying queued commands first if it is not known yet (its AddLink may be in the queue). */
    private Link link(final long linkId) {
        final Link link = links.get(linkId);
        if (link != null) {
            return link;
        }
        drainCommands();
        return links.get(linkId);
    }

    /**
     * Applies commands queued since the cycle began. A command must act on every packet that reaches the worker
     * after it was issued (an InstallPending before the peer's first new-key frame, for example); one volatile
     * read per packet is the price.
     */
    private void applyPendingCommands() {
        if (!commands.isEmpty()) {
            drainCommands();
        }
    }

    private int drainCommands() {
        int n = 0;
        Command c;
        while ((c = commands.poll()) != null) {
            // before each command: it may install a start instant newer than the time this cycle has read
            cycleTimeValid = false;
            apply(c);
            n++;
        }
        cycleTimeValid &= n == 0;
        if (releasedCount > 0 && !releasing) {
            openReleased();
        }
        return n;
    }

    /** Queues frames the receive side held for a link index that an install just brought in. */
    private void release(final long linkId, final int[] held) {
        if (held.length == 0) {
            return;
        }
        if (releasedCount + held.length > released.length) {
            released = Arrays.copyOf(released, Math.max(released.length * 2, releasedCount + held.length));
        }
        for (final int slot : held) {
            SlotMeta.linkId(pool.slotSegment(slot), linkId);
            released[releasedCount++] = slot;
        }
    }

    /**
     * Opens the released frames in arrival order, after the command that installed their keys and before any frame
     * that found the new index in the table (those wait in the receive ring). Commands applied meanwhile may release
     * more; they are appended and opened in the same pass.
     */
    private void openReleased() {
        releasing = true;
        try {
            for (int i = 0; i < releasedCount; i++) {
                counters.increment(DataPlaneCounter.LINK_FRAMES_RELEASED);
                onInbound(released[i]);
            }
        } finally {
            releasedCount = 0;
            releasing = false;
        }
    }

    private void apply(final Command command) {
        switch (command) {
            case AddLink(final Link link, final int[] held) -> {
                links.put(link.linkId, link);
                link.publishSession();
                release(link.linkId, held);
            }
            case InstallPending(final long linkId, final int transportId, final LinkSession session,
                                final int[] held) -> {
                onInstallPending(linkId, transportId, session);
                release(linkId, held);
            }
            case Cutover(final long linkId, final long sessionStartNanos) -> {
                final Link link = links.get(linkId);
                if (link != null) {
                    cutover(link, sessionStartNanos);
                }
            }
            case DropPrevious(final long linkId) -> {
                final Link link = links.get(linkId);
                if (link != null && link.previous != null) {
                    forget(link, link.previous);
                    link.previous = null;
                }
            }
            case RemoveLink(final long linkId) -> {
                final Link link = links.remove(linkId);
                if (link != null) {
                    forgetAll(link);
                }
            }
            case SendLinkMessage(final long linkId, final byte[] message) -> onSendLinkMessage(linkId, message);
            case SetCongested(final long linkId, final boolean congested) -> {
                final Link link = links.get(linkId);
                if (link != null) {
                    link.congested = congested;
                }
            }
            default -> applySessionCommand(command);
        }
    }

    private void applySessionCommand(final Command command) {
        if (sessions == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return;
        }
        switch (command) {
            case AddSession(final FspSession session) -> sessions.addSession(routes.get(), session);
            case InstallSessionPending(final NodeAddr remote, final byte[] send, final byte[] recv) ->
                    sessions.installPending(routes.get(), remote, send, recv);
            case CutoverSession(final NodeAddr remote, final long start) -> sessions.cutover(remote, start);
            case DropSessionPrevious(final NodeAddr remote) -> sessions.dropPrevious(remote);
            case RemoveSession(final NodeAddr remote) -> sessions.remove(remote);
            case SetSessionWarmup(final NodeAddr remote, final byte[] coords, final int packets) ->
                    sessions.setWarmup(remote, coords, packets);
            case LowerSessionPathMtu(final NodeAddr remote, final int mtu) -> sessions.lowerPathMtu(remote, mtu);
            case SendSessionMessage(final NodeAddr remote, final int type, final byte[] body, final boolean cp) ->
                    sessions.sendMessage(routes.get(), remote, type, body, cp);
            case SendIpv6(final byte[] packet) -> onSendIpv6(packet);
            case WriteIpv6(final byte[] packet) -> sessions.writeIpv6(packet);
            default -> throw new IllegalStateException("unhandled command " + command.getClass().getSimpleName());
        }
    }

    private void onSendIpv6(final byte[] packet) {
        if (packet.length == 0 || packet.length > pool.maxMtuBytes()) {
            counters.increment(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final PacketView view = this.view.wrap(slot);
        view.setLength(packet.length);
        view.putBytes(0, packet);
        sessions.onOutbound(routes.get(), slot);
    }

    private void onInstallPending(final long linkId, final int transportId, final LinkSession session) {
        final Link link = links.get(linkId);
        if (link == null) {
            // The link went away first; the control thread already registered the index, so take it back.
            table.remove(IndexTable.key(transportId, session.ourIndex), linkId);
            session.wipe();
            return;
        }
        if (link.pending != null && link.pending.ourIndex != session.ourIndex) {
            forget(link, link.pending);
        }
        link.pending = session;
    }

    /**
     * Cutover (crypto-link.md §5.11): current becomes previous (still receiving), pending becomes current, the K
     * bit toggles, the counter restarts and timestamps count from {@code sessionStartNanos}. A previous session
     * still draining is dropped now.
     */
    private void cutover(final Link link, final long sessionStartNanos) {
        final LinkSession pending = link.pending;
        if (pending == null) {
            return;
        }
        if (link.previous != null) {
            forget(link, link.previous);
        }
        link.previous = link.current;
        link.current = pending;
        link.pending = null;
        link.kBit ^= FmpEstablishedHeader.FLAG_KEY_EPOCH;
        pending.startNanos = sessionStartNanos;
        pending.sendCounter = 0;
        link.mmp.resetForRekey(sessionStartNanos);
        link.publishSession();
    }

    private void forget(final Link link, final LinkSession session) {
        table.remove(IndexTable.key(link.transportId, session.ourIndex), link.linkId);
        session.wipe();
    }

    private void forgetAll(final Link link) {
        if (link.pending != null) {
            forget(link, link.pending);
        }
        if (link.previous != null) {
            forget(link, link.previous);
        }
        forget(link, link.current);
    }

    private void onSendLinkMessage(final long linkId, final byte[] message) {
        final Link link = links.get(linkId);
        if (link == null || message.length == 0) {
            counters.increment(DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final PacketView view = this.view.wrap(slot);
        if (message.length > view.tailroom()) {
            drop(slot, DataPlaneCounter.DROP_MTU);
            return;
        }
        view.setLength(message.length);
        view.putBytes(0, message);
        seal(link, slot, 0);
    }

    private void drop(final int slot, final DataPlaneCounter why) {
        counters.increment(why);
        pool.release(slot);
    }

    @Override
    public void onClose() {
        drainCommands();
        for (final SpscSlotRing ring : fromRx) {
            int s;
            while ((s = ring.poll()) != SpscSlotRing.EMPTY) {
                pool.release(s);
            }
        }
        for (final SpscSlotRing ring : fromWorkers) {
            int h;
            while (ring != null && (h = ring.poll()) != SpscSlotRing.EMPTY) {
                pool.release(h);
            }
        }
        int s;
        while ((s = fromCallers.poll()) != MpscSlotRing.EMPTY) {
            pool.release(s);
        }
        while (fromTun != null && (s = fromTun.poll()) != SpscSlotRing.EMPTY) {
            pool.release(s);
        }
        if (sessions != null) {
            sessions.close();
        }
        links.forEach(this::forgetAll);
        cipher.close();
        arena.close();
    }
}
