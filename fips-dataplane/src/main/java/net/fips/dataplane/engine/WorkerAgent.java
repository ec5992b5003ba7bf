package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.SessionDatagramHeader;

/**
 * An AEAD worker: owns the links pinned to it (link id mod worker count) and everything per link: sessions, keys,
 * replay windows, send counters, K bit, address; with the session path on, also the end-to-end sessions pinned to
 * it. Being the only thread that touches them, it needs no locks, and a link's frames stay in order in both
 * directions.
 *
 * <p>This class is the owner loop: it drains its rings and command queue, moves each slot to its next owner and
 * counts the drops; the work on a packet is done by helpers that return what happened: {@link LinkCrypto} (open,
 * seal, cutover), {@link Transit} (the transit decision), {@link SessionPath} (the FSP half), and
 * {@link WorkerCommands} (command application).
 *
 * <p>Inbound (crypto-link.md §5.4, §5.11, §5.14): open, count failures, liveness, roaming, then by msg_type:
 * SessionDatagrams to the transit decision with a {@link ForwardingTable} installed (else the {@link LocalDelivery}
 * hook), other link messages to the control plane. A forward is re-sealed in its slot for the outbound link, here
 * or after a handoff to that link's worker; a datagram for us goes to the worker of its sender's session the same
 * way. Outbound: a link message is sealed in place and passed to the transport's tx agent; an IPv6 packet goes as
 * straight as a forward: the session path seals it and names the next hop ({@link SessionPath#onOutbound}), this
 * loop seals it for that link or hands it over.
 */
final class WorkerAgent implements Agent {
    /** Handoff flag: a datagram for us whose session this worker owns (rather than a forward). */
    static final int HANDOFF_DELIVER = 1 << 16;
    /** Handoff flag: a datagram we originated (counted as sent, not as forwarded). */
    static final int HANDOFF_ORIGINATED = 1 << 17;

    private static final int HEADER = FmpEstablishedHeader.SIZE;
    private static final int INNER = FmpInnerHeader.SIZE;
    private static final int TIMESTAMP = FmpInnerHeader.MSG_TYPE_OFFSET;
    private static final int SESSION_DATAGRAM = LinkMessageType.SESSION_DATAGRAM.code();
    private static final ValueLayout.OfLong U64_BE = Layouts.U64_BE;

    private final int id;
    private final PacketPool pool;
    private final WorkerRings rings;
    private final WakeSignal signal;
    private final Transport[] transports;
    private final MemorySegment[] slotSource;
    private final EventQueue events;
    private final Counters counters;
    private final LocalDelivery delivery;
    private final CycleClock clock;
    private final int failureLimit;
    private final int batch;
    private final Queue<WorkerCommand> commands = new ConcurrentLinkedQueue<>();
    private final LinkMap links = new LinkMap();
    private final Arena arena = Arena.ofShared();
    private final LinkCrypto crypto;
    private final Transit transit;
    private final WorkerCommands applier;
    private final int[] drained;
    private final ReleasedFrames released;
    /** Whether {@link #sendSessionMessages()} is running (a command it applies on the way may queue more). */
    private boolean sendingMessages;
    private final ForwardingTableHolder routes;
    private final SessionPath sessions;

