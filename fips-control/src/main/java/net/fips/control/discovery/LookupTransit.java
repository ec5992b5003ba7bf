package net.fips.control.discovery;

import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.function.Consumer;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/**
 * The transit and target roles of {@link Discovery} (its class comment describes them): the request table
 * (request_id to the peer it came from), the per-target forward limiter, forwarding a request, answering one for us,
 * and relaying the first response of a recorded request on the reverse path. Same thread and rules as
 * {@link Discovery}, which owns it and counts for it.
 */
final class LookupTransit {
    private static final System.Logger LOG = System.getLogger(Discovery.class.getName());

    private static final class Recent {
        final NodeAddr fromPeer;
        final long at;
        boolean responseForwarded;

        Recent(final NodeAddr fromPeer, final long at) {
            this.fromPeer = fromPeer;
            this.at = at;
        }
    }

    private final DiscoveryConfig config;
    private final MeshView mesh;
    private final ProofSigner signer;
    private final Consumer<DiscoveryCounter> counter;
    private final HashMap<Long, Recent> recent = new HashMap<>();
    private final HashMap<NodeAddr, Long> lastForwarded = new HashMap<>();

    LookupTransit(final DiscoveryConfig config, final MeshView mesh, final ProofSigner signer,
                  final Consumer<DiscoveryCounter> counter) {
        this.config = config;
        this.mesh = mesh;
        this.signer = signer;
        this.counter = counter;
    }

