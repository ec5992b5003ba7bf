package net.fips.control.nostr;

import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.Nip19;
import net.fips.control.identity.NodeIdentity;

/**
 * The node's Nostr runtime (discovery-gateway.md §1.6-§1.9, §1.12): the {@link RelayPool}, the two live
 * subscriptions (every FIPS advert on {@code advert_relays}; kind-21059 wraps p-tagged to us on {@code dm_relays}),
 * our kind-10050 relay list, our advert (published when it changes, every {@code advert_refresh_secs}, and again
 * with backoff while no relay accepted it), the {@link AdvertCache}, the {@link FailureState}, the
 * {@link ReplayCache} and the {@link SignalChannel} for the traversal engine. Publishing our advert and relay list
 * is the {@link AdvertPublisher}'s job, behind this class's methods. Time comes from the injected wall clock and
 * {@link RelayScheduler}; nothing here blocks the caller on relay I/O. Thread-safe: relay callbacks, timers and the
 * control thread meet under this object's locks (and the publisher's), and no lock is held while calling the pool.
 *
 * <p>As the reference does (§1.8), nothing is deleted on shutdown: a republish replaces the advert, and the last
 * one expires by its NIP-40 tag. The advert is deleted (NIP-09) only when {@code advertise} is off and this process
 * had published one, which here happens when a reload switches it off ({@link #setAdvertise}, ADR 0058). Signal
 * wraps are never deleted (ADR 0058).
 */
