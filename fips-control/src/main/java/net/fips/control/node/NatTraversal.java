package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.nat.LocalCandidates;
import net.fips.control.nat.NatAdopter;
import net.fips.control.nat.SocketNatIo;
import net.fips.control.nat.StunClient;
import net.fips.control.nat.TraversalCoordinator;
import net.fips.control.nostr.AdvertCache;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.ReplayCache;
import net.fips.control.nostr.TraversalStarter;

/**
 * The node's NAT traversal engine (discovery-gateway.md §1.11, §2): a {@link TraversalCoordinator} over the Nostr
 * runtime's signal channel ({@link NostrSignalling}), sockets and STUN from {@link SocketNatIo} with our
 * {@code stun_servers} (and our host candidates when {@code share_local_candidates} is on), and adoption of a
 * punched socket into the node's {@code nostr-nat} slots. Built by
 * {@link NostrDiscovery} when Nostr discovery is on (unless a test replaces it through
 * {@link NodeOptions#traversalStarter}); {@link #tick} runs on the control tick, the blocking steps (STUN, the punch)
 * on threads {@code fips-nat-*}, which {@link #close} stops. Initiator failures go to the runtime's failure state
 * (cooldowns, {@code show_peers[].nostr_traversal}); each attempt and its outcome is kept per npub for
 * {@code show_nostr}.
 */
