package net.fips.control.discovery;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

import net.fips.control.identity.IdentityCache;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/**
 * Coordinate discovery for one node: finds the tree coordinate of a node we know by identity but cannot route to,
 * by flooding a LookupRequest along peers whose bloom filters claim the target and carrying the target's signed
 * answer back along the reverse path.
 *
 * <p>Roles (this object owns all three; the transit and target parts are in {@link LookupTransit}):
 * <ul>
 * <li><b>originator</b>: {@link #lookup} starts a lookup (already pending, backoff and filter pre-checks; the
 * request goes only to tree peers whose filter contains the target), {@link #tick} runs the retry ladder
 * ({@code attempt_timeouts_secs}, a fresh random request_id per attempt) and finally reports
 * {@link DiscoveryListener#onUnreachable}. A response for a request_id we never relayed is taken as our own: the
 * target's key comes from the {@link IdentityCache}, the proof must verify, then the coordinate goes to the
 * {@link CoordSink} with its path_mtu, the {@link PathMtuClamp} is tightened and
 * {@link DiscoveryListener#onRouteFound} fires. As in the reference, a verified response is accepted even when no
 * lookup is pending for it.</li>
 * <li><b>transit</b>: a request is de-duplicated by request_id (10 s memory, 4096 entries), recorded with the peer
 * it came from, rate-limited per target (one forward per 2 s), its ttl decremented and sent to every tree peer
 * whose filter contains the target, else to every such non-tree peer. The first response for a recorded request
 * is relayed to that peer with path_mtu folded down to the link MTU; later ones are dropped.</li>
 * <li><b>target</b>: a request for us (even with ttl 0) is answered with our coordinate and a proof signed over
 * {@code LookupResponse.proofBytes}, path_mtu starting at 65535 folded with the MTU of the link back.</li>
 * </ul>
 *
 * <p>Single control thread; not thread-safe; starts no threads and keeps no static mutable state. Time is the
 * caller's {@code nowNanos}; request ids come from the injected {@link Random}. Malformed input is counted
 * ({@link DiscoveryCounter}) and dropped, never thrown.
 */
public final class Discovery {
    private static final System.Logger LOG = System.getLogger(Discovery.class.getName());

    /** path_mtu a target starts its response with (u16 max). */
    public static final int PATH_MTU_START = 0xFFFF;
    /** Transit rate-limit entries older than this are forgotten (reference: 60 s). */
    static final long FORWARD_MAX_AGE_NANOS = 60_000_000_000L;
    private static final long NANOS_PER_SEC = 1_000_000_000L;

    /** Outcome of {@link #lookup}. */
    public enum LookupResult {
        /** A request was sent to at least one tree peer and the lookup is pending. */
        STARTED,
        /** A lookup for the target is already pending; nothing sent. */
        ALREADY_PENDING,
        /** Suppressed by the post-failure backoff (only when backoff is configured). */
        BACKOFF,
        /** No peer's filter contains the target: it is not in the mesh as far as we can tell. */
        NOT_IN_FILTERS,
        /** Only non-tree peers claim the target; the origin has no fallback, so the lookup failed at once. */
        NO_TREE_PEER
    }

    /**
     * A lookup in progress, for show/stats.
     *
     * @param target         the node looked up
     * @param initiatedNanos when the first attempt was sent
     * @param lastSentNanos  when the current attempt was sent
     * @param attempt        current attempt, 1-based
     */
    public record PendingLookup(NodeAddr target, long initiatedNanos, long lastSentNanos, int attempt) {
    }

    private static final class Pending {
        final long initiated;
        long lastSent;
        int attempt;

        Pending(final long now) {
            initiated = now;
            lastSent = now;
            attempt = 1;
        }
    }

    private static final class Backoff {
        long suppressUntil;
        int failures;
    }

    private final DiscoveryConfig config;
    private final MeshView mesh;
    private final IdentityCache identities;
    private final CoordSink coordSink;
    private final PathMtuClamp clamp;
    private final DiscoveryListener listener;
    private final ProofSigner signer;
    private final ProofVerifier verifier;
    private final Random random;
    private final LookupTransit transit;