    WorkerAgent(final int id, final EngineShared shared, final AeadCipher cipher, final SpscSlotRing[] fromRx,
                final MpscSlotRing fromCallers, final SpscSlotRing[] toTx, final Counters counters,
                final WakeSignal signal, final WakeSignal[] txSignals, final SpscSlotRing[] toWorkers,
                final SpscSlotRing[] fromWorkers, final WakeSignal[] workerSignals, final SpscSlotRing fromTun,
                final Ipv6Sink sink) {
        this.id = id;
        this.pool = shared.pool();
        this.transports = shared.transports();
        this.rings = new WorkerRings(fromRx, fromWorkers, fromCallers, fromTun, toTx, txSignals, transports,
                shared.slotDestination(), toWorkers, workerSignals);
        this.signal = signal;
        this.slotSource = shared.slotSource();
        this.events = shared.events();
        this.counters = counters;
        this.delivery = shared.context().localDelivery();
        this.clock = new CycleClock(shared.context().nanoClock());
        this.failureLimit = shared.context().decryptFailureLimit();
        this.batch = shared.context().batch();
        this.drained = new int[batch];
        this.released = new ReleasedFrames(pool);
        this.routes = shared.routes();
        this.crypto = new LinkCrypto(cipher, pool, transports, shared.table(), events, counters, clock, arena);
        this.transit = new Transit(pool, events, counters, clock);
        if (shared.context().sessionPath()) {
            int transportMtu = Integer.MAX_VALUE;
            for (final Transport t : transports) {
                transportMtu = Math.min(transportMtu, t.mtu());
            }
            this.sessions = new SessionPath(pool, cipher, events, counters, clock::now, sink,
                    transportMtu == Integer.MAX_VALUE ? pool.maxMtuBytes() : transportMtu, arena);
        } else {
            this.sessions = null;
        }
        this.applier = new WorkerCommands(pool, counters, links, crypto, sessions, routes);
    }

    @Override
    public String roleName() {
        return "fips-worker-" + id;
    }

    /** Control thread (or a caller thread): queues a command. */
    void enqueue(final WorkerCommand command) {
        commands.add(command);
        signal.wake();
    }

    @Override
    public WakeSignal wakeSignal() {
        return signal;
    }

    @Override
    public boolean hasPendingWork() {
        return !commands.isEmpty() || rings.hasInput();
    }

    @Override
    public int doWork() {
        clock.invalidate();
        int work = drainCommands();
        final int[] drained = this.drained;
        final WorkerRings rings = this.rings;
        for (final SpscSlotRing ring : rings.fromRx) {
            final int n = ring.drainTo(drained, batch);
            for (int i = 0; i < n; i++) {
                onInbound(drained[i]);
            }
            work += n;
        }
        for (final SpscSlotRing ring : rings.fromWorkers) {
            if (ring == null) {
                continue;
            }
            final int n = ring.drainTo(drained, batch);
            for (int i = 0; i < n; i++) {
                onHandoff(drained[i]);
            }
            work += n;
        }
        int budget = rings.txBudget(batch);
        if (budget > 0) {
            final int n = rings.fromCallers.drainTo(drained, budget);
            for (int i = 0; i < n; i++) {
                onOutbound(drained[i]);
            }
            work += n;
            budget -= n;
        }
        if (budget > 0 && rings.fromTun != null) {
            final int n = rings.fromTun.drainTo(drained, budget);
            for (int i = 0; i < n; i++) {
                onIpv6Outbound(drained[i]);
            }
            work += n;
        }
        if (sessions != null) {
            sessions.expireHeld();
            sessions.flushIpv6();
        }
        rings.wakeFed();
        return work;
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
        final int receiverIdx = seg.get(Layouts.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET);
        final long counter = seg.get(Layouts.U64, off + FmpEstablishedHeader.COUNTER_OFFSET);
        final int plaintext = crypto.open(link, seg, off, len, flags, receiverIdx, counter);
        if (plaintext >= 0) {
            onAuthentic(link, slot, seg, off, len, plaintext);
        } else if (plaintext == LinkCrypto.AUTH_FAILED) {
            onAuthFailure(link, slot);
        } else if (plaintext == LinkCrypto.REPLAY) {
            link.onReplayDrop();
            drop(slot, DataPlaneCounter.DROP_REPLAY);
        } else {
            drop(slot, DataPlaneCounter.DROP_NO_SESSION);
        }
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
        final long now = clock.now();
        link.onAuthenticated(now, len, link.current.replay.highest());
        if (seg.get(Layouts.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET) == link.current.ourIndex) {
            // MMP receiver (§6.3) on the current session's frames: counter, inner timestamp, CE flag.
            link.mmp.onFrame(seg.get(Layouts.U64, off + FmpEstablishedHeader.COUNTER_OFFSET),
                    Integer.toUnsignedLong(seg.get(Layouts.U32, off + HEADER)),
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
            deliverLocally(link, slot, seg, message, messageLength);
            return;
        }
        final long timestamp = Integer.toUnsignedLong(seg.get(Layouts.U32, off + HEADER));
        final byte[] bytes = new byte[messageLength];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, message, bytes, 0, messageLength);
        pool.release(slot);
        events.offer(new DataPlaneEvent.LinkMessageReceived(link.linkId, timestamp, bytes));
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

    private void deliverLocally(final Link link, final int slot, final MemorySegment seg, final long m,
                                final int len) {
        try {
            delivery.deliver(link.linkId, seg, m, len);
        } finally {
            pool.release(slot);
        }
    }

    // ------------------------------------------------------------------ transit

    /** A SessionDatagram at {@code seg[m, m+len)} with a forwarding table installed (routing-session.md §4.2). */
    private void onSessionDatagram(final ForwardingTable forwarding, final Link link, final int slot,
                                   final MemorySegment seg, final long m, final int len, final int fmpFlags) {
        final int peer = transit.route(forwarding, seg, m, len, fmpFlags, link.linkId);
        if (peer == Transit.LOCAL) {
            if (sessions != null) {
                deliverToSession(forwarding, slot, seg, m, len, fmpFlags);
            } else {
                deliverLocally(link, slot, seg, m, len);
            }
            return;
        }
        if (peer < 0) {
            pool.release(slot);
            return;
        }
        final int forwardFlags = transit.forwardFlags();
        final long outLinkId = forwarding.linkId(peer);
        final int worker = Pinning.ofLink(outLinkId, rings.workers());
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
        if (!rings.toWorker(worker, slot)) {
            drop(slot, DataPlaneCounter.DROP_HANDOFF_RING_FULL);
            return false;
        }
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
            sendSessionMessages();
            return;
        }
        forward(SlotMeta.linkId(seg), slot, flags);
    }