    /** Handles a LookupRequest (transit or target); see {@link Discovery#handleLookupRequest}. */
    void handleRequest(final NodeAddr from, final byte[] msg, final long nowNanos) {
        count(DiscoveryCounter.REQUESTS_RECEIVED);
        final WireResult<LookupRequest> r = LookupRequest.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<LookupRequest>(final LookupRequest req))) {
            count(DiscoveryCounter.REQUESTS_MALFORMED);
            if (debug()) {
                LOG.log(Level.DEBUG, "Malformed LookupRequest from {0}: {1}", from.shortHex(), r.errorOrNull());
            }
            return;
        }
        purgeExpiredRequests(nowNanos);
        final long id = req.requestId();
        if (req.origin().equals(mesh.self())) {
            // Our own request, bounced back by a transit (it does not exclude the peer it came from): recording it
            // would make its response look like one to relay, and the lookup would never complete (ADR 0025).
            count(DiscoveryCounter.REQUESTS_DUPLICATE);
            return;
        }
        if (recent.containsKey(id)) {
            count(DiscoveryCounter.REQUESTS_DUPLICATE);
            if (debug()) {
                LOG.log(Level.DEBUG, "Duplicate LookupRequest {0} from {1}, dropping", Long.toUnsignedString(id),
                        from.shortHex());
            }
            return;
        }
        if (recent.size() >= config.maxRecentRequests()) {
            count(DiscoveryCounter.REQUESTS_TABLE_FULL);
            if (debug()) {
                LOG.log(Level.DEBUG, "Discovery request table full ({0,number,#}), dropping LookupRequest",
                        recent.size());
            }
            return;
        }
        recent.put(id, new Recent(from, nowNanos));

        if (req.target().equals(mesh.self())) {
            count(DiscoveryCounter.REQUESTS_FOR_US);
            if (debug()) {
                LOG.log(Level.DEBUG, "We are the lookup target of request {0} from origin {1}, responding",
                        Long.toUnsignedString(id), req.origin().shortHex());
            }
            sendResponse(req, from);
            return;
        }
        if (req.ttl() == 0) {
            count(DiscoveryCounter.REQUESTS_TTL_EXPIRED);
            if (debug()) {
                LOG.log(Level.DEBUG, "LookupRequest {0} TTL exhausted", Long.toUnsignedString(id));
            }
            return;
        }
        if (!forwardAllowed(req.target(), nowNanos)) {
            count(DiscoveryCounter.REQUESTS_RATE_LIMITED);
            if (debug()) {
                LOG.log(Level.DEBUG, "Forward rate limited, suppressing LookupRequest {0} for {1}",
                        Long.toUnsignedString(id), req.target().shortHex());
            }
            return;
        }
        forward(req);
    }

    private void forward(final LookupRequest req) {
        final NodeAddr target = req.target();
        final List<DiscoveryPeer> peers = mesh.peers();
        boolean anyTree = false;
        for (final DiscoveryPeer p : peers) {
            if (p.treePeer() && p.mayReach(target)) {
                anyTree = true;
                break;
            }
        }
        final LookupRequest next = new LookupRequest(req.requestId(), target, req.origin(), req.ttl() - 1,
                req.minMtu(), req.originCoords());
        byte[] encoded = null;
        int sent = 0;
        for (final DiscoveryPeer p : peers) {
            if (p.treePeer() == anyTree && p.mayReach(target)) {
                if (encoded == null) {
                    encoded = next.encode();
                }
                mesh.sendLinkMessage(p.addr(), encoded);
                sent++;
            }
        }
        if (sent == 0) {
            count(DiscoveryCounter.REQUESTS_NO_ROUTE);
            if (debug()) {
                LOG.log(Level.DEBUG, "No eligible peers to forward LookupRequest {0}",
                        Long.toUnsignedString(req.requestId()));
            }
            return;
        }
        count(DiscoveryCounter.REQUESTS_FORWARDED);
        if (!anyTree) {
            count(DiscoveryCounter.REQUESTS_FORWARDED_FALLBACK);
        }
        if (debug()) {
            LOG.log(Level.DEBUG, "Forwarding LookupRequest {0} for {1}{2}: ttl={3} peers={4}",
                    Long.toUnsignedString(req.requestId()), target.shortHex(), anyTree ? "" : " via non-tree fallback",
                    next.ttl(), sent);
        }
    }

    /** The per-target transit limiter: true (and the target stamped) when a forward is allowed now. */
    private boolean forwardAllowed(final NodeAddr target, final long nowNanos) {
        final long interval = Discovery.secsToNanos(config.forwardMinIntervalSecs());
        final Long last = lastForwarded.get(target);
        if (last != null && nowNanos - last < interval) {
            return false;
        }
        lastForwarded.put(target, nowNanos);
        lastForwarded.values().removeIf(t -> nowNanos - t >= Discovery.FORWARD_MAX_AGE_NANOS);
        return true;
    }

    private void purgeExpiredRequests(final long nowNanos) {
        final long expiry = Discovery.secsToNanos(config.recentExpirySecs());
        recent.values().removeIf(e -> nowNanos - e.at > expiry);
    }

    private void sendResponse(final LookupRequest req, final NodeAddr nextHop) {
        if (!mesh.isPeer(nextHop)) {
            // The request's from_peer went away (only in a race: it was just received from it).
            count(DiscoveryCounter.RESPONSES_NO_ROUTE);
            return;
        }
        final Coords coords = ownCoords(mesh);
        final byte[] proof;
        try {
            proof = signer.sign(LookupResponse.proofBytes(req.requestId(), req.target(), coords));
        } catch (final RuntimeException e) {
            LOG.log(Level.WARNING, "Could not sign LookupResponse proof", e);
            return;
        }
        if (proof == null || proof.length != LookupResponse.PROOF_SIZE) {
            LOG.log(Level.WARNING, "Signer returned no 64-byte proof; LookupResponse not sent");
            return;
        }
        final int pathMtu = fold(Discovery.PATH_MTU_START, mesh.linkMtu(nextHop));
        final LookupResponse resp = new LookupResponse(req.requestId(), req.target(), pathMtu, coords, proof);
        count(DiscoveryCounter.RESPONSES_SENT);
        if (debug()) {
            LOG.log(Level.DEBUG, "Sending LookupResponse {0} to {1}: path_mtu={2,number,#}",
                    Long.toUnsignedString(req.requestId()), nextHop.shortHex(), pathMtu);
        }
        mesh.sendLinkMessage(nextHop, resp.encode());
    }

    /**
     * Relays a response on the reverse path when we recorded its request (the first one only).
     *
     * @param resp a decoded response
     * @return false when its request_id is not one we recorded: then it answers our own lookup
     */
    boolean relay(final LookupResponse resp) {
        final Recent rec = recent.get(resp.requestId());
        if (rec == null) {
            return false;
        }
        if (rec.responseForwarded) {
            count(DiscoveryCounter.RESPONSES_DUPLICATE);
            if (debug()) {
                LOG.log(Level.DEBUG, "Response already forwarded for request {0}, dropping",
                        Long.toUnsignedString(resp.requestId()));
            }
            return true;
        }
        rec.responseForwarded = true;
        if (!mesh.isPeer(rec.fromPeer)) {
            // The reverse path is broken: the peer the request came from is gone. As the reference, no greedy
            // fallback at a transit (its send simply fails); unlike it, we count the loss (resp_no_route).
            count(DiscoveryCounter.RESPONSES_NO_ROUTE);
            if (debug()) {
                LOG.log(Level.DEBUG, "Cannot relay LookupResponse {0}: from_peer {1} is gone",
                        Long.toUnsignedString(resp.requestId()), rec.fromPeer.shortHex());
            }
            return true;
        }
        final int pathMtu = fold(resp.pathMtu(), mesh.linkMtu(rec.fromPeer));
        count(DiscoveryCounter.RESPONSES_RELAYED);
        if (debug()) {
            LOG.log(Level.DEBUG, "Reverse-path forwarding LookupResponse {0} for {1} to {2}: path_mtu={3,number,#}",
                    Long.toUnsignedString(resp.requestId()), resp.target().shortHex(), rec.fromPeer.shortHex(),
                    pathMtu);
        }
        mesh.sendLinkMessage(rec.fromPeer,
                (pathMtu == resp.pathMtu() ? resp : resp.withPathMtu(pathMtu)).encode());
        return true;
    }

    /** @return targets in the per-target forward limiter's table */
    int forwardLimiterSize() {
        return lastForwarded.size();
    }

    /** @return how many request_ids are remembered */
    int recentCount() {
        return recent.size();
    }

    /** @return true when {@code requestId} is in the request table */
    boolean hasRecent(final long requestId) {
        return recent.containsKey(requestId);
    }

    /** @return our coordinate, or just our address while we have none */
    static Coords ownCoords(final MeshView mesh) {
        final Coords c = mesh.selfCoords();
        return c == null || c.isEmpty() ? Coords.of(mesh.self()) : c;
    }

    private static int fold(final int pathMtu, final int linkMtu) {
        return linkMtu > 0 ? Math.min(pathMtu, linkMtu) : pathMtu;
    }

    private static boolean debug() {
        return LOG.isLoggable(Level.DEBUG);
    }

    private void count(final DiscoveryCounter c) {
        counter.accept(c);
    }
}