    private final long[] counters = new long[DiscoveryCounter.values().length];
    private final LinkedHashMap<NodeAddr, Pending> pending = new LinkedHashMap<>();
    private final HashMap<NodeAddr, Backoff> backoff = new HashMap<>();

    /**
     * @param config     settings ({@link DiscoveryConfig#defaults()} for the reference's)
     * @param mesh       our address, coordinate, peers and link sends
     * @param identities the node's identity cache (read for proof verification)
     * @param coordSink  the coordinate cache verified responses are written to
     * @param clamp      the path-MTU clamp map ({@link PathMtuClamp#NONE} when there is none)
     * @param listener   session-layer notifications ({@link DiscoveryListener#NONE} to ignore)
     * @param signer     signs our proofs when we are the target ({@link ProofSigner#of})
     * @param verifier   checks proofs ({@link ProofVerifier#SCHNORR})
     * @param random     source of request ids
     */
    public Discovery(final DiscoveryConfig config, final MeshView mesh, final IdentityCache identities,
            final CoordSink coordSink, final PathMtuClamp clamp, final DiscoveryListener listener,
            final ProofSigner signer, final ProofVerifier verifier, final Random random) {
        this.config = Objects.requireNonNull(config, "config");
        this.mesh = Objects.requireNonNull(mesh, "mesh");
        this.identities = Objects.requireNonNull(identities, "identities");
        this.coordSink = Objects.requireNonNull(coordSink, "coordSink");
        this.clamp = Objects.requireNonNull(clamp, "clamp");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.signer = Objects.requireNonNull(signer, "signer");
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.random = Objects.requireNonNull(random, "random");
        this.transit = new LookupTransit(config, mesh, signer, this::count);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Originator

    /**
     * Starts a lookup for {@code target} unless one is pending ({@code maybe_initiate_lookup}). Call it when a
     * packet for a destination with a known identity has no route, and on CoordsRequired/PathBroken for it.
     *
     * @param target   the node to find
     * @param nowNanos caller's clock
     * @return what happened
     */
    public LookupResult lookup(final NodeAddr target, final long nowNanos) {
        Objects.requireNonNull(target, "target");
        if (pending.containsKey(target)) {
            count(DiscoveryCounter.LOOKUPS_ALREADY_PENDING);
            if (debug()) {
                LOG.log(Level.DEBUG, "Discovery lookup deduplicated, already pending for {0}", target.shortHex());
            }
            return LookupResult.ALREADY_PENDING;
        }
        final Backoff b = backoff.get(target);
        if (b != null && nowNanos - b.suppressUntil < 0) {
            count(DiscoveryCounter.LOOKUPS_BACKOFF_SUPPRESSED);
            if (debug()) {
                LOG.log(Level.DEBUG, "Discovery lookup for {0} suppressed by backoff ({1} failures)", target.shortHex(),
                        b.failures);
            }
            return LookupResult.BACKOFF;
        }
        boolean reachable = false;
        for (final DiscoveryPeer p : mesh.peers()) {
            if (p.mayReach(target)) {
                reachable = true;
                break;
            }
        }
        if (!reachable) {
            count(DiscoveryCounter.LOOKUPS_NOT_IN_FILTERS);
            recordFailure(target, nowNanos);
            if (debug()) {
                LOG.log(Level.DEBUG, "Discovery skipped, {0} not in any peer bloom filter", target.shortHex());
            }
            return LookupResult.NOT_IN_FILTERS;
        }
        pending.put(target, new Pending(nowNanos));
        if (sendRequest(target, 1) == 0) {
            pending.remove(target);
            count(DiscoveryCounter.LOOKUPS_NO_TREE_PEER);
            recordFailure(target, nowNanos);
            if (debug()) {
                LOG.log(Level.DEBUG, "Discovery for {0} failed, no tree peers with bloom match", target.shortHex());
            }
            return LookupResult.NO_TREE_PEER;
        }
        count(DiscoveryCounter.LOOKUPS_STARTED);
        return LookupResult.STARTED;
    }

    /**
     * A new filter from {@code peer}: a pending lookup whose target that filter now claims, and which is a tree peer,
     * is sent there at once (a fresh request_id; the attempt count and its timer are unchanged), rather than waiting
     * for the next retry. After a path change a lookup may have gone only to a peer that can no longer answer, and
     * the peer that can says so in its next filter.
     *
     * @return requests sent
     */
    public int onPeerFilter(final NodeAddr peer, final long nowNanos) {
        if (pending.isEmpty()) {
            return 0;
        }
        DiscoveryPeer from = null;
        for (final DiscoveryPeer p : mesh.peers()) {
            if (p.addr().equals(peer)) {
                from = p;
                break;
            }
        }
        if (from == null || !from.treePeer()) {
            return 0;
        }
        int sent = 0;
        for (final NodeAddr target : List.copyOf(pending.keySet())) {
            if (from.mayReach(target)) {
                final LookupRequest req = new LookupRequest(random.nextLong(), target, mesh.self(), config.ttl(), 0,
                        ownCoords());
                mesh.sendLinkMessage(peer, req.encode());
                count(DiscoveryCounter.LOOKUPS_RETRIED);
                sent++;
            }
        }
        return sent;
    }

    /**
     * The periodic step (call it from the 1 s tick): for every pending lookup whose current attempt has waited its
     * {@code attempt_timeouts_secs} entry, sends the next attempt with a fresh request_id, or after the last one
     * drops the lookup and reports {@link DiscoveryListener#onUnreachable}.
     *
     * @param nowNanos caller's clock
     */
    public void tick(final long nowNanos) {
        if (pending.isEmpty()) {
            return;
        }
        final List<Long> timeouts = config.attemptTimeoutsSecs();
        final int maxAttempts = timeouts.size();
        List<NodeAddr> retry = null;
        List<NodeAddr> timedOut = null;
        for (final Map.Entry<NodeAddr, Pending> e : pending.entrySet()) {
            final Pending p = e.getValue();
            final int idx = Math.max(0, p.attempt - 1);
            final long timeout = idx < maxAttempts ? secsToNanos(timeouts.get(idx)) : 0;
            if (nowNanos - p.lastSent >= timeout) {
                if (p.attempt >= maxAttempts) {
                    (timedOut == null ? timedOut = new ArrayList<>() : timedOut).add(e.getKey());
                } else {
                    (retry == null ? retry = new ArrayList<>() : retry).add(e.getKey());
                }
            }
        }
        if (retry != null) {
            for (final NodeAddr target : retry) {
                final Pending p = pending.get(target);
                p.attempt++;
                p.lastSent = nowNanos;
                count(DiscoveryCounter.LOOKUPS_RETRIED);
                final int sent = sendRequest(target, p.attempt);
                if (debug()) {
                    LOG.log(Level.DEBUG, "Discovery retry for {0}: attempt {1}, sent to {2} peers", target.shortHex(),
                            p.attempt, sent);
                }
            }
        }
        if (timedOut != null) {
            for (final NodeAddr target : timedOut) {
                pending.remove(target);
                count(DiscoveryCounter.LOOKUPS_UNREACHABLE);
                recordFailure(target, nowNanos);
                if (debug()) {
                    LOG.log(Level.DEBUG, "Discovery lookup timed out, destination unreachable: {0}", target.shortHex());
                }
                listener.onUnreachable(target, nowNanos);
            }
        }
    }

    /**
     * Forgets every post-failure backoff; call on each topology change (parent switch, new peer, first RTT).
     */
    public void resetBackoff() {
        if (!backoff.isEmpty()) {
            if (debug()) {
                LOG.log(Level.DEBUG, "Resetting discovery backoff on topology change ({0,number,#} entries)",
                        backoff.size());
            }
            backoff.clear();
        }
    }

    /** Sends one attempt's request to the matching tree peers; returns how many. */
    private int sendRequest(final NodeAddr target, final int attempt) {
        final NodeAddr self = mesh.self();
        final LookupRequest req = new LookupRequest(random.nextLong(), target, self, config.ttl(), 0, ownCoords());
        byte[] encoded = null;
        int sent = 0;
        for (final DiscoveryPeer p : mesh.peers()) {
            if (p.treePeer() && p.mayReach(target)) {
                if (encoded == null) {
                    encoded = req.encode();
                }
                mesh.sendLinkMessage(p.addr(), encoded);
                sent++;
            }
        }
        if (debug()) {
            LOG.log(Level.DEBUG, "Discovery lookup initiated: request_id={0} target={1} ttl={2} attempt={3} peers={4}",
                    Long.toUnsignedString(req.requestId()), target.shortHex(), config.ttl(), attempt, sent);
        }
        return sent;
    }

    private void recordFailure(final NodeAddr target, final long nowNanos) {
        if (config.backoffBaseSecs() == 0 || config.backoffMaxSecs() == 0) {
            return; // inert (the default): nothing would ever be suppressed, so keep no state
        }
        final Backoff b = backoff.computeIfAbsent(target, t -> new Backoff());
        b.failures++;
        final long max = config.backoffMaxSecs();
        long secs = config.backoffBaseSecs();
        for (int i = 1; i < b.failures && secs < max; i++) {
            secs = secs > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : secs * 2;
        }
        secs = Math.min(secs, max);
        b.suppressUntil = nowNanos + Math.min(secsToNanos(secs), Long.MAX_VALUE / 4);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receiving

    /**
     * Entry point for a decrypted link message from a peer: LookupRequest and LookupResponse are handled, anything
     * else is counted and ignored.
     *
     * @param from     the peer it came from
     * @param msg      the link message starting at its msg_type byte
     * @param nowNanos caller's clock
     */
    public void onLinkMessage(final NodeAddr from, final byte[] msg, final long nowNanos) {
        if (msg != null && msg.length > 0) {
            final int type = msg[0] & 0xFF;
            if (type == LinkMessageType.LOOKUP_REQUEST.code()) {
                handleLookupRequest(from, msg, nowNanos);
                return;
            }
            if (type == LinkMessageType.LOOKUP_RESPONSE.code()) {
                handleLookupResponse(from, msg, nowNanos);
                return;
            }
        }
        count(DiscoveryCounter.OTHER_MESSAGES);
    }

    /**
     * Handles a LookupRequest (transit or target).
     *
     * @param from     the peer it came from
     * @param msg      the message starting at its msg_type byte (0x30)
     * @param nowNanos caller's clock
     */
    public void handleLookupRequest(final NodeAddr from, final byte[] msg, final long nowNanos) {
        transit.handleRequest(from, msg, nowNanos);
    }

    /**
     * Handles a LookupResponse: relays it on the reverse path when we recorded its request, otherwise verifies it
     * as the answer to our own lookup.
     *
     * @param from     the peer it came from
     * @param msg      the message starting at its msg_type byte (0x31)
     * @param nowNanos caller's clock
     */
    public void handleLookupResponse(final NodeAddr from, final byte[] msg, final long nowNanos) {
        count(DiscoveryCounter.RESPONSES_RECEIVED);
        final WireResult<LookupResponse> r = LookupResponse.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<LookupResponse>(final LookupResponse resp))) {
            count(DiscoveryCounter.RESPONSES_MALFORMED);
            if (debug()) {
                LOG.log(Level.DEBUG, "Malformed LookupResponse from {0}: {1}", from.shortHex(), r.errorOrNull());
            }
            return;
        }
        if (transit.relay(resp)) {
            return;
        }
        accept(resp, nowNanos);
    }