final class NatTraversal implements TraversalStarter, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NatTraversal.class.getName());
    /** How long {@link #close} waits for a STUN exchange or a punch to notice the stop. */
    private static final long CLOSE_WAIT_MS = 2 * StunClient.TRAVERSAL_TIMEOUT_MS + 1_000;

    /** What happened to one peer's traversals (control thread only). */
    private static final class Track {
        long initiated;
        long answered;
        long established;
        long failed;
        String outcome = "none";
        String reason;
        String remote;
        long atMs;
    }

    /** What the node does after an outcome (the control thread, inside {@link #tick}). */
    interface Outcomes {
        /** @param npub a peer whose traversal failed (initiator side) or was established */
        void changed(String npub, boolean established);
    }

    private final TraversalCoordinator coordinator;
    private final ExecutorService executor;
    private final FailureState failures;
    private final LongSupplier wallMs;
    private final Map<String, Track> tracks = new LinkedHashMap<>();
    private Outcomes outcomes = (npub, established) -> { };

    private NatTraversal(final NostrConfig nc, final String localNpub, final NostrRuntime runtime,
            final NatAdopter adopter, final LongSupplier wallMs) {
        this.wallMs = wallMs;
        this.failures = runtime.failureState();
        this.executor = Executors.newCachedThreadPool(Thread.ofPlatform().name("fips-nat-", 0).daemon().factory());
        final SocketNatIo io = new SocketNatIo(new InetSocketAddress("0.0.0.0", 0), nc.stunServers(),
                StunClient.TRAVERSAL_TIMEOUT_MS, StunClient.system(), adopter,
                nc.shareLocalCandidates() ? LocalCandidates.system() : null);
        final ReplayCache replay = new ReplayCache((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                nc.seenSessionsMaxEntries())), nc.replayWindowSecs() * 1000);
        this.coordinator = new TraversalCoordinator(TraversalCoordinator.Settings.of(nc), localNpub,
                new NostrSignalling(runtime), io, failures, replay, System::nanoTime, wallMs, executor,
                new TraversalCoordinator.Listener() {
                    @Override
                    public void established(final String npub, final int transportId,
                            final InetSocketAddress remote, final boolean initiator) {
                        onEstablished(npub, transportId, remote, initiator);
                    }

                    @Override
                    public void failed(final String npub, final String reason, final FailureState.Decision d) {
                        onFailed(npub, reason, d);
                    }
                });
    }

    /**
     * @param nc        {@code node.discovery.nostr}
     * @param localNpub our npub
     * @param runtime   the Nostr runtime (signals, failure state)
     * @param adopter   the node's adoption slots
     * @param wallMs    the wall clock, Unix ms
     * @return the engine, its threads not started until the first attempt
     */
    static NatTraversal create(final NostrConfig nc, final String localNpub, final NostrRuntime runtime,
            final NatAdopter adopter, final LongSupplier wallMs) {
        return new NatTraversal(nc, localNpub, runtime, adopter, wallMs);
    }

    /** @param o what the node does after an outcome */
    void outcomes(final Outcomes o) {
        this.outcomes = o;
    }

    @Override
    public boolean start(final PeerIdentity peer, final AdvertCache.Cached advert) {
        final String npub = peer.npub();
        final TraversalCoordinator.Start s;
        synchronized (failures) {
            s = coordinator.connect(npub);
        }
        if (s == TraversalCoordinator.Start.STARTED) {
            final Track t = track(npub);
            t.initiated++;
            t.outcome = "in progress";
            t.reason = null;
            t.atMs = wallMs.getAsLong();
            LOG.log(Level.DEBUG, "nat: traversal to {0} started", peer.shortNpub());
        }
        return s == TraversalCoordinator.Start.STARTED;
    }

    /** @return whether an initiator attempt towards {@code npub} runs now */
    boolean inFlight(final String npub) {
        return coordinator.inFlight(npub);
    }

    /** One control tick: the coordinator's queued reports, signals and deadlines. */
    void tick() {
        synchronized (failures) {
            coordinator.tick();
        }
    }

    private Track track(final String npub) {
        return tracks.computeIfAbsent(npub, k -> new Track());
    }

    private void onEstablished(final String npub, final int transportId, final InetSocketAddress remote,
            final boolean initiator) {
        final Track t = track(npub);
        if (!initiator) {
            t.answered++;
        }
        t.established++;
        t.outcome = "established";
        t.reason = null;
        t.remote = remote.getAddress().getHostAddress() + ":" + remote.getPort();
        t.atMs = wallMs.getAsLong();
        LOG.log(Level.INFO, "nat: traversal {0} {1} won: punched to {2}, dialling on transport {3}",
                initiator ? "to" : "from", shortOf(npub), t.remote, transportId);
        outcomes.changed(npub, true);
    }

    private void onFailed(final String npub, final String reason, final FailureState.Decision d) {
        final Track t = track(npub);
        t.failed++;
        t.outcome = "failed";
        t.reason = reason;
        t.atMs = wallMs.getAsLong();
        final long now = t.atMs;
        LOG.log(d == null || d.shouldWarn() ? Level.INFO : Level.DEBUG,
                "nat: traversal to {0} lost: {1}{2}", shortOf(npub), reason, d == null ? " (not counted)"
                        : "; " + d.consecutiveFailures() + " in a row" + (d.cooldownUntilMs() == null ? ""
                        : ", cooldown " + Math.max(0, (d.cooldownUntilMs() - now) / 1000) + " s"));
        outcomes.changed(npub, false);
    }

    private static String shortOf(final String npub) {
        return npub.length() > 16 ? npub.substring(0, 12) + "…" : npub;
    }

    /** @param out {@code show_nostr.traversals}: one object per peer with an attempt */
    void render(final ArrayNode out) {
        for (final Map.Entry<String, Track> e : tracks.entrySet()) {
            final Track t = e.getValue();
            final ObjectNode n = out.addObject();
            n.put("npub", e.getKey());
            n.put("in_flight", coordinator.inFlight(e.getKey()));
            n.put("initiated", t.initiated);
            n.put("answered", t.answered);
            n.put("established", t.established);
            n.put("failed", t.failed);
            n.put("last_outcome", t.outcome);
            if (t.reason == null) {
                n.putNull("last_reason");
            } else {
                n.put("last_reason", t.reason);
            }
            if (t.remote == null) {
                n.putNull("last_remote");
            } else {
                n.put("last_remote", t.remote);
            }
            if (t.atMs == 0) {
                n.putNull("last_at_ms");
            } else {
                n.put("last_at_ms", t.atMs);
            }
        }
    }

    /** @return signals neither a valid answer to our offers nor an acceptable offer */
    long signalsDropped() {
        return coordinator.signalsDropped();
    }

    /** @return offers dropped for their sender's {@code max_concurrent_offers_per_npub} (within signalsDropped) */
    long offersOverSenderAllowance() {
        return coordinator.offersOverSenderAllowance();
    }

    /** Stops every attempt and the {@code fips-nat-*} threads (waits for a STUN exchange or a punch to stop). */
    @Override
    public void close() {
        synchronized (failures) {
            coordinator.close();
        }
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, "nat: traversal threads still running after {0} ms", CLOSE_WAIT_MS);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
