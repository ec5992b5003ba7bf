package net.fips.control.link;

import net.fips.dataplane.transport.TransportAddr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.LongFunction;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpPrefix;
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
 * reproduced, including the quirks the spec records: rekey cutover is tick-driven on both sides, a msg1 on a session
 * younger than 30 s is a duplicate, and the stored msg2 is never cleared.
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

    final NodeIdentity identity;
    final NodeAddr ourAddr;
    final byte[] secret;
    final byte[] epoch;
    final DataPlaneCommands dataPlane;
    final LongFunction<LinkStats> stats;
    final Random random;
    final LinkConfig config;
    final PeerFilter filter;
    final EphemeralSource ephemerals;
    final IndexAllocator indices;
    final TokenBucket msg1Bucket;
    final long[] counters = new long[LinkCounter.values().length];

    final Map<NodeAddr, PeerLink> peers = new HashMap<>();
    final Map<Long, PeerLink> peersByLink = new HashMap<>();
    private java.util.function.IntPredicate admission = id -> true;
    private java.util.function.BiConsumer<Integer, net.fips.dataplane.transport.TransportAddr> connectionCloser =
            (id, address) -> { };
    /** Dials by (transport, our index): msg2 matching. */
    final Map<Long, OutboundHandshake> pendingOutbound = new LinkedHashMap<>();
    /** Own rekeys by (transport, rekey index): rekey msg2 matching. */
    final Map<Long, PeerLink> pendingRekeys = new HashMap<>();
    final Map<NodeAddr, ConfiguredPeer> configured = new LinkedHashMap<>();
    final Map<NodeAddr, RetryState> retries = new LinkedHashMap<>();
    /** Restarts detected per peer, kept across its links. */
    final PeerRestarts peerRestarts = new PeerRestarts();
    /** "No answer to our handshakes" lines: one per peer per minute. */
    final LogThrottle<NodeAddr> unansweredDialLog = new LogThrottle<>(LOG_THROTTLE_NANOS, LOG_THROTTLE_KEYS);
    /** "A msg1 that is not for our key" lines: one per source address per minute. */
    final LogThrottle<TransportAddr> undecryptableMsg1Log = new LogThrottle<>(LOG_THROTTLE_NANOS,
            LOG_THROTTLE_KEYS);

    final Handshakes handshakes;
    final Maintenance maintenance;
    final Announces announces;

    long now;
    private long nextTick;
    private long nextLinkId = 1;
    int pendingInbound;
    private volatile LinkSnapshot published;
    private boolean dirty = true;
    private LinkListener listener;
    private volatile EcnCongestion ecn;

    /** A peer from the configuration (or added at runtime) that we dial and, if asked, redial. */
    record ConfiguredPeer(PeerIdentity identity, int transportId, TransportAddr address,
                          boolean autoReconnect) {
    }

    /** Backoff state of a peer to be redialled (reference src/node/retry.rs). */
    static final class RetryState {
        final ConfiguredPeer peer;
        int retryCount;
        long retryAfterNanos;
        boolean reconnect;
        /** Dials that failed since the peer was last up; the WARN line is written at 1, 2, 4, 8, ... of them. */
        int failures;

        RetryState(final ConfiguredPeer peer) {
            this.peer = peer;
        }
    }

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
        if (startupEpoch == null || startupEpoch.length != HandshakeState.EPOCH_BYTES) {
            throw new IllegalArgumentException("startup epoch must be 8 bytes");
        }
        this.identity = Objects.requireNonNull(identity, "identity");
        this.ourAddr = identity.nodeAddr();
        this.secret = identity.secretKey();
        this.epoch = startupEpoch.clone();
        this.dataPlane = Objects.requireNonNull(dataPlane, "dataPlane");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.random = Objects.requireNonNull(random, "random");
        this.config = Objects.requireNonNull(config, "config");
        this.filter = filter == null ? PeerFilter.ALLOW_ALL : filter;
        this.ephemerals = () -> {
            final byte[] sk = new byte[32];
            do {
                random.nextBytes(sk);
            } while (!Secp256k1.isValidSecret(sk));
            return sk;
        };
        this.indices = new IndexAllocator(random);
        this.msg1Bucket = new TokenBucket(config.msg1Burst(), config.msg1RatePerSecond(), nowNanos);
        this.now = nowNanos;
        this.nextTick = nowNanos;
        this.handshakes = new Handshakes(this);
        this.maintenance = new Maintenance(this);
        this.announces = new Announces(this);
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
        advance(nowNanos);
        if (now - nextTick < 0) {
            return 0;
        }
        // A late duty cycle runs one tick, not a burst of catch-up ticks: every check is "since", not "per tick".
        nextTick = now + config.tickNanos();
        final int work = tick();
        // Every tick republishes, so ages and live counters in the snapshot are at most one tick old.
        dirty = true;
        publish();
        return work + 1;
    }

    /**
     * Handles one data-plane event at the time of the latest {@link #doWork} or {@code onEvent} call.
     *
     * @param event the event
     */
    public void onEvent(final DataPlaneEvent event) {
        onEvent(event, now);
    }

    /**
     * Handles one data-plane event.
     *
     * @param event    the event
     * @param nowNanos the control clock
     */
    public void onEvent(final DataPlaneEvent event, final long nowNanos) {
        advance(nowNanos);
        switch (event) {
            case DataPlaneEvent.HandshakeReceived h -> onHandshake(h);
            case DataPlaneEvent.LinkMessageReceived m -> {
                final PeerLink peer = peersByLink.get(m.linkId());
                if (peer != null) {
                    announces.onLinkMessage(peer, m.timestampMs(), m.message());
                }
            }
            case DataPlaneEvent.CutOver c -> {
                final PeerLink peer = peersByLink.get(c.linkId());
                if (peer != null) {
                    maintenance.onDataPlaneCutover(peer, c.ourIndex(), c.sessionStartNanos());
                }
            }
            case DataPlaneEvent.AddressChanged a -> {
                final PeerLink peer = peersByLink.get(a.linkId());
                if (peer != null) {
                    peer.address = a.address();
                }
            }
            case DataPlaneEvent.TooManyDecryptFailures f -> {
                final PeerLink peer = peersByLink.get(f.linkId());
                if (peer != null) {
                    count(LinkCounter.DECRYPT_FAILURE_REMOVALS);
                    removePeer(peer, "too many decryption failures");
                    scheduleReconnect(peer.nodeAddr);
                }
            }
            // Only raised with a forwarding table installed; the routing layer handles them, not the link layer.
            case DataPlaneEvent.RoutingEvent r -> {
            }
            // Only raised with the session path on; the session layer handles them.
            case DataPlaneEvent.SessionEvent s -> {
            }
        }
        dirty = true;
        publish();
    }

    /**
     * Sets which transports admit a stranger's msg1 (transports.md §1.6: {@code Transport.acceptConnections()}); a
     * msg1 from an address that is no established peer's on such a transport is dropped and counted
     * ({@link LinkCounter#MSG1_NOT_ADMITTED}); an established peer's (rekey) is always admitted. Default: all.
     */
    public void setAdmission(final java.util.function.IntPredicate acceptsStrangers) {
        this.admission = java.util.Objects.requireNonNull(acceptsStrangers);
    }

    /**
     * Sets how the link layer closes a connection of a connection-oriented transport
     * ({@code Transport.closeConnection}): used for the losing connection of a cross-connection (two TCP
     * connections to one peer, one per dial), as the reference does. Default: nothing (tests without transports).
     */
    public void setConnectionCloser(
            final java.util.function.BiConsumer<Integer, net.fips.dataplane.transport.TransportAddr> closer) {
        this.connectionCloser = java.util.Objects.requireNonNull(closer);
    }

    /** Closes the connection behind {@code address} unless it is the one {@code keep} uses. */
    void closeLosingConnection(final int transportId, final net.fips.dataplane.transport.TransportAddr address,
                               final PeerLink keep) {
        if (keep.transportId == transportId && address.equals(keep.address)) {
            return;
        }
        count(LinkCounter.CROSS_CONNECTION_CLOSES);
        connectionCloser.accept(transportId, address);
    }

    private boolean admitted(final int transportId, final net.fips.dataplane.transport.TransportAddr from) {
        if (admission.test(transportId)) {
            return true;
        }
        for (final PeerLink p : peers.values()) {
            if (p.transportId == transportId && from.equals(p.address)) {
                return true;
            }
        }
        return false;
    }

    private void onHandshake(final DataPlaneEvent.HandshakeReceived h) {
        final byte[] p = h.packet();
        if (p.length < FmpPrefix.SIZE || (p[0] & 0xF0) != 0) {
            count(LinkCounter.HANDSHAKE_MALFORMED);
            return;
        }
        if ((p[0] & 0x0F) == FmpPrefix.PHASE_MSG1 && !admitted(h.transportId(), h.from())) {
            count(LinkCounter.MSG1_NOT_ADMITTED);
            return;
        }
        switch (p[0] & 0x0F) {
            case FmpPrefix.PHASE_MSG1 -> handshakes.onMsg1(h.transportId(), h.from(), p);
            case FmpPrefix.PHASE_MSG2 -> handshakes.onMsg2(h.transportId(), h.from(), p);
            default -> count(LinkCounter.HANDSHAKE_MALFORMED);
        }
    }

    /** Sets the ECN congestion detector that runs on every tick (before {@code start}; none by default). */
    public void setEcn(final EcnCongestion congestion) {
        this.ecn = congestion;
    }

    /** @return the ECN congestion detector, or null */
    public EcnCongestion ecn() {
        return ecn;
    }

    private void advance(final long nowNanos) {
        // The clock may only move forward; an older reading (another thread's clock) is ignored.
        if (nowNanos - now > 0) {
            now = nowNanos;
        }
    }

    private int tick() {
        int work = maintenance.checkHandshakeTimeouts();
        work += maintenance.resendHandshakes();
        work += maintenance.resendRekeys();
        work += processRetries();
        final LinkListener l = listener;
        if (l != null) {
            work += l.onRoutingTick(now);
        }
        work += announces.sendMmpReports();
        final EcnCongestion e = ecn;
        if (e != null) {
            work += e.update(this);
        }
        work += maintenance.checkHeartbeats();
        work += maintenance.checkRekey();
        if (l != null) {
            work += l.onLookupTick(now);
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
        dirty = true;
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
        configured.put(peer.nodeAddr(), new ConfiguredPeer(peer, transportId, address, autoReconnect));
        final ConnectResult r = initiate(peer, transportId, address);
        if (r == ConnectResult.LIMIT) {
            scheduleRetry(peer.nodeAddr(), "handshake limit reached");
        }
        dirty = true;
        publish();
        return r;
    }

    /**
     * Operator {@code disconnect}: sends Disconnect(ConfigurationChange), removes the peer and cancels any
     * reconnect of it.
     *
     * @param peer the peer
     * @return false when it was not an established peer
     */
    public boolean disconnect(final PeerIdentity peer) {
        final PeerLink link = peers.get(peer.nodeAddr());
        if (link == null) {
            return false;
        }
        sendDisconnect(link, Disconnect.Reason.CONFIGURATION_CHANGE);
        removePeer(link, "operator disconnect");
        retries.remove(peer.nodeAddr());
        dirty = true;
        publish();
        return true;
    }

    /** Sends Disconnect(Shutdown) to every peer and forgets all link state. */
    public void shutdown() {
        for (final PeerLink link : List.copyOf(peers.values())) {
            sendDisconnect(link, Disconnect.Reason.SHUTDOWN);
            removePeer(link, SHUTDOWN_REASON);
        }
        for (final OutboundHandshake ob : List.copyOf(pendingOutbound.values())) {
            dropOutbound(ob);
        }
        retries.clear();
        configured.clear();
        dirty = true;
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

    LinkListener listener() {
        return listener;
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
        final PeerLink link = peers.get(peer.nodeAddr());
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
        final PeerLink link = peers.get(peer);
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
        return ourAddr;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Shared helpers

    ConnectResult initiate(final PeerIdentity peer, final int transportId, final TransportAddr address) {
        final NodeAddr addr = peer.nodeAddr();
        if (addr.equals(ourAddr)) {
            return ConnectResult.SELF;
        }
        if (peers.containsKey(addr)) {
            return ConnectResult.ALREADY_CONNECTED;
        }
        for (final OutboundHandshake ob : pendingOutbound.values()) {
            if (ob.peer.nodeAddr().equals(addr)) {
                return ConnectResult.IN_PROGRESS;
            }
        }
        if (!filter.allows(peer, PeerFilter.Context.OUTBOUND_CONNECT)) {
            LOG.log(System.Logger.Level.WARNING, "Rejected peer by ACL (outbound connect): {0}", peer.npub());
            count(LinkCounter.ACL_REJECTED);
            return ConnectResult.DENIED;
        }
        if (pendingOutbound.size() >= config.maxConnections()) {
            count(LinkCounter.MAX_CONNECTIONS_REFUSED);
            return ConnectResult.LIMIT;
        }
        final long idx = indices.allocate();
        if (idx < 0) {
            count(LinkCounter.INDEX_EXHAUSTED);
            return ConnectResult.LIMIT;
        }
        final int ourIndex = (int) idx;
        final byte[] msg1;
        final HandshakeState hs;
        try {
            hs = HandshakeState.initiator(HandshakeState.Pattern.IK, secret, peer.compressedPublicKey(), epoch,
                    ephemerals);
            msg1 = new FmpMsg1(ourIndex, hs.writeMessage1()).encode();
        } catch (final NoiseException e) {
            indices.free(ourIndex);
            count(LinkCounter.HANDSHAKE_CRYPTO_FAILED);
            return ConnectResult.LIMIT;
        }
        final OutboundHandshake ob = new OutboundHandshake(peer, transportId, address, ourIndex, hs, msg1, now,
                now + config.handshakeResendIntervalNanos());
        pendingOutbound.put(key(transportId, ourIndex), ob);
        dataPlane.sendHandshake(transportId, address, msg1);
        return ConnectResult.STARTED;
    }

    void dropOutbound(final OutboundHandshake ob) {
        pendingOutbound.remove(key(ob.transportId, ob.ourIndex));
        indices.free(ob.ourIndex);
    }

    long newLinkId() {
        return nextLinkId++;
    }

    /** Forgets an established peer: its data-plane link and all its indices (reference
     * {@code remove_active_peer}). Sends nothing. Logs "Link down" with {@code reason} (at DEBUG on shutdown). */
    void removePeer(final PeerLink peer, final String reason) {
        if (peers.get(peer.nodeAddr) != peer) {
            return;
        }
        LOG.log(SHUTDOWN_REASON.equals(reason) ? System.Logger.Level.DEBUG : System.Logger.Level.INFO,
                "Link down: peer {0} at {1} ({2}), link {3} was up {4} s", peer.identity.shortNpub(),
                format(peer.address), reason, String.valueOf(peer.linkId),
                String.valueOf(Math.max(0, now - peer.promotedNanos) / 1_000_000_000L));
        peers.remove(peer.nodeAddr);
        peersByLink.remove(peer.linkId);
        dataPlane.removeLink(peer.linkId);
        indices.free(peer.ourIndex);
        if (peer.rekeyInProgress) {
            pendingRekeys.remove(key(peer.transportId, peer.rekeyOurIndex));
            indices.free(peer.rekeyOurIndex);
        }
        if (peer.hasPending) {
            indices.free(peer.pendingOurIndex);
        }
        if (peer.draining) {
            indices.free(peer.previousOurIndex);
        }
        dirty = true;
        if (listener != null) {
            listener.onPeerDown(peer.identity, now);
        }
    }

    /** Tells the listener that {@code peer}'s link became suspect or answers again (fast failover). */
    void onSuspect(final PeerLink peer, final boolean suspect) {
        dirty = true;
        if (listener != null) {
            listener.onPeerSuspect(peer.identity, suspect, now);
        }
    }

    void sendDisconnect(final PeerLink peer, final Disconnect.Reason reason) {
        dataPlane.sendLinkMessage(peer.linkId, new Disconnect(reason).encode());
        count(LinkCounter.DISCONNECTS_SENT);
    }

    /**
     * After a failed or timed-out dial (reference {@code schedule_retry}). A configured peer's failures are logged
     * at WARN on the 1st, 2nd, 4th, 8th, ... failure in a row, with the count and the next attempt's delay, so a
     * peer that stays unreachable costs a few lines, not one per attempt.
     *
     * @param why what went wrong, for the log
     */
    void scheduleRetry(final NodeAddr addr, final String why) {
        if (config.maxRetries() == 0 || peers.containsKey(addr)) {
            return;
        }
        final RetryState state = retries.get(addr);
        if (state != null) {
            state.retryCount++;
            state.failures++;
            if (!state.reconnect && state.retryCount > config.maxRetries()) {
                retries.remove(addr);
                LOG.log(System.Logger.Level.WARNING, "Peer {0} at {1}: giving up after {2} failed attempts ({3})",
                        state.peer.identity().shortNpub(), format(state.peer.address()),
                        String.valueOf(state.failures), why);
                return;
            }
            state.retryAfterNanos = now + backoff(state.retryCount);
            logFailure(state, why);
            return;
        }
        final ConfiguredPeer cp = configured.get(addr);
        if (cp != null) {
            final RetryState s = new RetryState(cp);
            s.retryCount = 1;
            s.reconnect = true;
            s.retryAfterNanos = now + backoff(1);
            s.failures = 1;
            retries.put(addr, s);
            logFailure(s, why);
        }
    }

    private void logFailure(final RetryState s, final String why) {
        if (Integer.bitCount(s.failures) != 1) {
            return;
        }
        final long nextSecs = Math.max(0, s.retryAfterNanos - now) / 1_000_000_000L;
        if (s.failures == 1) {
            LOG.log(System.Logger.Level.WARNING, "Peer {0} at {1}: cannot connect ({2}); retrying in {3} s",
                    s.peer.identity().shortNpub(), format(s.peer.address()), why, String.valueOf(nextSecs));
        } else {
            LOG.log(System.Logger.Level.WARNING,
                    "Peer {0} at {1}: still cannot connect after {2} attempts ({3}); retrying in {4} s,"
                    + " next report after {5} failures", s.peer.identity().shortNpub(), format(s.peer.address()),
                    String.valueOf(s.failures), why, String.valueOf(nextSecs), String.valueOf(2 * s.failures));
        }
    }

    private static String format(final TransportAddr a) {
        return a == null ? "?" : a.toString();
    }

    /** After a link-dead, Disconnect, restart or decrypt-failure removal (reference {@code schedule_reconnect}). */
    void scheduleReconnect(final NodeAddr addr) {
        final ConfiguredPeer cp = configured.get(addr);
        if (cp == null || !cp.autoReconnect()) {
            return;
        }
        final RetryState state = retries.get(addr);
        if (state != null) {
            state.reconnect = true;
            state.retryCount++;
            state.retryAfterNanos = now + backoff(state.retryCount);
            return;
        }
        final RetryState s = new RetryState(cp);
        s.reconnect = true;
        s.retryAfterNanos = now + backoff(0);
        retries.put(addr, s);
    }

    private long backoff(final int retryCount) {
        final long mult = retryCount >= 62 ? Long.MAX_VALUE : 1L << retryCount;
        final long base = config.retryBaseNanos();
        final long delay = mult > Long.MAX_VALUE / Math.max(1, base) ? Long.MAX_VALUE : base * mult;
        return Math.min(delay, config.retryMaxBackoffNanos());
    }

    private int processRetries() {
        if (retries.isEmpty() || peers.size() >= config.maxPeers()) {
            return 0;
        }
        int started = 0;
        final List<NodeAddr> due = new ArrayList<>();
        for (final Map.Entry<NodeAddr, RetryState> e : retries.entrySet()) {
            if (now - e.getValue().retryAfterNanos >= 0) {
                due.add(e.getKey());
            }
        }
        for (final NodeAddr addr : due) {
            if (started >= config.maxRetriesPerTick()) {
                break;
            }
            if (peers.containsKey(addr)) {
                retries.remove(addr);
                continue;
            }
            final RetryState state = retries.get(addr);
            final ConfiguredPeer cp = state.peer;
            final ConnectResult r = initiate(cp.identity(), cp.transportId(), cp.address());
            started++;
            count(LinkCounter.RETRIES_STARTED);
            if (r == ConnectResult.STARTED || r == ConnectResult.IN_PROGRESS) {
                state.retryAfterNanos = now + config.handshakeTimeoutNanos();
            } else if (r == ConnectResult.ALREADY_CONNECTED) {
                retries.remove(addr);
            } else {
                scheduleRetry(addr, "dial not started: " + r.name().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return started;
    }

    void count(final LinkCounter c) {
        counters[c.ordinal()]++;
    }

    void markDirty() {
        dirty = true;
    }

    static long key(final int transportId, final int index) {
        return ((long) transportId << 32) | Integer.toUnsignedLong(index);
    }

    LinkStats statsOf(final PeerLink peer) {
        return stats.apply(peer.linkId);
    }

    /** A changed epoch: counted for the node and for the peer. */
    void restartDetected(final NodeAddr peer) {
        count(LinkCounter.RESTARTS_DETECTED);
        peerRestarts.record(peer);
    }

    PeerLink promoteNew(final PeerIdentity peer, final int transportId, final TransportAddr address,
                        final int ourIndex, final int theirIndex, final byte[] sendKey, final byte[] recvKey,
                        final byte[] remoteEpoch, final boolean outbound) {
        final PeerLink link = new PeerLink(peer);
        link.linkId = newLinkId();
        link.transportId = transportId;
        link.address = address;
        link.ourIndex = ourIndex;
        link.theirIndex = theirIndex;
        link.outbound = outbound;
        link.remoteEpoch = remoteEpoch.clone();
        link.promotedNanos = now;
        link.sessionStartNanos = now;
        link.sessionEstablishedNanos = now;
        link.rekeyJitterSeconds = maintenance.drawJitter();
        // One time base: the data plane stamps frames from the same instant (LinkSpec).
        dataPlane.addLink(new net.fips.dataplane.LinkSpec(link.linkId, transportId, address, ourIndex, theirIndex,
                sendKey, recvKey, link.sessionStartNanos));
        Arrays.fill(sendKey, (byte) 0);
        Arrays.fill(recvKey, (byte) 0);
        peers.put(link.nodeAddr, link);
        peersByLink.put(link.linkId, link);
        final RetryState retry = retries.remove(link.nodeAddr);
        count(LinkCounter.LINKS_ESTABLISHED);
        LOG.log(System.Logger.Level.INFO, "Link up: peer {0} at {1} ({2}), link {3}{4}", peer.shortNpub(),
                format(address), outbound ? "outbound" : "inbound", String.valueOf(link.linkId),
                retry == null || retry.failures == 0 ? "" : " after " + retry.failures + " failed attempts");
        dirty = true;
        return link;
    }

    private void publish() {
        if (!dirty) {
            return;
        }
        dirty = false;
        final List<PeerSnapshot> list = new ArrayList<>(peers.size());
        for (final PeerLink p : peers.values()) {
            list.add(Snapshots.peer(this, p));
        }
        list.sort((a, b) -> a.nodeAddr().compareTo(b.nodeAddr()));
        final List<DialSnapshot> dials = new ArrayList<>(pendingOutbound.size());
        for (final OutboundHandshake ob : pendingOutbound.values()) {
            dials.add(Snapshots.dial(this, ob));
        }
        final List<RetrySnapshot> retryList = new ArrayList<>(retries.size());
        for (final Map.Entry<NodeAddr, RetryState> e : retries.entrySet()) {
            final RetryState r = e.getValue();
            retryList.add(new RetrySnapshot(e.getKey().toString(), r.peer.identity().npub(), r.retryCount,
                    (r.retryAfterNanos - now) / 1_000_000L, r.peer.autoReconnect()));
        }
        published = new LinkSnapshot(now, list, pendingOutbound.size(), dials, retries.size(), counters, retryList);
    }

    /** @return established peer count (control thread only; others use {@link #snapshot()}) */
    int peerCount() {
        return peers.size();
    }

    Iterator<PeerLink> peerIterator() {
        return new ArrayList<>(peers.values()).iterator();
    }
}