    private void accept(final LookupResponse resp, final long nowNanos) {
        final NodeAddr target = resp.target();
        final IdentityCache.Entry id = identities.lookup(target, nowNanos);
        if (id == null) {
            count(DiscoveryCounter.RESPONSES_IDENTITY_MISS);
            if (debug()) {
                LOG.log(Level.DEBUG, "identity_cache miss for lookup target {0}, cannot verify proof (request {1})",
                        target.shortHex(), Long.toUnsignedString(resp.requestId()));
            }
            return;
        }
        boolean valid;
        try {
            valid = verifier.verify(id.identity().publicKey(), resp.proofBytes(), resp.proof());
        } catch (final RuntimeException e) {
            valid = false;
        }
        if (!valid) {
            count(DiscoveryCounter.RESPONSES_PROOF_FAILED);
            LOG.log(Level.WARNING, "LookupResponse proof verification failed for {0} (request {1}), discarding",
                    target.shortHex(), Long.toUnsignedString(resp.requestId()));
            return;
        }
        count(DiscoveryCounter.RESPONSES_ACCEPTED);
        backoff.remove(target);
        final int pathMtu = resp.pathMtu();
        if (debug()) {
            LOG.log(Level.DEBUG,
                    "Discovery succeeded, proof verified, route cached: target={0} depth={1} path_mtu={2,number,#}",
                    target.shortHex(), resp.targetCoords().depth(), pathMtu);
        }
        coordSink.cacheCoords(target, resp.targetCoords(), pathMtu, nowNanos);
        final int existing = clamp.get(target);
        if (existing <= 0 || existing > pathMtu) {
            clamp.put(target, pathMtu);
        }
        if (pending.remove(target) != null) {
            count(DiscoveryCounter.LOOKUPS_SUCCEEDED);
        }
        listener.onRouteFound(target, resp.targetCoords(), pathMtu, nowNanos);
    }

