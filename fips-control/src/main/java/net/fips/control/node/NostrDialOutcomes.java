package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import net.fips.control.config.FipsConfig;
import net.fips.control.link.DialSnapshot;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.RetrySnapshot;
import net.fips.control.nostr.AdvertCache;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.TraversalStarter;
import net.fips.dataplane.transport.Transport;

/**
 * What becomes of the dials {@link NostrDiscovery} starts from adverts (discovery-gateway.md §1.9, §1.12): a link
 * clears the peer's failure record; each failed attempt the link layer counts, or a stranger's dial that ended
 * without a link, goes into the runtime's failure state (the stale re-check at the threshold; in cooldown a peer
 * goes back to its static addresses, ADR 0043); and NAT traversals start with a backoff after each failure, their
 * outcomes coming from the engine. Control thread only.
 */
final class NostrDialOutcomes {
    /** Logs under discovery's name, as before the split, so that operators' log filters still match. */
    private static final System.Logger LOG = System.getLogger(NostrDiscovery.class.getName());
    /** After a won traversal, no new one towards that peer for this long (its handshake runs meanwhile). */
    static final long AFTER_ESTABLISHED_NANOS = 10_000_000_000L;

    private final FipsConfig cfg;
    private final List<Transport> transports;
    private final LinkConductor conductor;
    private final NostrRuntime runtime;
    private final TraversalStarter traversal;
    /** The node's engine when {@link #traversal} is it (null when a test replaced it, or without slots). */
    private final NatTraversal nat;
    private final LongSupplier wallMs;
    /** Discovery's peers by npub (the same map; control thread only). */
    private final Map<String, NostrPeerState> peers;
    /** The control clock at the latest tick (ns). */
    private final LongSupplier nowNanos;

    NostrDialOutcomes(final FipsConfig cfg, final List<Transport> transports, final LinkConductor conductor,
            final NostrRuntime runtime, final TraversalStarter traversal, final NatTraversal nat,
            final LongSupplier wallMs, final Map<String, NostrPeerState> peers, final LongSupplier nowNanos) {
        this.cfg = cfg;
        this.transports = transports;
        this.conductor = conductor;
        this.runtime = runtime;
        this.traversal = traversal;
        this.nat = nat;
        this.wallMs = wallMs;
        this.peers = peers;
        this.nowNanos = nowNanos;
    }

    /**
     * Starts a traversal when none runs and the backoff after the last failure has passed: {@code base_interval}
     * doubled per failure in a row, at most {@code max_backoff} (node.retry); the failure state's cooldown (checked
     * by the caller) stops it for longer after {@code failure_streak_threshold} failures.
     */
    void traverse(final NostrPeerState p, final AdvertCache.Cached advert, final long wall, final long now) {
        if (nat != null && nat.inFlight(p.identity.npub()) || now - p.nextTraversalNanos < 0
                || dialling(conductor.snapshot(), p.identity.npub())) {
            return;   // running, backing off, or a handshake (perhaps over a punched socket) is in flight
        }
        final boolean started = traversal.start(p.identity, advert);
        if (started) {
            p.dials++;
            p.lastEndpoint = "udp nat";
            p.outcome("traversal started", wall);
        } else if (nat == null) {
            p.outcome("nat only: traversal not available", wall);
            p.nextTraversalNanos = now + NostrDiscovery.FETCH_INTERVAL_NANOS;
        }
    }

    /** The engine's outcome for a peer (control thread, inside {@link NatTraversal#tick}). */
    void traversalOutcome(final String npub, final boolean established) {
        final NostrPeerState p = peers.get(npub);
        if (p == null) {
            return;
        }
        final long wall = wallMs.getAsLong();
        final long now = nowNanos.getAsLong();
        if (established) {
            // The handshake over the punched socket gets its time before another traversal is considered.
            p.traversalFailures = 0;
            p.nextTraversalNanos = now + AFTER_ESTABLISHED_NANOS;
            p.outcome("traversal established", wall);
            return;
        }
        if (conductor.snapshot().peer(npub) != null) {
            // Linked meanwhile (e.g. through the peer's own offer): the failure does not count (§1.12).
            runtime.recordSuccess(npub, wall);
            return;
        }
        p.traversalFailures = Math.min(p.traversalFailures + 1, 16);
        final long base = TimeUnit.SECONDS.toNanos(Math.max(1, cfg.node().retry().baseIntervalSecs()));
        final long max = TimeUnit.SECONDS.toNanos(Math.max(1, cfg.node().retry().maxBackoffSecs()));
        p.nextTraversalNanos = now + Math.min(max, base << (p.traversalFailures - 1));
        p.outcome("traversal failed", wall);
    }