public final class NostrRuntime implements SignalChannel, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NostrRuntime.class.getName());
    private static final HexFormat HEX = HexFormat.of();
    /** Relay operation timeout (§1.7): the relay list publish and signal sends. */
    public static final long RELAY_OP_TIMEOUT_MS = 5_000;
    /** Advert publish timeout (§1.7). */
    public static final long ADVERT_PUBLISH_TIMEOUT_MS = 10_000;
    /** Advert fetch timeout (§1.6). */
    public static final long ADVERT_FETCH_TIMEOUT_MS = 2_000;
    /** Retry delays of a relay-list or advert publish that no relay accepted (2 s to 60 s, ADR 0043). */
    public static final Backoff PUBLISH_RETRY = new Backoff(2_000, 60_000);
    /** While no relay of a list is connected, a publish looks again this often (no I/O; not counted as a failure). */
    public static final long WAIT_FOR_RELAY_MS = 500;

    private final NostrConfig cfg;
    private final NodeIdentity identity;
    private final String ourHex;
    private final LongSupplier wallMs;
    private final RelayPool pool;
    private final SecureRandom random;
    private final AdvertCache cache;
    private final FailureState failures;
    private final ReplayCache replay;
    private final Map<String, AtomicLong> counters = new LinkedHashMap<>();
    private volatile SignalChannel.Listener listener;

    private final AdvertPublisher publisher;

    // guarded by this
    private boolean started;
    private boolean closed;

    /**
     * Our last advert that a relay accepted.
     *
     * @param eventId     its id
     * @param atMs        when it was accepted, Unix ms
     * @param expiresAtMs its NIP-40 expiration, Unix ms
     * @param relays      the relays that accepted it
     * @param advert      its content
     */
    public record Published(String eventId, long atMs, long expiresAtMs, List<String> relays, OverlayAdvert advert) {
        /** Freezes the list. */
        public Published {
            relays = List.copyOf(relays);
        }
    }

    /** What the stale re-check of §1.9 found. */
    public enum Recheck {
        /** Nothing on the relays: evicted from the cache, streak reset. */
        EVICTED,
        /** A newer advert: cached, streak reset. */
        REFRESHED,
        /** The same advert (or an older one). */
        SAME_ADVERT
    }

    /**
     * @param cfg       {@code node.discovery.nostr}
     * @param identity  our identity (signs adverts, the relay list and seals)
     * @param wallMs    the wall clock, Unix ms, read on every use (§1.7)
     * @param scheduler timers
     * @param pool      the relays ({@code advert_relays ∪ dm_relays}), not started yet
     * @param usable    which endpoints count as usable, on publish and on read (the reference's public filter
     *                  outside tests)
     * @param random    keys, nonces and back-dating of signal wraps
     */
    public NostrRuntime(final NostrConfig cfg, final NodeIdentity identity, final LongSupplier wallMs,
            final RelayScheduler scheduler, final RelayPool pool, final Predicate<OverlayAdvert.Endpoint> usable,
            final SecureRandom random) {
        this.cfg = cfg;
        this.identity = identity;
        this.ourHex = HEX.formatHex(identity.publicKey());
        this.wallMs = wallMs;
        this.pool = pool;
        this.random = random;
        this.cache = new AdvertCache((int) Math.max(1, Math.min(Integer.MAX_VALUE, cfg.advertCacheMaxEntries())),
                cfg.advertTtlSecs(), cfg.app(), usable);
        this.failures = new FailureState(cfg.failureStreakThreshold(), cfg.extendedCooldownSecs(),
                cfg.warnLogIntervalSecs(), (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                cfg.failureStateMaxEntries())));
        this.replay = new ReplayCache((int) Math.max(1, Math.min(Integer.MAX_VALUE, cfg.seenSessionsMaxEntries())),
                cfg.replayWindowSecs() * 1000);
        for (final String c : List.of("adverts_stored", "adverts_older", "adverts_invalid", "adverts_stale",
                "adverts_own", "advert_fetches", "advert_publishes", "advert_publish_failures", "signals_sent",
                "signals_received", "signals_undecodable",
                "signals_misaddressed", "signals_rejected", "signals_replayed", "signals_unheard",
                "protocol_mismatches", "advert_deletions", "advert_deletion_failures")) {
            counters.put(c, new AtomicLong());
        }
        this.publisher = new AdvertPublisher(cfg, identity, wallMs, scheduler, pool, usable, this::count);
    }

    /** Connects, subscribes, and starts the relay-list publish and the refresh timer. Never blocks on relays. */
    public void start() {
        synchronized (this) {
            if (started || closed) {
                return;
            }
            started = true;
            publisher.markStarted();
        }
        pool.start();
        pool.subscribe(cfg.advertRelays(), List.of(Filter.all().kinds(OverlayAdvert.KIND)
                .tag('d', OverlayAdvert.IDENTIFIER)), this::onAdvertEvent);
        pool.subscribe(cfg.dmRelays(), List.of(Filter.all().kinds(SignalWrap.WRAP_KIND).tag('p', ourHex).limit(0)),
                this::onWrap);
        publisher.startTimers();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Our advert and relay list (§1.8): the publisher

    /**
     * Sets the advert the node wants published (the control thread rebuilds it every tick); a change requests a
     * publish. Null means nothing to advertise: the previous advert is left to expire.
     *
     * @param advert the content, or null
     */
    public void setLocalAdvert(final OverlayAdvert advert) {
        publisher.setLocalAdvert(advert);
    }

    /** Asks for a publish of the current advert; requests during a publish coalesce into one more. */
    public void requestPublish() {
        publisher.requestPublish();
    }

    /**
     * Switches {@code advertise} while running (a config reload). Off: the advert this process published, if any,
     * is deleted (NIP-09, §1.8) on the next publish, which this requests; on: the advert is published again.
     *
     * @param on the new value
     * @return whether it changed
     */
    public boolean setAdvertise(final boolean on) {
        return publisher.setAdvertise(on);
    }

    /** @return whether we advertise now */
    public boolean advertising() {
        return publisher.advertising();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Adverts of others (§1.9)

    private void onAdvertEvent(final NostrEvent e) {
        if (e.pubkey().equals(ourHex)) {
            count("adverts_own");
            return;
        }
        final AdvertCache.Outcome o;
        synchronized (cache) {
            o = cache.offer(e, wallMs.getAsLong());
        }
        count("adverts_" + o.name().toLowerCase(Locale.ROOT));
        LOG.log(Level.DEBUG, "nostr: advert {0} of {1}: {2}", e.id(), e.pubkey(), o);
    }

    /**
     * @param npub an author
     * @return its cached, valid advert
     */
    public Optional<AdvertCache.Cached> advert(final String npub) {
        synchronized (cache) {
            return cache.get(npub, wallMs.getAsLong());
        }
    }

    /** @return the cached adverts of others (at most {@link AdvertCache#SWEEP_LIMIT}, newest first) */
    public List<AdvertCache.Cached> adverts() {
        synchronized (cache) {
            return cache.candidates(identity.npub(), wallMs.getAsLong());
        }
    }

    /**
     * {@code fetch_advert} (§1.9): a cache hit wins; else the author's adverts are fetched from {@code
     * advert_relays} (2 s) and cached.
     *
     * @param npub the author
     * @return its advert, or empty when none is valid
     */
    public CompletableFuture<Optional<AdvertCache.Cached>> fetchAdvert(final String npub) {
        final Optional<AdvertCache.Cached> hit = advert(npub);
        if (hit.isPresent()) {
            return CompletableFuture.completedFuture(hit);
        }
        return fetchByAuthor(npub).thenApply(n -> advert(npub));
    }

    /**
     * The stale re-check of §1.9: the author's adverts fetched again.
     *
     * @param npub the author
     * @return what was found
     */
    public CompletableFuture<Recheck> recheck(final String npub) {
        final Optional<AdvertCache.Cached> before = advert(npub);
        return fetchByAuthor(npub).thenApply(stored -> {
            final Optional<AdvertCache.Cached> after = advert(npub);
            if (stored == 0) {
                synchronized (cache) {
                    cache.evict(npub);
                }
                resetStreak(npub);
                return Recheck.EVICTED;
            }
            if (before.isEmpty() || after.isPresent() && after.get().createdAt() > before.get().createdAt()) {
                resetStreak(npub);
                return Recheck.REFRESHED;
            }
            return Recheck.SAME_ADVERT;
        });
    }

    /** @return the author's valid adverts found on the relays (each offered to the cache) */
    private CompletableFuture<Integer> fetchByAuthor(final String npub) {
        final String hex;
        try {
            hex = HEX.formatHex(Nip19.decodeNpub(npub));
        } catch (final IdentityFormatException e) {
            return CompletableFuture.completedFuture(0);
        }
        count("advert_fetches");
        return pool.fetch(cfg.advertRelays(), List.of(Filter.all().authors(hex).kinds(OverlayAdvert.KIND)
                .tag('d', OverlayAdvert.IDENTIFIER)), ADVERT_FETCH_TIMEOUT_MS).thenApply(events -> {
                    int valid = 0;
                    for (final NostrEvent e : events) {
                        if (!e.pubkey().equals(hex)) {
                            continue;
                        }
                        final AdvertCache.Outcome o;
                        synchronized (cache) {
                            o = cache.offer(e, wallMs.getAsLong());
                        }
                        valid += o == AdvertCache.Outcome.STORED || o == AdvertCache.Outcome.OLDER ? 1 : 0;
                    }
                    return valid;
                });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Failure state (§1.12)

    /**
     * @param npub  the peer
     * @param nowMs the wall clock
     * @return what the failure means (warn or not, cooldown, threshold crossed)
     */
    public FailureState.Decision recordFailure(final String npub, final long nowMs) {
        synchronized (failures) {
            return failures.recordFailure(npub, nowMs);
        }
    }

    /**
     * An adopted traversal socket to {@code npub} received a packet of another FMP version (§1.12): the streak is
     * raised to the threshold and the cooldown set to {@code protocol_mismatch_cooldown_secs} from now.
     *
     * @return true when this is a fresh cooldown (log it once at WARN)
     */
    public boolean recordProtocolMismatch(final String npub, final long nowMs) {
        count("protocol_mismatches");
        synchronized (failures) {
            return failures.recordProtocolMismatch(npub, nowMs, cfg.protocolMismatchCooldownSecs() * 1000);
        }
    }

    /** Clears the streak and cooldown of {@code npub} after it linked. */
    public void recordSuccess(final String npub, final long nowMs) {
        synchronized (failures) {
            failures.recordSuccess(npub, nowMs);
        }
    }

    private void resetStreak(final String npub) {
        synchronized (failures) {
            failures.resetStreak(npub);
        }
    }

    /** @return the cooldown of {@code npub} while it lies in the future */
    public OptionalLong cooldownUntil(final String npub, final long nowMs) {
        synchronized (failures) {
            return failures.cooldownUntil(npub, nowMs);
        }
    }

    /**
     * @return the failure state itself, for the NAT traversal engine, which records its initiators' failures in it;
     *         every use must hold its monitor ({@code synchronized (failureState())}), as this runtime does
     */
    public FailureState failureState() {
        return failures;
    }

    /** @return every failure record */
    public List<FailureState.View> failures() {
        synchronized (failures) {
            return failures.snapshot();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Signals (§1.11, §1.12)

    @Override
    public CompletableFuture<Sent> send(final byte[] recipient, final String content,
            final Collection<String> extraRelays) {
        final NostrEvent wrap;
        try {
            wrap = SignalWrap.wrap(identity.secretKey(), recipient, content, wallMs.getAsLong(),
                    cfg.signalTtlSecs() * 1000, random);
        } catch (final Nip44Exception e) {
            return CompletableFuture.failedFuture(e);
        }
        final Set<String> relays = new LinkedHashSet<>(extraRelays);
        relays.addAll(cfg.dmRelays());
        count("signals_sent");
        LOG.log(Level.DEBUG, "nostr: signal {0} to {1} via {2}", wrap.id(), HEX.formatHex(recipient), relays);
        return pool.publish(relays, wrap, RELAY_OP_TIMEOUT_MS).thenApply(ok -> new Sent(wrap.id(), ok));
    }

    /** @return whether one of our {@code dm_relays} is connected now (a signal sent now reaches a relay) */
    public boolean signalRelayConnected() {
        return pool.anyConnected(cfg.dmRelays());
    }

    @Override
    public void onSignal(final SignalChannel.Listener l) {
        this.listener = l;
    }

    private void onWrap(final NostrEvent e) {
        count("signals_received");
        final SignalWrap.Unwrapped u;
        try {
            u = SignalWrap.unwrap(identity.secretKey(), e);
        } catch (final NostrFormatException ex) {
            count("signals_undecodable");
            LOG.log(Level.DEBUG, "nostr: signal {0} not readable: {1}", e.id(), ex.getMessage());
            return;
        }
        final long now = wallMs.getAsLong();
        final String sender = Nip19.encodeNpub(u.sender());
        final String content = u.content();
        final SignalChannel.Listener l = listener;
        try {
            final TraversalAnswer answer = TraversalAnswer.parse(content);
            if (TraversalAnswer.TYPE.equals(answer.type())) {
                if (!identity.npub().equals(answer.recipientNpub())) {
                    count("signals_misaddressed");
                } else if (l == null) {
                    count("signals_unheard");
                } else {
                    l.onAnswer(sender, answer, now);
                }
                return;
            }
        } catch (final NostrFormatException notAnAnswer) {
            // try it as an offer below, as the reference does
        }
        final TraversalOffer offer;
        try {
            offer = TraversalOffer.parse(content);
        } catch (final NostrFormatException ex) {
            count("signals_undecodable");
            return;
        }
        if (!TraversalOffer.TYPE.equals(offer.type()) || !identity.npub().equals(offer.recipientNpub())) {
            count("signals_misaddressed");
            return;
        }
        final SignalValidation.Freshness f;
        try {
            f = SignalValidation.validateOffer(offer, now, cfg.signalTtlSecs() * 1000, sender, identity.npub());
        } catch (final SignalValidation.Rejected r) {
            count("signals_rejected");
            LOG.log(Level.DEBUG, "nostr: offer {0} from {1} rejected: {2}", offer.sessionId(), sender, r.reason());
            return;
        }
        final boolean fresh;
        synchronized (replay) {
            fresh = replay.markSeen(offer.sessionId(), now);
        }
        if (!fresh) {
            count("signals_replayed");
            return;
        }
        if (l == null) {
            count("signals_unheard");
            return;
        }
        l.onOffer(sender, offer, f, now);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Observation and stop

    /** @return the relays with their state and counters */
    public List<RelayPool.RelayView> relays() {
        return pool.views();
    }

    /** @return our last accepted advert, or null */
    public Published lastPublished() {
        return publisher.lastPublished();
    }

    /** @return when a relay last accepted our kind-10050 list, Unix ms, or null */
    public Long relayListPublishedMs() {
        return publisher.relayListPublishedMs();
    }

    /** @return the advert the node currently wants published (before the usability filter), or null */
    public OverlayAdvert localAdvert() {
        return publisher.localAdvert();
    }

    /** @return the counters by name, in a fixed order */
    public Map<String, Long> counters() {
        final Map<String, Long> out = new LinkedHashMap<>();
        synchronized (counters) {
            counters.forEach((k, v) -> out.put(k, v.get()));
        }
        out.put("relay_duplicates", pool.duplicates());
        return out;
    }

    private void count(final String name) {
        synchronized (counters) {
            counters.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
        }
    }

    /** @return the settings it runs with */
    public NostrConfig config() {
        return cfg;
    }

    /** Stops the timers and closes every relay connection. Nothing is deleted (§1.8). Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        publisher.close();
        pool.close();
    }
}