    private Coords ownCoords() {
        return LookupTransit.ownCoords(mesh);
    }

    /** Seconds to nanoseconds, saturating (configured durations are u64 in the reference). */
    static long secsToNanos(final long secs) {
        return secs >= Long.MAX_VALUE / NANOS_PER_SEC ? Long.MAX_VALUE : secs * NANOS_PER_SEC;
    }

    private static boolean debug() {
        return LOG.isLoggable(Level.DEBUG);
    }

    void count(final DiscoveryCounter c) {
        counters[c.ordinal()]++;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Introspection

    /** @param c a counter @return its value */
    public long counter(final DiscoveryCounter c) {
        return counters[c.ordinal()];
    }

    /** @return every counter's value */
    public Map<DiscoveryCounter, Long> counters() {
        final EnumMap<DiscoveryCounter, Long> m = new EnumMap<>(DiscoveryCounter.class);
        for (final DiscoveryCounter c : DiscoveryCounter.values()) {
            m.put(c, counters[c.ordinal()]);
        }
        return m;
    }

    /** @return the counters in the shape of the reference's {@code show_routing} {@code discovery} object */
    public DiscoveryStats stats() {
        return DiscoveryStats.of(this);
    }

    /** @return an immutable view for publishing to reader threads */
    public DiscoverySnapshot snapshot() {
        return new DiscoverySnapshot(stats(), pendingLookups(), transit.recentCount());
    }

    /** @param target a node @return true while a lookup for it is pending */
    public boolean isPending(final NodeAddr target) {
        return pending.containsKey(target);
    }

    /** @return the pending lookups, oldest first */
    public List<PendingLookup> pendingLookups() {
        final List<PendingLookup> out = new ArrayList<>(pending.size());
        for (final Map.Entry<NodeAddr, Pending> e : pending.entrySet()) {
            final Pending p = e.getValue();
            out.add(new PendingLookup(e.getKey(), p.initiated, p.lastSent, p.attempt));
        }
        return out;
    }

    /** @return how many request_ids are remembered (expired ones linger until the next request purges them) */
    public int recentRequestCount() {
        return transit.recentCount();
    }

    /** @return targets in the transit limiter's table (entries older than 60 s go at the next forward) */
    public int forwardLimiterSize() {
        return transit.forwardLimiterSize();
    }

    /** @return targets under a failed-lookup backoff (cleared as a whole when the topology changes) */
    public int backoffSize() {
        return backoff.size();
    }

    /** @param requestId a request_id @return true when it is in the request table */
    public boolean hasRecentRequest(final long requestId) {
        return transit.hasRecent(requestId);
    }

    /** @return the settings */
    public DiscoveryConfig config() {
        return config;
    }
}