    /** @return whether the peer is linked (logging the first time after an advert dial) */
    boolean linkedNow(final NostrPeerState p, final LinkSnapshot snap, final long wall) {
        final boolean up = snap.peer(p.identity.npub()) != null;
        if (up && !p.linked && p.lastEndpoint != null) {
            LOG.log(Level.INFO, "nostr: peer {0} linked through its advert endpoint {1}", p.name, p.lastEndpoint);
            runtime.recordSuccess(p.identity.npub(), wall);
            p.outcome("linked", wall);
        }
        p.linked = up;
        return up;
    }

    /** Each failed attempt the link layer counted for this peer since we dialled its advert is a failure. */
    void countRetries(final NostrPeerState p, final LinkSnapshot snap, final long wall) {
        if (p.endpoint == null) {
            return;
        }
        int count = 0;
        boolean found = false;
        for (final RetrySnapshot r : snap.retries()) {
            if (r.npub().equals(p.identity.npub())) {
                count = r.retryCount();
                found = true;
            }
        }
        if (!found) {
            if (!dialling(snap, p.identity.npub()) && p.lastRetryCount > 0) {
                // The link layer gave up (max_retries): dial the advert again on the next tick.
                p.endpoint = null;
            }
            p.lastRetryCount = 0;
            return;
        }
        for (int i = p.lastRetryCount; i < count; i++) {
            failure(p, wall, "handshake to " + p.endpoint + " failed");
            p.rotation++;
        }
        p.lastRetryCount = Math.max(p.lastRetryCount, count);
    }

    /** @return the streak after this failure */
    long failure(final NostrPeerState p, final long wall, final String why) {
        final String npub = p.identity.npub();
        final FailureState.Decision d = runtime.recordFailure(npub, wall);
        p.outcome("failed", wall);
        LOG.log(d.shouldWarn() ? Level.WARNING : Level.DEBUG,
                "nostr: peer {0}: dial from its advert failed ({1}); {2} in a row{3}", p.name, why,
                d.consecutiveFailures(), d.cooldownUntilMs() == null ? ""
                        : ", cooldown " + Math.max(0, (d.cooldownUntilMs() - wall) / 1000) + " s");
        if (d.crossedThreshold()) {
            runtime.recheck(npub).whenComplete((r, e) -> LOG.log(Level.INFO,
                    "nostr: peer {0}: advert re-checked after {1} failures: {2}", p.name, d.consecutiveFailures(),
                    e != null ? e.toString() : r.name().toLowerCase(Locale.ROOT)));
        }
        return d.consecutiveFailures();
    }

    /** In cooldown: stop dialling the advert address; a peer with static addresses goes back to them. */
    void restoreStatics(final NostrPeerState p) {
        final List<String> problems = new ArrayList<>();
        final Optional<NodeSettings.Dial> dial = p.config.addresses().isEmpty() ? Optional.empty()
                : NodeSettings.pickDial(p.config, transports, problems);
        conductor.forgetConfiguredPeer(p.identity);
        if (dial.isPresent()) {
            conductor.addConfiguredPeer(p.identity, dial.get().transportId(), dial.get().address(),
                    p.config.autoReconnect());
        }
    }

    static boolean dialling(final LinkSnapshot snap, final String npub) {
        for (final DialSnapshot d : snap.dials()) {
            if (d.npub().equals(npub)) {
                return true;
            }
        }
        return false;
    }
}
