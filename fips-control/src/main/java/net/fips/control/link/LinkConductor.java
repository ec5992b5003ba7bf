package net.fips.control.link;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.IntPredicate;
import java.util.function.LongFunction;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The link layer's control state on the single control thread (crypto-link §5). Agent style: the owner calls
 * {@link #doWork(long)} in its duty cycle and {@link #onEvent(DataPlaneEvent, long)} for every event it drains from
 * the data plane; nothing here sleeps, blocks or starts threads. Time comes only from those arguments (the control
 * requests use the latest one) and randomness only from the injected {@link Random}, so a test with a manual clock
 * and a seeded generator is deterministic.
 *
 * <p>Periodic work runs on a 1-second tick, as in the reference, in the reference's order: handshake timeouts,
 * handshake and rekey retransmissions, reconnect retries, the listener's routing slot (tree and bloom maintenance),
 * MMP reports, heartbeats and liveness, rekey (cutover, drain, trigger), then the listener's lookup slot. The link
 * layer itself consumes only handshakes, MMP reports, Heartbeat and Disconnect; every other link message goes to the
 * {@link LinkListener} (counted, and otherwise ignored, without one). Several reference behaviours are deliberately
 * reproduced, including the quirks the spec records: rekey cutover is tick-driven on both sides, a msg1 on a key epoch
 * younger than 30 s is a duplicate, and the stored msg2 is never cleared.
 *
 * <p>The work is split by job: {@link Handshakes} (msg1, msg2, promotion, cross-connections), {@link Maintenance}
 * (tick timers: dial timeouts, heartbeats, fast failover, the link rekey cycle), {@link Announces} (the link
 * messages this layer consumes: MMP reports, Heartbeat, Disconnect) and {@link Redials} (configured peers and their
 * backoff). They share the {@link LinkTables} this class owns and reach the conductor only through
 * {@link PeerLifecycle}. In this package a link's "key epoch" is one generation of its Noise IK keys (current,
 * pending, previous), never an FSP end-to-end session ({@code net.fips.control.session}).
 *
 * <p>Not thread-safe; other threads read {@link #snapshot()}.
 */
public final class LinkConductor {
    private static final System.Logger LOG = System.getLogger(LinkConductor.class.getName());
    /** The "Link down" reason of {@link #shutdown()}, logged at DEBUG (the node logs one summary line). */
    static final String SHUTDOWN_REASON = "shutdown";
    /** Interval of the rate-limited WARN lines about handshakes that go nowhere. */
    static final long LOG_THROTTLE_NANOS = 60_000_000_000L;
    /** Peers or addresses those lines remember at most. */
    static final int LOG_THROTTLE_KEYS = 256;

    /** Result of a {@link #connect} request. */
    public enum ConnectResult {
        /** msg1 sent. */
        STARTED,
        /** The peer is already established. */
        ALREADY_CONNECTED,
        /** A dial to the peer is already pending. */
        IN_PROGRESS,
        /** The peer ACL refused the dial. */
        DENIED,
        /** {@code max_connections} dials are pending, or no index could be allocated. */
        LIMIT,
        /** The peer is ourselves. */
        SELF
    }

    private final LinkKeys keys;
    private final DataPlaneCommands dataPlane;
    private final LongFunction<LinkStats> stats;
    private final LinkConfig config;
    private final PeerFilter filter;
    private final LinkTables tables;
    /** Restarts detected per peer, kept across its links. */
    private final PeerRestarts peerRestarts = new PeerRestarts();
    private final Redials redials;
    private final Handshakes handshakes;
    private final Maintenance maintenance;
    private final Announces announces;

    private BiConsumer<Integer, TransportAddr> connectionCloser = (id, address) -> { };
    private long nextTick;
    private volatile LinkSnapshot published;
    private LinkListener listener;
    private volatile EcnCongestion ecn;

    /**
     * @param identity     this node
     * @param startupEpoch 8 random bytes drawn once per process (crypto-link §2.6)
     * @param dataPlane    where commands go
     * @param stats        per-link statistics by link id (null for an unknown link)
     * @param random       all randomness: indices, ephemerals, jitter
     * @param config       settings
     * @param filter       the peer ACL
     * @param nowNanos     the current time of the control clock
     */
    public LinkConductor(final NodeIdentity identity, final byte[] startupEpoch, final DataPlaneCommands dataPlane,
                         final LongFunction<LinkStats> stats, final Random random, final LinkConfig config,
                         final PeerFilter filter, final long nowNanos) {
        this.keys = new LinkKeys(identity, startupEpoch, random);
        this.dataPlane = Objects.requireNonNull(dataPlane, "dataPlane");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.config = Objects.requireNonNull(config, "config");
        this.filter = filter == null ? PeerFilter.ALLOW_ALL : filter;
        this.tables = new LinkTables(random, nowNanos);
        this.nextTick = nowNanos;
        final PeerLifecycle life = new Lifecycle();
        this.redials = new Redials(tables, config, this::initiate);
        this.maintenance = new Maintenance(tables, config, keys, dataPlane, stats, random, life, redials);
        this.announces = new Announces(tables, dataPlane, stats, life, redials);
        this.handshakes = new Handshakes(tables, config, keys, this.filter, dataPlane, life, redials, maintenance);
        publish();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Agent entry points

    /**
     * Runs the tick if it is due.
     *
     * @param nowNanos the control clock
     * @return how much work was done (0 when nothing was due)
     */
    public int doWork(final long nowNanos) {
        tables.advance(nowNanos);
        if (tables.now() - nextTick < 0) {
            return 0;
        }
        // A late duty cycle runs one tick, not a burst of catch-up ticks: every check is "since", not "per tick".
        nextTick = tables.now() + config.tickNanos();
        final int work = tick();
        // Every tick republishes, so ages and live counters in the snapshot are at most one tick old.
        tables.markDirty();
        publish();
        return work + 1;
    }

    /**
     * Handles one data-plane event at the time of the latest {@link #doWork} or {@code onEvent} call.
     *
     * @param event the event
     */
    public void onEvent(final DataPlaneEvent event) {
        onEvent(event, tables.now());
    }

    /**
     * Handles one data-plane event.
     *
     * @param event    the event
     * @param nowNanos the control clock
     */
    public void onEvent(final DataPlaneEvent event, final long nowNanos) {
        tables.advance(nowNanos);
        switch (event) {
            case DataPlaneEvent.HandshakeReceived h -> handshakes.onHandshake(h);
            case DataPlaneEvent.LinkMessageReceived m -> {
                final PeerLink peer = tables.peerByLink(m.linkId());
                if (peer != null) {
                    announces.onLinkMessage(peer, m.timestampMs(), m.message());
                }
            }
            case DataPlaneEvent.CutOver c -> {
                final PeerLink peer = tables.peerByLink(c.linkId());
                if (peer != null) {
                    maintenance.onDataPlaneCutover(peer, c.ourIndex(), c.sessionStartNanos());
                }
            }
            case DataPlaneEvent.AddressChanged a -> {
                final PeerLink peer = tables.peerByLink(a.linkId());
                if (peer != null) {
                    peer.address = a.address();
                }
            }
            case DataPlaneEvent.TooManyDecryptFailures f -> {
                final PeerLink peer = tables.peerByLink(f.linkId());
                if (peer != null) {
                    tables.count(LinkCounter.DECRYPT_FAILURE_REMOVALS);
                    remove(peer, "too many decryption failures");
                    redials.scheduleReconnect(peer.nodeAddr);
                }
            }
            // The node's Nostr discovery handles these (ControlLoop routes them there); nothing for the link layer.
            case DataPlaneEvent.ForeignVersionReceived v -> {
            }
            // Only raised with a forwarding table installed; the routing layer handles them, not the link layer.
            case DataPlaneEvent.RoutingEvent r -> {
            }
            // Only raised with the session path on; the session layer handles them.
            case DataPlaneEvent.SessionEvent s -> {
            }
        }
        tables.markDirty();
        publish();
    }

    /**
     * Sets which transports admit a stranger's msg1 (transports.md §1.6: {@code Transport.acceptConnections()}); a
     * msg1 from an address that is no established peer's on such a transport is dropped and counted
     * ({@link LinkCounter#MSG1_NOT_ADMITTED}); an established peer's (rekey) is always admitted. Default: all.
     */
    public void setAdmission(final IntPredicate acceptsStrangers) {
        handshakes.setAdmission(Objects.requireNonNull(acceptsStrangers));
    }

    /**
     * Sets how the link layer closes a connection of a connection-oriented transport
     * ({@code Transport.closeConnection}): used for the losing connection of a cross-connection (two TCP
     * connections to one peer, one per dial), as the reference does. Default: nothing (tests without transports).
     */
    public void setConnectionCloser(
            final BiConsumer<Integer, TransportAddr> closer) {
        this.connectionCloser = Objects.requireNonNull(closer);
    }

    /** Sets the ECN congestion detector that runs on every tick (before {@code start}; none by default). */
    public void setEcn(final EcnCongestion congestion) {
        this.ecn = congestion;
    }

    /** @return the ECN congestion detector, or null */
    public EcnCongestion ecn() {
        return ecn;
    }

    private int tick() {
        int work = maintenance.checkHandshakeTimeouts();
        work += maintenance.resendHandshakes();
        work += maintenance.resendRekeys();
        work += redials.process();
        final LinkListener l = listener;
        if (l != null) {
            work += l.onRoutingTick(tables.now());
        }
        work += announces.sendMmpReports();
        final EcnCongestion e = ecn;
        if (e != null) {
            work += e.update(tables.peers(), dataPlane);
        }
        work += maintenance.checkHeartbeats();
        work += maintenance.checkRekey();
        if (l != null) {
            work += l.onLookupTick(tables.now());
        }
        return work;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Control requests

    /**
     * Dials a peer (operator {@code connect}). No reconnect is scheduled if it fails.
     *
     * @param peer        the peer's identity
     * @param transportId the transport to use
     * @param address     the peer's address on it
     * @return what happened
     */
    public ConnectResult connect(final PeerIdentity peer, final int transportId, final TransportAddr address) {
        final ConnectResult r = initiate(peer, transportId, address);
        tables.markDirty();
        publish();
        return r;
    }

    /**
     * Adds a configured auto-connect peer and dials it at once; failed dials are retried with backoff and, with
     * {@code autoReconnect}, a lost link is redialled forever.
     *
     * @param peer          the peer
     * @param transportId   the transport
     * @param address       its address
     * @param autoReconnect redial after link loss
     * @return the result of the first dial
     */
    public ConnectResult addConfiguredPeer(final PeerIdentity peer, final int transportId,
                                           final TransportAddr address, final boolean autoReconnect) {
        redials.configure(peer, transportId, address, autoReconnect);
        final ConnectResult r = initiate(peer, transportId, address);
        if (r == ConnectResult.LIMIT) {
            redials.scheduleRetry(peer.nodeAddr(), "handshake limit reached");
        }
        tables.markDirty();
        publish();
        return r;
    }

    /**
     * Stops dialling a configured peer (a Nostr-discovered address in cooldown): its redial and its entry are
     * dropped; an established link stays.
     *
     * @param peer the peer
     */
    public void forgetConfiguredPeer(final PeerIdentity peer) {
        redials.forget(peer.nodeAddr());
        tables.markDirty();
        publish();
    }

    /**
     * Operator {@code disconnect}: sends Disconnect(ConfigurationChange), removes the peer and cancels any
     * reconnect of it.
     *
     * @param peer the peer
     * @return false when it was not an established peer
     */
    public boolean disconnect(final PeerIdentity peer) {
        final PeerLink link = tables.peer(peer.nodeAddr());
        if (link == null) {
            return false;
        }
        sendDisconnect(link, Disconnect.Reason.CONFIGURATION_CHANGE);
        remove(link, "operator disconnect");
        redials.cancel(peer.nodeAddr());
        tables.markDirty();
        publish();
        return true;
    }

    /** Sends Disconnect(Shutdown) to every peer and forgets all link state. */
    public void shutdown() {
        for (final PeerLink link : tables.peersCopy()) {
            sendDisconnect(link, Disconnect.Reason.SHUTDOWN);
            remove(link, SHUTDOWN_REASON);
        }
        for (final OutboundHandshake ob : List.copyOf(tables.dials())) {
            tables.dropDial(ob);
        }
        redials.clear();
        tables.markDirty();
        publish();
    }

    /**
     * Installs the layer above (spanning tree, bloom filters, discovery, routing). The listener hears peer up and
     * down, RTT samples, the tick's routing and lookup slots, and every link message this layer does not consume
     * (TreeAnnounce, FilterAnnounce, LookupRequest, LookupResponse, unknown types). Without one those messages are
     * counted as {@link LinkCounter#OTHER_LINK_MESSAGES} and dropped.
     *
     * @param l the listener; null to remove it
     */
    public void setLinkListener(final LinkListener l) {
        this.listener = l;
    }

    /**
     * Sends a link message to an established peer (for layers above: routing, discovery).
     * Safe to call from {@link LinkListener} callbacks.
     *
     * @param peer    the peer
     * @param message msg_type first
     * @return false when the peer is not established
     */
    public boolean send(final PeerIdentity peer, final byte[] message) {
        final PeerLink link = tables.peer(peer.nodeAddr());
        if (link == null) {
            return false;
        }
        dataPlane.sendLinkMessage(link.linkId, message);
        return true;
    }

    /**
     * Sends a link message to an established peer named by address.
     *
     * @param peer    the peer's node address
     * @param message msg_type first
     * @return false when the peer is not established
     */
    public boolean send(final NodeAddr peer, final byte[] message) {
        final PeerLink link = tables.peer(peer);
        if (link == null) {
            return false;
        }
        dataPlane.sendLinkMessage(link.linkId, message);
        return true;
    }

    /** @return the latest published picture; safe from any thread */
    public LinkSnapshot snapshot() {
        return published;
    }

    /** @return our node address */
    public NodeAddr nodeAddr() {
        return keys.addr();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Shared helpers

    ConnectResult initiate(final PeerIdentity peer, final int transportId, final TransportAddr address) {
        final NodeAddr addr = peer.nodeAddr();
        if (addr.equals(keys.addr())) {
            return ConnectResult.SELF;
        }
        if (tables.peer(addr) != null) {
            return ConnectResult.ALREADY_CONNECTED;
        }
        if (tables.dialling(addr)) {
            return ConnectResult.IN_PROGRESS;
        }
        if (!filter.allows(peer, PeerFilter.Context.OUTBOUND_CONNECT)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (outbound connect): {0}", peer.npub());
            tables.count(LinkCounter.ACL_REJECTED);
            return ConnectResult.DENIED;
        }
        if (tables.dialCount() >= config.maxConnections()) {
            tables.count(LinkCounter.MAX_CONNECTIONS_REFUSED);
            return ConnectResult.LIMIT;
        }
        final long idx = tables.allocateIndex();
        if (idx < 0) {
            tables.count(LinkCounter.INDEX_EXHAUSTED);
            return ConnectResult.LIMIT;
        }
        final int ourIndex = (int) idx;
        final byte[] msg1;
        final HandshakeState hs;
        try {
            hs = keys.initiator(peer.compressedPublicKey());
            msg1 = new FmpMsg1(ourIndex, hs.writeMessage1()).encode();
        } catch (final NoiseException e) {
            tables.freeIndex(ourIndex);
            tables.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return ConnectResult.LIMIT;
        }
        final long now = tables.now();
        final OutboundHandshake ob = new OutboundHandshake(peer, transportId, address, ourIndex, hs, msg1, now,
                now + config.handshakeResendIntervalNanos());
        tables.addDial(ob);
        dataPlane.sendHandshake(transportId, address, msg1);
        return ConnectResult.STARTED;
    }

    private void sendDisconnect(final PeerLink peer, final Disconnect.Reason reason) {
        dataPlane.sendLinkMessage(peer.linkId, new Disconnect(reason).encode());
        tables.count(LinkCounter.DISCONNECTS_SENT);
    }

    /** Logs "Link down" with {@code reason} (at DEBUG on shutdown); see {@link PeerLifecycle#remove}. */
    private void remove(final PeerLink peer, final String reason) {
        if (!tables.removePeer(peer)) {
            return;
        }
        final long now = tables.now();
        LOG.log(SHUTDOWN_REASON.equals(reason) ? System.Logger.Level.DEBUG : System.Logger.Level.INFO,
                "Link down: peer {0} at {1} ({2}), link {3} was up {4} s", peer.identity.shortNpub(),
                Redials.format(peer.address), reason, String.valueOf(peer.linkId),
                String.valueOf(Math.max(0, now - peer.promotedNanos) / 1_000_000_000L));
        dataPlane.removeLink(peer.linkId);
        tables.freeIndex(peer.ourIndex);
        if (peer.rekeyInProgress) {
            tables.removeRekey(peer);
            tables.freeIndex(peer.rekeyOurIndex);
        }
        if (peer.hasPending) {
            tables.freeIndex(peer.pendingOurIndex);
        }
        if (peer.draining) {
            tables.freeIndex(peer.previousOurIndex);
        }
        tables.markDirty();
        if (listener != null) {
            listener.onPeerDown(peer.identity, now);
        }
    }

    private PeerLink promote(final PeerIdentity peer, final int transportId, final TransportAddr address,
                             final int ourIndex, final int theirIndex, final byte[] sendKey, final byte[] recvKey,
                             final byte[] remoteEpoch, final boolean outbound) {
        final long now = tables.now();
        final PeerLink link = new PeerLink(peer);
        link.linkId = tables.newLinkId();
        link.transportId = transportId;
        link.address = address;
        link.ourIndex = ourIndex;
        link.theirIndex = theirIndex;
        link.outbound = outbound;
        link.remoteEpoch = remoteEpoch.clone();
        link.promotedNanos = now;
        link.keyEpochStartNanos = now;
        link.keyEpochEstablishedNanos = now;
        link.rekeyJitterSeconds = maintenance.drawJitter();
        // One time base: the data plane stamps frames from the same instant (LinkSpec).
        dataPlane.addLink(new LinkSpec(link.linkId, transportId, address, ourIndex, theirIndex, sendKey, recvKey,
                link.keyEpochStartNanos));
        Arrays.fill(sendKey, (byte) 0);
        Arrays.fill(recvKey, (byte) 0);
        tables.addPeer(link);
        final int failures = redials.onPeerUp(link.nodeAddr);
        tables.count(LinkCounter.LINKS_ESTABLISHED);
        LOG.log(System.Logger.Level.INFO, "Link up: peer {0} at {1} ({2}), link {3}{4}", peer.shortNpub(),
                Redials.format(address), outbound ? "outbound" : "inbound", String.valueOf(link.linkId),
                failures == 0 ? "" : " after " + failures + " failed attempts");
        tables.markDirty();
        return link;
    }

    /** The conductor as its helpers see it. */
    private final class Lifecycle implements PeerLifecycle {
        @Override
        public PeerLink promote(final PeerIdentity peer, final int transportId, final TransportAddr address,
                                final int ourIndex, final int theirIndex, final byte[] sendKey,
                                final byte[] recvKey, final byte[] remoteEpoch, final boolean outbound) {
            return LinkConductor.this.promote(peer, transportId, address, ourIndex, theirIndex, sendKey, recvKey,
                    remoteEpoch, outbound);
        }

        @Override
        public void announceUp(final PeerLink peer) {
            if (listener != null) {
                listener.onPeerUp(peer.identity, peer.linkId, peer.transportId, tables.now());
            }
        }

        @Override
        public void remove(final PeerLink peer, final String reason) {
            LinkConductor.this.remove(peer, reason);
        }

        @Override
        public void restartDetected(final NodeAddr peer) {
            tables.count(LinkCounter.RESTARTS_DETECTED);
            peerRestarts.record(peer);
        }

        @Override
        public void suspectChanged(final PeerLink peer, final boolean suspect) {
            tables.markDirty();
            if (listener != null) {
                listener.onPeerSuspect(peer.identity, suspect, tables.now());
            }
        }

        @Override
        public void closeLosingConnection(final int transportId, final TransportAddr address, final PeerLink keep) {
            if (keep.transportId == transportId && address.equals(keep.address)) {
                return;
            }
            tables.count(LinkCounter.CROSS_CONNECTION_CLOSES);
            connectionCloser.accept(transportId, address);
        }

        @Override
        public LinkListener listener() {
            return listener;
        }
    }

    private void publish() {
        if (!tables.takeDirty()) {
            return;
        }
        final long now = tables.now();
        final List<PeerSnapshot> list = new ArrayList<>(tables.peerCount());
        for (final PeerLink p : tables.peers()) {
            list.add(Snapshots.peer(p, stats.apply(p.linkId), peerRestarts.of(p.nodeAddr), now));
        }
        list.sort((a, b) -> a.nodeAddr().compareTo(b.nodeAddr()));
        final List<DialSnapshot> dials = new ArrayList<>(tables.dialCount());
        for (final OutboundHandshake ob : tables.dials()) {
            dials.add(Snapshots.dial(ob, now));
        }
        published = new LinkSnapshot(now, list, tables.dialCount(), dials, redials.pending(), tables.counters(),
                redials.snapshot());
    }

    // ------------------------------------------------------------------------------------------------------------
    // For tests in this package

    /** @return the established peer with {@code addr}, or null */
    PeerLink peer(final NodeAddr addr) {
        return tables.peer(addr);
    }

    /** @return indices in use (current, pending, previous, dials, rekeys) */
    int indicesInUse() {
        return tables.indicesInUse();
    }

    /** @return msg1s being handled (0 between events) */
    int pendingInbound() {
        return handshakes.pendingInbound();
    }
}
