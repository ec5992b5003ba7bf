package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.NostrConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.DialSnapshot;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.RetrySnapshot;
import net.fips.control.nat.NatAdopter;
import net.fips.control.nat.PublicAddressLearner;
import net.fips.control.nostr.AdvertCache;
import net.fips.control.nostr.AdvertValidity;
import net.fips.control.nostr.Backoff;
import net.fips.control.nostr.DialCandidates;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.RelayPool;
import net.fips.control.nostr.RelayScheduler;
import net.fips.control.nostr.TraversalStarter;
import net.fips.dataplane.transport.Transport;

/**
 * Nostr discovery wired into the node (discovery-gateway.md §1.7-§1.10, §1.12), on the control thread's 1 s tick:
 * rebuild our advert ({@link NostrAdverts}) and hand it to the {@link NostrRuntime}, which publishes on change; for
 * each configured {@code via_nostr} peer (policy not {@code disabled}) look its advert up (cache, else a fetch),
 * and dial its first direct endpoint that one of our transports reaches through the conductor's configured-peer
 * path ({@link LinkConductor#addConfiguredPeer}: the same dial, redial and backoff as a static address); with
 * policy {@code open} also dial cached strangers ({@link LinkConductor#connect}, no redial; after a failure not
 * again for a while). An advert with only the UDP
 * {@code nat} endpoint goes to the {@link TraversalStarter}. Failed dials (the link layer's retry count, or a
 * stranger's dial that ended without a link) feed the failure state; in cooldown the peer is not dialled from its
 * advert (ADR 0043), and when the streak reaches the threshold the advert is fetched again (the stale re-check).
 *
 * <p>Owns the runtime's threads: one timer thread {@code fips-nostr}, the WebSocket client's executor
 * ({@code fips-nostr-http-*}) and the NAT traversal engine's ({@link NatTraversal}, {@code fips-nat-*}, ticked
 * first on each tick); {@link #close()} stops them all.
 */
