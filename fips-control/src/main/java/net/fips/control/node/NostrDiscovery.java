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
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.config.NostrConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.nat.NatAdopter;
import net.fips.control.nat.PublicAddressLearner;
import net.fips.control.nostr.AdvertCache;
import net.fips.control.nostr.AdvertValidity;
import net.fips.control.nostr.Backoff;
import net.fips.control.nostr.DialCandidates;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.OpenDiscoverySweep;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.RelayPool;
import net.fips.control.nostr.RelayScheduler;
import net.fips.control.nostr.TraversalStarter;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.wire.FmpPrefix;

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
 * This class dials; what becomes of the dials (links, failures, traversal backoff) is {@link NostrDialOutcomes}'s
 * job, the per-peer state is a {@link NostrPeerState}, and {@code show_nostr} is rendered by {@link NostrStatusView}.
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

    private final FipsConfig cfg;
    private final NostrConfig nc;
    private final NodeIdentity identity;
    private final List<Transport> transports;
    private final LinkConductor conductor;
    private final NostrRuntime runtime;
    /** The node's traversal engine (null when a test replaced it, or without slots). */
    private final NatTraversal nat;
    private final LongSupplier wallMs;
    private final NostrAdverts adverts;
    private final Map<String, NostrPeerState> peers = new LinkedHashMap<>();
    private final Set<String> configuredNpubs = new LinkedHashSet<>();
    private final NostrDialOutcomes outcomes;
    private final NostrStatusView view;
    private final Runnable closeThreads;
    /** The node's adoption slots (whose peer a foreign-version packet came from), or null without them. */
    private final NatAdopter adopter;
    /** When discovery started, Unix ms: the startup sweep runs {@code startup_sweep_delay_secs} later (§1.10). */
    private final long startedAtMs;
    private boolean startupSweepDone;
    private volatile OpenDiscoverySweep.Result startupSweep;
    private volatile OpenDiscoverySweep.Result lastSweep;
    private volatile ObjectNode status;
    /** The control clock at the latest tick (ns). */
    private long nowNanos;

    private NostrDiscovery(final FipsConfig cfg, final NodeIdentity identity, final List<Transport> transports,
            final LinkConductor conductor, final NostrRuntime runtime, final TraversalStarter traversal,
            final NatTraversal nat, final NatAdopter adopter, final LongSupplier wallMs, final Runnable closeThreads) {
        this.cfg = cfg;
        this.nc = cfg.nostr();
        this.identity = identity;
        this.transports = List.copyOf(transports);
        this.conductor = conductor;
        this.runtime = runtime;
        this.nat = nat;
        this.wallMs = wallMs;
        this.closeThreads = closeThreads;
        this.adopter = adopter;
        this.startedAtMs = wallMs.getAsLong();
        // A wildcard-bound public UDP transport learns its public IP by STUN from a fresh 0.0.0.0:0 socket (§1.8).
        this.adverts = new NostrAdverts(PublicAddressLearner.stun(new InetSocketAddress("0.0.0.0", 0),
                nc.stunServers(), nc.advertRefreshSecs()));
        for (final PeerConfig p : cfg.peers()) {
            if ((p.viaNostr() || hasNatAddress(p)) && p.isAutoConnect()) {
                peers.put(p.npub(), new NostrPeerState(p.identity(), p));
            }
            configuredNpubs.add(p.npub());
        }
        this.outcomes = new NostrDialOutcomes(cfg, this.transports, conductor, runtime, traversal, nat, wallMs, peers,
                () -> this.nowNanos);
        this.view = new NostrStatusView(identity, nc, runtime, traversal, nat);
        if (nat != null) {
            nat.outcomes(outcomes::traversalOutcome);
        }
        render();
    }

    /** @return whether the peer has the address {@code udp nat} (reach by NAT traversal, §1.13) */
    static boolean hasNatAddress(final PeerConfig p) {
        return p.addresses().stream().anyMatch(NostrDiscovery::isNat);
    }

    static boolean isNat(final PeerConfig.Address a) {
        return "udp".equals(a.kind()) && "nat".equalsIgnoreCase(a.addr());
    }

    private void render() {
        status = view.render(peers.values(), startupSweepDone, startupSweep, lastSweep);
    }

    /**
     * Starts the runtime when {@code node.discovery.nostr.enabled} (never waiting for a relay) and hands its tick
     * and its handler of foreign-version reports to the control loop.
     *
     * @return the running discovery, or null when Nostr is off
     */
    static NostrDiscovery startIfEnabled(final FipsConfig cfg, final NodeIdentity identity,
            final List<Transport> transports, final LinkConductor conductor, final NodeOptions options,
            final Optional<NatAdopter> adopter, final ControlLoop loop) {
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
        final LongSupplier wall = options.nostrWallClock();
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
                    nat, adopter.orElse(null), wall, closeThreads);
            loop.onTick(d::tick);
            loop.onForeignVersion(d::onForeignVersion);
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
            for (final NostrPeerState p : peers.values()) {
                if (p.config != null && hasNatAddress(p.config)) {
                    configuredPeer(p, snap, nowNanos);
                }
            }
        } else {
            for (final NostrPeerState p : peers.values()) {
                if (p.config != null) {
                    configuredPeer(p, snap, nowNanos);
                } else {
                    stranger(p, snap, nowNanos);
                }
            }
            if (nc.policy() == NostrConfig.Policy.OPEN) {
                final long wall = wallMs.getAsLong();
                if (!startupSweepDone && wall - startedAtMs >= nc.startupSweepDelaySecs() * 1000) {
                    startupSweepDone = true;
                    startupSweep = openDiscovery(snap, nowNanos, OpenDiscoverySweep.STARTUP,
                            nc.startupSweepMaxAgeSecs());
                }
                final OpenDiscoverySweep.Result r = openDiscovery(snap, nowNanos, OpenDiscoverySweep.PER_TICK, null);
                if (r != null && r.queued() > 0) {
                    lastSweep = r;
                }
            }
        }
        render();
    }

    private void configuredPeer(final NostrPeerState p, final LinkSnapshot snap, final long now) {
        final String npub = p.identity.npub();
        final long wall = wallMs.getAsLong();
        if (outcomes.linkedNow(p, snap, wall)) {
            return;
        }
        outcomes.countRetries(p, snap, wall);
        final OptionalLong cooldown = runtime.cooldownUntil(npub, wall);
        if (cooldown.isPresent()) {
            if (!p.forgotten) {
                p.forgotten = true;
                p.endpoint = null;
                outcomes.restoreStatics(p);
                p.outcome("cooldown", wall);
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
                p.outcome("waiting for advert", wall);
            }
            return;
        }
        dialFromAdvert(p, advert.get(), wall, now);
    }

    private void dialFromAdvert(final NostrPeerState p, final AdvertCache.Cached advert, final long wall,
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
            p.outcome("dialling", wall);
            LOG.log(Level.INFO, "nostr: peer {0}: dialling {1} from its advert ({2})", p.name, key,
                    r.name().toLowerCase(Locale.ROOT));
            return;
        }
        final boolean advertsNat = advert.advert().hasUdpNatEndpoint();
        if ((natOnly || staticNat) && advertsNat) {
            outcomes.traverse(p, advert, wall, now);
        } else if (staticNat && p.endpoint == null) {
            p.outcome("advert has no nat endpoint: no traversal", wall);
        } else if (!natOnly && p.endpoint == null) {
            p.outcome("no advert endpoint reachable by our transports", wall);
        }
    }

    /**
     * With policy open, one sweep (§1.10, {@link OpenDiscoverySweep}): dial cached strangers within the budget
     * ({@code open_discovery_max_pending} less the strangers dialling or waiting before their next try, at most the
     * free connection and peer slots, at most {@value #OPEN_DIALS_PER_TICK} per tick); one whose dial failed waits
     * {@value #FETCH_INTERVAL_NANOS} ns times its failures in a row (at most 8) before the next, until its cooldown.
     * Logs the reference's INFO summary for the startup sweep and for any sweep that queued a dial.
     *
     * @return what the sweep did, or null when its budget was 0 (nothing looked at)
     */
    private OpenDiscoverySweep.Result openDiscovery(final LinkSnapshot snap, final long now, final String caller,
            final Long maxAgeSecs) {
        final long wall = wallMs.getAsLong();
        final long pending = peers.values().stream()
                .filter(s -> s.config == null && (s.pendingStranger || now - s.nextTryNanos < 0)).count();
        final NodeConfig.Limits limits = cfg.node().limits();
        final long freeConnections = limits.maxConnections() <= 0 ? Long.MAX_VALUE
                : limits.maxConnections() - (long) snap.dials().size();
        final long freePeers = limits.maxPeers() <= 0 ? Long.MAX_VALUE : limits.maxPeers() - (long) snap.peers().size();
        final int budget = Math.min(OPEN_DIALS_PER_TICK, OpenDiscoverySweep.budget(nc.openDiscoveryMaxPending(),
                pending, Math.min(freeConnections, freePeers)));
        if (budget == 0) {
            LOG.log(Level.DEBUG, "nostr: open-discovery sweep ({0}): budget is 0, skipping", caller);
            return null;
        }
        final OpenDiscoverySweep.Result r = OpenDiscoverySweep.run(caller, runtime.adverts(), budget, maxAgeSecs,
                wall, identity.npub(), new OpenDiscoverySweep.Peers() {
                    @Override
                    public boolean configured(final String npub) {
                        return configuredNpubs.contains(npub);
                    }

                    @Override
                    public boolean connected(final String npub) {
                        return snap.peer(npub) != null;
                    }

                    @Override
                    public boolean retryPending(final String npub) {
                        final NostrPeerState known = peers.get(npub);
                        return known != null && (known.pendingStranger || now - known.nextTryNanos < 0);
                    }

                    @Override
                    public boolean inCooldown(final String npub) {
                        return runtime.cooldownUntil(npub, wall).isPresent();
                    }

                    @Override
                    public boolean connecting(final String npub) {
                        return NostrDialOutcomes.dialling(snap, npub);
                    }

                    @Override
                    public boolean queue(final PeerIdentity id, final AdvertCache.Cached c) {
                        return dialStranger(id, c, wall);
                    }
                });
        if (OpenDiscoverySweep.STARTUP.equals(caller) || r.queued() > 0) {
            LOG.log(Level.INFO, "nostr: open-discovery sweep complete: {0}", r.summary());
        }
        return r;
    }

    /** @return whether a dial of a stranger started from one of its advert endpoints */
    private boolean dialStranger(final PeerIdentity id, final AdvertCache.Cached c, final long wall) {
        final String npub = id.npub();
        for (final OverlayAdvert.Endpoint e : c.advert().endpoints()) {
            final Optional<NodeSettings.Dial> dial = e.isUdpNat() ? Optional.empty()
                    : pick(id, e.transport(), e.addr());
            if (dial.isEmpty()) {
                continue;
            }
            final NostrPeerState s = peers.computeIfAbsent(npub, k -> new NostrPeerState(id, null));
            final LinkConductor.ConnectResult r = conductor.connect(id, dial.get().transportId(),
                    dial.get().address());
            s.endpoint = e.transport() + " " + e.addr();
            s.lastEndpoint = s.endpoint;
            s.dials++;
            s.pendingStranger = r == LinkConductor.ConnectResult.STARTED;
            s.outcome("dialling", wall);
            LOG.log(Level.DEBUG, "nostr: open discovery: dialling {0} at {1} ({2})", s.name, s.endpoint, r);
            return true;
        }
        return false;
    }

    private void stranger(final NostrPeerState p, final LinkSnapshot snap, final long now) {
        final long wall = wallMs.getAsLong();
        if (outcomes.linkedNow(p, snap, wall)) {
            p.pendingStranger = false;
            return;
        }
        if (p.pendingStranger && !NostrDialOutcomes.dialling(snap, p.identity.npub())) {
            p.pendingStranger = false;
            final long streak = outcomes.failure(p, wall, "dial ended without a link");
            p.nextTryNanos = now + FETCH_INTERVAL_NANOS * Math.min(8, Math.max(1, streak));
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

    /**
     * A packet of another FMP version arrived on an adopted NAT-traversal socket (control thread; §1.12, the
     * reference's {@code record_protocol_mismatch}): the peer the socket was adopted for goes into the
     * {@code protocol_mismatch_cooldown_secs} cooldown, so it is neither traversed to nor dialled from its advert
     * meanwhile; one WARN per fresh cooldown. A report for a slot that was vacated meanwhile is only counted.
     */
    void onForeignVersion(final DataPlaneEvent.ForeignVersionReceived v) {
        final Optional<String> npub = adopter == null ? Optional.empty() : adopter.peerOn(v.transportId());
        final long wall = wallMs.getAsLong();
        if (npub.isEmpty() || !runtime.recordProtocolMismatch(npub.orElseThrow(), wall)) {
            LOG.log(Level.DEBUG, "nostr: FMP version {0} on adopted transport {1} ({2})", v.version(),
                    v.transportId(), npub.orElse("no peer"));
            return;
        }
        LOG.log(Level.WARNING, "nostr: peer {0} speaks FMP version {1}, not {2} (adopted transport {3}); no NAT"
                + " traversal to it for {4} s", npub.orElseThrow(), v.version(), FmpPrefix.VERSION, v.transportId(),
                nc.protocolMismatchCooldownSecs());
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

    /**
     * A reload's {@code node.discovery.nostr.advertise} (ADR 0058): switched off, the advert this process published
     * is deleted from the relays; switched on, it is published again.
     *
     * @return what was applied, in words, or empty when nothing changed
     */
    String applyAdvertise(final boolean on) {
        return runtime.setAdvertise(on) ? "node.discovery.nostr.advertise " + !on + " -> " + on
                + (on ? " (advert published again)" : " (our advert deleted from the relays)") : "";
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
}