    /** @param forwardFlags the FMP flags to add (CE) in the low byte, the route class ordinal above */
    private void forward(final long linkId, final int slot, final int forwardFlags) {
        final Link out = link(linkId);
        if (out == null) {
            drop(slot, DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        final boolean transit = (forwardFlags & HANDOFF_ORIGINATED) == 0;
        if (transit && !this.transit.fitsForward(slot, crypto.mtu(out))) {
            pool.release(slot);
            return;
        }
        int fmpFlags = forwardFlags & 0xFF;
        // ECN (§6.6): CE_out = CE_in OR congestion of the next hop's link, on transit only (never our own).
        if (transit && out.congested) {
            fmpFlags |= FmpEstablishedHeader.FLAG_CE;
            counters.increment(DataPlaneCounter.CONGESTION_DETECTED);
        }
        if (seal(out, slot, fmpFlags) && transit) {
            this.transit.countForwarded(forwardFlags, fmpFlags);
        }
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
        final int owner = Pinning.ofSession(srcHi, SessionMap.prefixLo(srcLo), rings.workers());
        if (owner == id) {
            sessions.deliver(forwarding, slot, m, len, (fmpFlags & FmpEstablishedHeader.FLAG_CE) != 0);
            sendSessionMessages();
            return;
        }
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) m);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        handOff(owner, slot, seg, HANDOFF_DELIVER | (fmpFlags & FmpEstablishedHeader.FLAG_CE));
    }