final class NostrDiscovery implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NostrDiscovery.class.getName());
    /** Re-fetch of a missing advert, at most this often (the live subscription delivers new adverts anyway). */
    static final long FETCH_INTERVAL_NANOS = 30_000_000_000L;
    /** Open-discovery dials per tick, at most (§1.7: 16 discovery connects per tick). */
    static final int OPEN_DIALS_PER_TICK = 16;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** After a won traversal, no new one towards that peer for this long (its handshake runs meanwhile). */
    static final long AFTER_ESTABLISHED_NANOS = 10_000_000_000L;

    private final FipsConfig cfg;
    private final NostrConfig nc;
    private final NodeIdentity identity;
    private final List<Transport> transports;
    private final LinkConductor conductor;
    private final NostrRuntime runtime;
    private final TraversalStarter traversal;
    /** The node's engine when {@link #traversal} is it (null when a test replaced it, or without slots). */
    private final NatTraversal nat;
    private final LongSupplier wallMs;
    private final NostrAdverts adverts;
    private final Map<String, PeerState> peers = new LinkedHashMap<>();
    private final Set<String> configuredNpubs = new LinkedHashSet<>();
    private final Runnable closeThreads;
    private volatile ObjectNode status;
    /** The control clock at the latest tick (ns). */
    private long nowNanos;

    /** What we know of one peer reached (or to be reached) through its advert. Control thread only. */
    private static final class PeerState {
        final PeerIdentity identity;
        final PeerConfig config;
        final String name;
        final AtomicBoolean fetching = new AtomicBoolean();
        long nextFetchNanos;
        /** A stranger is not dialled again before this (open discovery). */
        long nextTryNanos;
        /** The advert endpoint the link layer dials now; null to (re)dial from the advert. */
        String endpoint;
        /** The last endpoint dialled, for show_nostr. */
        String lastEndpoint;
        int lastRetryCount;
        /** Failed attempts so far: picks which reachable advert endpoint is dialled. */
        int rotation;
        boolean pendingStranger;
        boolean linked;
        boolean forgotten;
        /** The next traversal to this peer starts no earlier than this (after a failure: backoff). */
        long nextTraversalNanos;
        /** Traversals that failed in a row since the last link (the backoff's exponent). */
        int traversalFailures;
        String outcome = "waiting for advert";
        long outcomeAtMs;
        long dials;

        PeerState(final PeerIdentity identity, final PeerConfig config) {
            this.identity = identity;
            this.config = config;
            this.name = config != null ? config.alias().orElse(identity.shortNpub()) : identity.shortNpub();
        }
    }

    private NostrDiscovery(final FipsConfig cfg, final NodeIdentity identity, final List<Transport> transports,
            final LinkConductor conductor, final NostrRuntime runtime, final TraversalStarter traversal,
            final NatTraversal nat, final LongSupplier wallMs, final Runnable closeThreads) {
        this.cfg = cfg;
        this.nc = cfg.nostr();
        this.identity = identity;
        this.transports = List.copyOf(transports);
        this.conductor = conductor;
        this.runtime = runtime;
        this.traversal = traversal;
        this.nat = nat;
        this.wallMs = wallMs;
        this.closeThreads = closeThreads;
        // A wildcard-bound public UDP transport learns its public IP by STUN from a fresh 0.0.0.0:0 socket (§1.8).
        this.adverts = new NostrAdverts(PublicAddressLearner.stun(new InetSocketAddress("0.0.0.0", 0),
                nc.stunServers(), nc.advertRefreshSecs()));
        for (final PeerConfig p : cfg.peers()) {
            if ((p.viaNostr() || hasNatAddress(p)) && p.isAutoConnect()) {
                peers.put(p.npub(), new PeerState(p.identity(), p));
            }
            configuredNpubs.add(p.npub());
        }
        if (nat != null) {
            nat.outcomes(this::traversalOutcome);
        }
        render(0);
    }

    /** @return whether the peer has the address {@code udp nat} (reach by NAT traversal, §1.13) */
    static boolean hasNatAddress(final PeerConfig p) {
        return p.addresses().stream().anyMatch(NostrDiscovery::isNat);
    }

    static boolean isNat(final PeerConfig.Address a) {
        return "udp".equals(a.kind()) && "nat".equalsIgnoreCase(a.addr());
    }

    /**
     * Starts the runtime when {@code node.discovery.nostr.enabled} (never waiting for a relay) and hands its tick
     * to {@code onTick} (the control loop's).
     *
     * @return the running discovery, or null when Nostr is off
     */
    static NostrDiscovery startIfEnabled(final FipsConfig cfg, final NodeIdentity identity,
            final List<Transport> transports, final LinkConductor conductor, final NodeOptions options,
            final Optional<NatAdopter> adopter, final Consumer<LongConsumer> onTick) {
        final NostrConfig nc = cfg.nostr();
        if (!nc.enabled()) {
            return null;
        }
        final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("fips-nostr").daemon().factory());
        final ExecutorService httpExecutor = Executors.newCachedThreadPool(
                Thread.ofPlatform().name("fips-nostr-http-", 0).daemon().factory());
        final HttpClient http = HttpClient.newBuilder().executor(httpExecutor).connectTimeout(CONNECT_TIMEOUT)
                .build();
        final LongSupplier wall = System::currentTimeMillis;
        final Set<String> urls = new LinkedHashSet<>();
        urls.addAll(nc.advertRelays());
        urls.addAll(nc.dmRelays());
        final Runnable closeThreads = () -> {
            http.shutdownNow();
            timers.shutdownNow();
            httpExecutor.shutdownNow();
            try {
                http.awaitTermination(Duration.ofSeconds(2));
                timers.awaitTermination(2, TimeUnit.SECONDS);
                httpExecutor.awaitTermination(2, TimeUnit.SECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            final RelayPool pool = new RelayPool(urls, http, RelayScheduler.of(timers), wall, Backoff.RELAY_DEFAULT,
                    CONNECT_TIMEOUT);
            final NostrRuntime runtime = new NostrRuntime(nc, identity, wall, RelayScheduler.of(timers), pool,
                    options.nostrLoopbackEndpoints() ? NostrDiscovery::usableOrLoopback
                            : AdvertValidity::isPubliclyUsable, new SecureRandom());
            final NatTraversal nat = options.traversalStarter().isPresent() || adopter.isEmpty() ? null
                    : NatTraversal.create(nc, identity.npub(), runtime, adopter.get(), wall);
            final TraversalStarter traversal = nat != null ? nat
                    : options.traversalStarter().map(f -> f.apply(runtime)).orElseGet(TraversalStarter::unavailable);
            final NostrDiscovery d = new NostrDiscovery(cfg, identity, transports, conductor, runtime, traversal,
                    nat, wall, closeThreads);
            onTick.accept(d::tick);
            runtime.start();
            LOG.log(Level.INFO, "nostr discovery: {0} relay(s), policy {1}, advertise {2}", urls.size(),
                    nc.policy().name().toLowerCase(Locale.ROOT), nc.advertise());
            return d;
        } catch (final RuntimeException e) {
            closeThreads.run();
            throw e;
        }
    }

    /** The public filter, plus loopback addresses (tests on one host: {@link NodeOptions#nostrLoopbackEndpoints}). */
    static boolean usableOrLoopback(final OverlayAdvert.Endpoint e) {
        if (AdvertValidity.isPubliclyUsable(e)) {
            return true;
        }
        final int colon = e.addr().lastIndexOf(':');
        if (colon <= 0 || !"udp".equals(e.transport()) && !"tcp".equals(e.transport())) {
            return false;
        }
        String host = e.addr().substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return InetAddress.ofLiteral(host).isLoopbackAddress();
        } catch (final IllegalArgumentException ex) {
            return false;
        }
    }

    /** @return the runtime (its {@link net.fips.control.nostr.SignalChannel} for the traversal engine) */
    NostrRuntime runtime() {
        return runtime;
    }

    /** @return the latest {@code show_nostr} object (any thread) */
    ObjectNode status() {
        return status;
    }

    /** One control tick. */
    void tick(final long nowNanos) {
        this.nowNanos = nowNanos;
        if (nat != null) {
            nat.tick();
        }
        runtime.setLocalAdvert(adverts.build(cfg, transports));
        final LinkSnapshot snap = conductor.snapshot();
        if (nc.policy() == NostrConfig.Policy.DISABLED) {
            // Advert endpoints are not dialled, but a static `udp nat` address still starts traversals (§1.10).
            for (final PeerState p : peers.values()) {
                if (p.config != null && hasNatAddress(p.config)) {
                    configuredPeer(p, snap, nowNanos);
                }
            }
        } else {
            for (final PeerState p : peers.values()) {
                if (p.config != null) {
                    configuredPeer(p, snap, nowNanos);
                } else {
                    stranger(p, snap, nowNanos);
                }
            }
            if (nc.policy() == NostrConfig.Policy.OPEN) {
                openDiscovery(snap, nowNanos);
            }
        }
        render(nowNanos);
    }

    private void configuredPeer(final PeerState p, final LinkSnapshot snap, final long now) {
        final String npub = p.identity.npub();
        final long wall = wallMs.getAsLong();
        if (linkedNow(p, snap, wall)) {
            return;
        }
        countRetries(p, snap, wall);
        final OptionalLong cooldown = runtime.cooldownUntil(npub, wall);
        if (cooldown.isPresent()) {
            if (!p.forgotten) {
                p.forgotten = true;
                p.endpoint = null;
                restoreStatics(p);
                outcome(p, "cooldown", wall);
                LOG.log(Level.WARNING, "nostr: peer {0}: not dialled from its advert for {1} s (cooldown after"
                        + " repeated failures)", p.name, Math.max(0, (cooldown.getAsLong() - wall) / 1000));
            }
            return;
        }
        p.forgotten = false;
        final Optional<AdvertCache.Cached> advert = runtime.advert(npub);
        if (advert.isEmpty()) {
            if (now - p.nextFetchNanos >= 0 && p.fetching.compareAndSet(false, true)) {
                p.nextFetchNanos = now + FETCH_INTERVAL_NANOS;
                runtime.fetchAdvert(npub).whenComplete((a, e) -> p.fetching.set(false));
            }
            if (p.endpoint == null) {
                outcome(p, "waiting for advert", wall);
            }
            return;
        }
        dialFromAdvert(p, advert.get(), wall, now);
    }

    private void dialFromAdvert(final PeerState p, final AdvertCache.Cached advert, final long wall,
            final long now) {
        final boolean staticNat = hasNatAddress(p.config);
        final boolean useAdvert = p.config.viaNostr() && nc.policy() != NostrConfig.Policy.DISABLED;
        final List<PeerConfig.Address> statics = p.config.addresses();
        final List<DialCandidates.Candidate> merged = DialCandidates.merge(statics.stream()
                .map(a -> new DialCandidates.Candidate(a.transport(), a.addr(), a.priority(), null)).toList(),
                advert.advert(), wall);
        boolean natOnly = false;
        final List<String> keys = new ArrayList<>();
        final List<NodeSettings.Dial> reachable = new ArrayList<>();
        for (final DialCandidates.Candidate c : merged) {
            if (!c.fromAdvert() || !useAdvert) {
                continue;
            }
            if (c.isNatTraversal()) {
                natOnly = true;
                continue;
            }
            final Optional<NodeSettings.Dial> dial = pick(p.identity, c.transport(), c.addr());
            if (dial.isPresent()) {
                keys.add(c.transport() + " " + c.addr());
                reachable.add(dial.get());
            }
        }
        if (!reachable.isEmpty()) {
            // After each failed attempt the next reachable endpoint is tried (failures move p.rotation on).
            final int i = Math.floorMod(p.rotation, reachable.size());
            final String key = keys.get(i);
            if (key.equals(p.endpoint)) {
                return;
            }
            // The link layer's redial keeps the address it was scheduled with: drop it before the new address.
            conductor.forgetConfiguredPeer(p.identity);
            final LinkConductor.ConnectResult r = conductor.addConfiguredPeer(p.identity,
                    reachable.get(i).transportId(), reachable.get(i).address(), p.config.autoReconnect());
            p.lastRetryCount = 0;
            p.endpoint = key;
            p.lastEndpoint = key;
            p.dials++;
            outcome(p, "dialling", wall);
            LOG.log(Level.INFO, "nostr: peer {0}: dialling {1} from its advert ({2})", p.name, key,
                    r.name().toLowerCase(Locale.ROOT));
            return;
        }
        final boolean advertsNat = advert.advert().hasUdpNatEndpoint();
        if ((natOnly || staticNat) && advertsNat) {
            traverse(p, advert, wall, now);
        } else if (staticNat && p.endpoint == null) {
            outcome(p, "advert has no nat endpoint: no traversal", wall);
        } else if (!natOnly && p.endpoint == null) {
            outcome(p, "no advert endpoint reachable by our transports", wall);
        }
    }

    /**
     * Starts a traversal when none runs and the backoff after the last failure has passed: {@code base_interval}
     * doubled per failure in a row, at most {@code max_backoff} (node.retry); the failure state's cooldown (checked
     * by the caller) stops it for longer after {@code failure_streak_threshold} failures.
     */
    private void traverse(final PeerState p, final AdvertCache.Cached advert, final long wall, final long now) {
        if (nat != null && nat.inFlight(p.identity.npub()) || now - p.nextTraversalNanos < 0
                || dialling(conductor.snapshot(), p.identity.npub())) {
            return;   // running, backing off, or a handshake (perhaps over a punched socket) is in flight
        }
        final boolean started = traversal.start(p.identity, advert);
        if (started) {
            p.dials++;
            p.lastEndpoint = "udp nat";
            outcome(p, "traversal started", wall);
        } else if (nat == null) {
            outcome(p, "nat only: traversal not available", wall);
            p.nextTraversalNanos = now + FETCH_INTERVAL_NANOS;
        }
    }

    /** The engine's outcome for a peer (control thread, inside {@link NatTraversal#tick}). */
    private void traversalOutcome(final String npub, final boolean established) {
        final PeerState p = peers.get(npub);
        if (p == null) {
            return;
        }
        final long wall = wallMs.getAsLong();
        final long now = nowNanos;
        if (established) {
            // The handshake over the punched socket gets its time before another traversal is considered.
            p.traversalFailures = 0;
            p.nextTraversalNanos = now + AFTER_ESTABLISHED_NANOS;
            outcome(p, "traversal established", wall);
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
        outcome(p, "traversal failed", wall);
    }

    /**
     * With policy open: dial cached strangers, within the pending budget; one whose dial failed waits
     * {@value #FETCH_INTERVAL_NANOS} ns times its failures in a row (at most 8) before the next, until its cooldown.
     */
    private void openDiscovery(final LinkSnapshot snap, final long now) {
        final long wall = wallMs.getAsLong();
        long pending = peers.values().stream().filter(s -> s.pendingStranger).count();
        int started = 0;
        for (final AdvertCache.Cached c : runtime.adverts()) {
            if (started >= OPEN_DIALS_PER_TICK || pending >= nc.openDiscoveryMaxPending()) {
                return;
            }
            final String npub = c.authorNpub();
            final PeerState known = peers.get(npub);
            if (configuredNpubs.contains(npub) || snap.peer(npub) != null || dialling(snap, npub)
                    || known != null && (known.pendingStranger || now - known.nextTryNanos < 0)
                    || runtime.cooldownUntil(npub, wall).isPresent()) {
                continue;
            }
            final PeerIdentity id;
            try {
                id = PeerIdentity.fromNpub(npub);
            } catch (final IdentityFormatException e) {
                continue;
            }
            for (final OverlayAdvert.Endpoint e : c.advert().endpoints()) {
                final Optional<NodeSettings.Dial> dial = e.isUdpNat() ? Optional.empty()
                        : pick(id, e.transport(), e.addr());
                if (dial.isEmpty()) {
                    continue;
                }
                final PeerState s = known != null ? known : new PeerState(id, null);
                peers.putIfAbsent(npub, s);
                final LinkConductor.ConnectResult r = conductor.connect(id, dial.get().transportId(),
                        dial.get().address());
                s.endpoint = e.transport() + " " + e.addr();
                s.lastEndpoint = s.endpoint;
                s.dials++;
                s.pendingStranger = r == LinkConductor.ConnectResult.STARTED;
                outcome(s, "dialling", wall);
                LOG.log(Level.DEBUG, "nostr: open discovery: dialling {0} at {1} ({2})", s.name, s.endpoint, r);
                started++;
                pending += s.pendingStranger ? 1 : 0;
                break;
            }
        }
    }

    private void stranger(final PeerState p, final LinkSnapshot snap, final long now) {
        final long wall = wallMs.getAsLong();
        if (linkedNow(p, snap, wall)) {
            p.pendingStranger = false;
            return;
        }
        if (p.pendingStranger && !dialling(snap, p.identity.npub())) {
            p.pendingStranger = false;
            final long streak = failure(p, wall, "dial ended without a link");
            p.nextTryNanos = now + FETCH_INTERVAL_NANOS * Math.min(8, Math.max(1, streak));
        }
    }

    /** @return whether the peer is linked (logging the first time after an advert dial) */
    private boolean linkedNow(final PeerState p, final LinkSnapshot snap, final long wall) {
        final boolean up = snap.peer(p.identity.npub()) != null;
        if (up && !p.linked && p.lastEndpoint != null) {
            LOG.log(Level.INFO, "nostr: peer {0} linked through its advert endpoint {1}", p.name, p.lastEndpoint);
            runtime.recordSuccess(p.identity.npub(), wall);
            outcome(p, "linked", wall);
        }
        p.linked = up;
        return up;
    }

    /** Each failed attempt the link layer counted for this peer since we dialled its advert is a failure. */
    private void countRetries(final PeerState p, final LinkSnapshot snap, final long wall) {
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
    private long failure(final PeerState p, final long wall, final String why) {
        final String npub = p.identity.npub();
        final FailureState.Decision d = runtime.recordFailure(npub, wall);
        outcome(p, "failed", wall);
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
    private void restoreStatics(final PeerState p) {
        final List<String> problems = new ArrayList<>();
        final Optional<NodeSettings.Dial> dial = p.config.addresses().isEmpty() ? Optional.empty()
                : NodeSettings.pickDial(p.config, transports, problems);
        conductor.forgetConfiguredPeer(p.identity);
        if (dial.isPresent()) {
            conductor.addConfiguredPeer(p.identity, dial.get().transportId(), dial.get().address(),
                    p.config.autoReconnect());
        }
    }

    /**
     * @return the dial for one advert endpoint: a UDP endpoint must be an IP literal (no name is resolved on the
     *         control thread, ADR 0043), a TCP one goes to the first TCP transport
     */
    private Optional<NodeSettings.Dial> pick(final PeerIdentity id, final String transport, final String addr) {
        if ("udp".equals(transport)) {
            final int colon = addr.lastIndexOf(':');
            String host = colon > 0 ? addr.substring(0, colon) : addr;
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                InetAddress.ofLiteral(host);
            } catch (final IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        final PeerConfig synthetic = new PeerConfig(id.npub(), id, Optional.empty(),
                List.of(new PeerConfig.Address(transport, addr, PeerConfig.DEFAULT_PRIORITY)),
                PeerConfig.ConnectPolicy.AUTO_CONNECT, true, false);
        return NodeSettings.pickDial(synthetic, transports, new ArrayList<>());
    }

    private static boolean dialling(final LinkSnapshot snap, final String npub) {
        for (final DialSnapshot d : snap.dials()) {
            if (d.npub().equals(npub)) {
                return true;
            }
        }
        return false;
    }

    private static void outcome(final PeerState p, final String what, final long wall) {
        if (!what.equals(p.outcome)) {
            p.outcome = what;
            p.outcomeAtMs = wall;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // show_nostr

    private void render(final long nowNanos) {
        final JsonNodeFactory f = JsonNodeFactory.instance;
        final ObjectNode o = f.objectNode();
        o.put("enabled", true);
        o.put("npub", identity.npub());
        o.put("app", nc.app());
        o.put("policy", nc.policy().name().toLowerCase(Locale.ROOT));
        o.put("advertise", nc.advertise());
        final ArrayNode relays = o.putArray("relays");
        for (final RelayPool.RelayView r : runtime.relays()) {
            final ObjectNode n = relays.addObject();
            n.put("url", r.url());
            n.put("state", r.connected() ? "connected" : "disconnected");
            n.put("advert_relay", nc.advertRelays().contains(r.url()));
            n.put("dm_relay", nc.dmRelays().contains(r.url()));
            n.put("connects", r.stats().connects());
            n.put("connect_failures", r.stats().connectFailures());
            n.put("disconnects", r.stats().disconnects());
            n.put("events_delivered", r.stats().eventsDelivered());
            n.put("events_invalid", r.stats().eventsInvalid());
            n.put("events_expired", r.stats().eventsExpired());
            n.put("malformed_messages", r.stats().malformedMessages());
        }
        final ObjectNode ours = o.putObject("our_advert");
        final OverlayAdvert local = runtime.localAdvert();
        endpoints(ours.putArray("endpoints"), local);
        final NostrRuntime.Published pub = runtime.lastPublished();
        if (pub == null) {
            ours.putNull("last_publish_ms");
            ours.putNull("event_id");
            ours.putNull("expires_at_ms");
            ours.putArray("accepted_by");
        } else {
            ours.put("last_publish_ms", pub.atMs());
            ours.put("event_id", pub.eventId());
            ours.put("expires_at_ms", pub.expiresAtMs());
            final ArrayNode by = ours.putArray("accepted_by");
            pub.relays().forEach(by::add);
        }
        final Long relayList = runtime.relayListPublishedMs();
        if (relayList == null) {
            ours.putNull("relay_list_published_ms");
        } else {
            ours.put("relay_list_published_ms", relayList);
        }
        final ArrayNode seen = o.putArray("adverts");
        for (final AdvertCache.Cached c : runtime.adverts()) {
            final ObjectNode n = seen.addObject();
            n.put("npub", c.authorNpub());
            endpoints(n.putArray("endpoints"), c.advert());
            n.put("created_at", c.createdAt());
            n.put("valid_until_ms", c.validUntilMs());
            n.put("event_id", c.eventId());
        }
        final Map<String, FailureState.View> failures = new LinkedHashMap<>();
        runtime.failures().forEach(v -> failures.put(v.npub(), v));
        final ArrayNode dials = o.putArray("dials");
        for (final PeerState p : peers.values()) {
            final ObjectNode n = dials.addObject();
            n.put("npub", p.identity.npub());
            n.put("display_name", p.name);
            n.put("configured", p.config != null);
            if (p.lastEndpoint == null) {
                n.putNull("endpoint");
            } else {
                n.put("endpoint", p.lastEndpoint);
            }
            n.put("outcome", p.outcome);
            if (p.outcomeAtMs == 0) {
                n.putNull("outcome_at_ms");
            } else {
                n.put("outcome_at_ms", p.outcomeAtMs);
            }
            n.put("dials", p.dials);
            final FailureState.View v = failures.get(p.identity.npub());
            n.put("consecutive_failures", v == null ? 0 : v.consecutiveFailures());
            if (v == null || v.cooldownUntilMs() == null) {
                n.putNull("cooldown_until_ms");
            } else {
                n.put("cooldown_until_ms", v.cooldownUntilMs());
            }
        }
        final ArrayNode traversals = o.putArray("traversals");
        if (nat != null) {
            nat.render(traversals);
        }
        final ObjectNode counters = o.putObject("counters");
        runtime.counters().forEach(counters::put);
        counters.put("traversals_unavailable", traversal.unavailableCount());
        counters.put("traversal_signals_dropped", nat == null ? 0 : nat.signalsDropped());
        status = o;
    }

    private static void endpoints(final ArrayNode out, final OverlayAdvert a) {
        if (a == null) {
            return;
        }
        for (final OverlayAdvert.Endpoint e : a.endpoints()) {
            final ObjectNode n = out.addObject();
            n.put("transport", e.transport());
            n.put("addr", e.addr());
        }
    }

    /** @return a peer's {@code show_peers[].nostr_traversal} numbers, or null when it has no failure record */
    FailureState.View failureOf(final String npub) {
        for (final FailureState.View v : runtime.failures()) {
            if (v.npub().equals(npub)) {
                return v;
            }
        }
        return null;
    }

    /** Stops the runtime (no deletion is sent, §1.8) and its threads. */
    @Override
    public void close() {
        if (nat != null) {
            nat.close();
        }
        adverts.close();
        runtime.close();
        closeThreads.run();
    }

    /** Shown when Nostr discovery is off. */
    static ObjectNode disabledStatus() {
        final ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("enabled", false);
        return o;
    }
}