    /** An IPv6 packet read from TUN (or a caller's) for a destination whose session this worker owns. */
    private void onIpv6Outbound(final int slot) {
        applyPendingCommands();
        if (sessions == null) {
            drop(slot, DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return;
        }
        sendIpv6(routes.get(), slot);
    }

    /**
     * The TUN-to-session path, as straight as the transit one: the session path seals the packet into a
     * SessionDatagram in its slot and names the next hop; this loop sends what it queued first (a CoordsWarmup
     * goes before the packet), then the packet.
     */
    private void sendIpv6(final ForwardingTable forwarding, final int slot) {
        final int peer = sessions.onOutbound(forwarding, slot);
        sendSessionMessages();
        if (peer >= 0 && sendOriginated(forwarding, slot, peer)) {
            counters.increment(DataPlaneCounter.SESSION_PACKETS_OUT);
        }
    }

    /** Sends the session-layer messages the session path queued in its {@link SessionOutbox}, in order. */
    private void sendSessionMessages() {
        final SessionOutbox out = sessions.outbox();
        if (out.size() == 0 || sendingMessages) {
            return;
        }
        sendingMessages = true;
        try {
            // size() is read each round: a command applied on the way (sendOriginated may drain) may queue more
            for (int i = 0; i < out.size(); i++) {
                if (sendOriginated(out.table(i), out.slot(i), out.peer(i))) {
                    counters.increment(DataPlaneCounter.SESSION_MESSAGES_OUT);
                }
            }
        } finally {
            out.clear();
            sendingMessages = false;
        }
    }

    /**
     * Sends a SessionDatagram this node originated: path_mtu seeded with the first link's MTU, then sealed here or
     * handed to the link's worker.
     */
    private boolean sendOriginated(final ForwardingTable forwarding, final int slot, final int peer) {
        final MemorySegment seg = pool.slotSegment(slot);
        final long m = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final int linkMtu = forwarding.linkMtu(peer);
        if (linkMtu < 0xFFFF) {
            seg.set(Layouts.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET, (short) linkMtu);
        }
        final long outLinkId = forwarding.linkId(peer);
        final int worker = Pinning.ofLink(outLinkId, rings.workers());
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

    // ------------------------------------------------------------------ outbound

    private void onOutbound(final int slot) {
        applyPendingCommands();
        final long linkId = SlotMeta.linkId(pool.slotSegment(slot));
        if (linkId == SlotMeta.IPV6_PACKET) {
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

    /**
     * Frames the link message in {@code slot} ({@link LinkCrypto#seal}) and hands it to the link's tx agent.
     *
     * @param extraFlags FMP flags to set besides the K bit (CE on a forward)
     * @return true if the frame was queued for sending (otherwise the drop was counted and the slot released)
     */
    private boolean seal(final Link link, final int slot, final int extraFlags) {
        final int frame = crypto.seal(link, slot, extraFlags);
        if (frame < 0) {
            drop(slot, frame == LinkCrypto.TOO_BIG ? DataPlaneCounter.DROP_MTU
                    : DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            return false;
        }
        if (!rings.toTransport(link, slot)) {
            drop(slot, DataPlaneCounter.DROP_TX_RING_FULL);
            return false;
        }
        counters.increment(DataPlaneCounter.FRAMES_OUT);
        link.onSent(frame, link.current.sendCounter);
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
        WorkerCommand c;
        while ((c = commands.poll()) != null) {
            // before each command: it may install a start instant newer than the time this cycle has read
            clock.invalidate();
            apply(c);
            n++;
        }
        if (n > 0) {
            clock.invalidate();
        }
        if (released.ready()) {
            openReleased();
        }
        return n;
    }

    /** Applies one command and does what it leaves to this loop. */
    private void apply(final WorkerCommand command) {
        switch (applier.apply(command)) {
            case WorkerCommands.RELEASE_HELD -> released.add(applier.linkId(), applier.held());
            case WorkerCommands.SEAL_ON_LINK -> seal(applier.link(), applier.slot(), 0);
            case WorkerCommands.SEND_IPV6 -> sendIpv6(routes.get(), applier.slot());
            default -> {
            }
        }
        if (sessions != null) {
            sendSessionMessages();
        }
    }

    /**
     * Opens the released frames in arrival order, after the command that installed their keys and before any frame
     * that found the new index in the table (those wait in the receive ring). Commands applied meanwhile may release
     * more; they are appended and opened in the same pass.
     */
    private void openReleased() {
        released.startPass();
        try {
            for (int i = 0; i < released.size(); i++) {
                counters.increment(DataPlaneCounter.LINK_FRAMES_RELEASED);
                onInbound(released.get(i));
            }
        } finally {
            released.endPass();
        }
    }

    private void drop(final int slot, final DataPlaneCounter why) {
        counters.increment(why);
        pool.release(slot);
    }

    @Override
    public void onClose() {
        drainCommands();
        rings.releaseInput(pool);
        if (sessions != null) {
            sessions.close();
        }
        links.forEach(crypto::forgetAll);
        crypto.close();
        arena.close();
    }
}
