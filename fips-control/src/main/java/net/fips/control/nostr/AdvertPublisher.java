package net.fips.control.nostr;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nostr.NostrRuntime.Published;

/**
 * The publishing side of the {@link NostrRuntime} (discovery-gateway.md §1.7, §1.8): our advert (published when it
 * changes, every {@code advert_refresh_secs}, and again with backoff while no relay accepted it; deleted when a
 * reload switches {@code advertise} off, ADR 0058) and our kind-10050 relay list. Thread-safe: relay callbacks,
 * timers and the control thread meet under this object's lock, which is never held while calling the pool.
 */
final class AdvertPublisher {
    /** Logs under the runtime's name, as before the split, so that operators' log filters still match. */
    private static final System.Logger LOG = System.getLogger(NostrRuntime.class.getName());

    private final NostrConfig cfg;
    private final NodeIdentity identity;
    private final LongSupplier wallMs;
    private final RelayScheduler scheduler;
    private final RelayPool pool;
    private final Predicate<OverlayAdvert.Endpoint> usable;
    private final Consumer<String> count;

    // guarded by this
    /** {@code advertise}: from the config at start, switched by {@link #setAdvertise} (a reload). */
    private boolean advertise;
    private OverlayAdvert local;
    private boolean publishing;
    private boolean publishAgain;
    private int publishFailStreak;
    private int relayListAttempts;
    private Published lastPublished;
    private Long relayListPublishedMs;
    private RelayScheduler.Task refreshTask;
    private RelayScheduler.Task retryTask;
    private RelayScheduler.Task relayListTask;
    private boolean started;
    private boolean closed;

    /**
     * @param cfg       {@code node.discovery.nostr}
     * @param identity  our identity (signs the advert, its deletion and the relay list)
     * @param wallMs    the wall clock, Unix ms
     * @param scheduler timers
     * @param pool      the relays
     * @param usable    which endpoints of our advert are published
     * @param count     raises one of the runtime's counters by name
     */
    AdvertPublisher(final NostrConfig cfg, final NodeIdentity identity, final LongSupplier wallMs,
            final RelayScheduler scheduler, final RelayPool pool, final Predicate<OverlayAdvert.Endpoint> usable,
            final Consumer<String> count) {
        this.cfg = cfg;
        this.identity = identity;
        this.wallMs = wallMs;
        this.scheduler = scheduler;
        this.pool = pool;
        this.usable = usable;
        this.count = count;
        this.advertise = cfg.advertise();
    }

    /** From now on a publish request publishes (the runtime is starting). */
    synchronized void markStarted() {
        started = true;
    }

    /** Starts the relay-list publish and the refresh timer (after the pool and its subscriptions started). */
    void startTimers() {
        publishRelayList();
        scheduleRefresh();
    }

    /**
     * Sets the advert the node wants published (the control thread rebuilds it every tick); a change requests a
     * publish. Null means nothing to advertise: the previous advert is left to expire.
     *
     * @param advert the content, or null
     */
    void setLocalAdvert(final OverlayAdvert advert) {
        synchronized (this) {
            if (Objects.equals(local, advert)) {
                return;
            }
            local = advert;
        }
        if (advert != null) {
            requestPublish();
        }
    }

    /** Asks for a publish of the current advert; requests during a publish coalesce into one more. */
    void requestPublish() {
        synchronized (this) {
            if (closed || !started) {
                return;
            }
            if (publishing) {
                publishAgain = true;
                return;
            }
            publishing = true;
        }
        publishNow();
    }

    /**
     * Switches {@code advertise} while running (a config reload). Off: the advert this process published, if any,
     * is deleted (NIP-09, §1.8) on the next publish, which this requests; on: the advert is published again.
     *
     * @param on the new value
     * @return whether it changed
     */
    boolean setAdvertise(final boolean on) {
        synchronized (this) {
            if (advertise == on) {
                return false;
            }
            advertise = on;
        }
        requestPublish();
        return true;
    }

    /** @return whether we advertise now */
    synchronized boolean advertising() {
        return advertise;
    }

    private void publishNow() {
        final OverlayAdvert current;
        final boolean on;
        final Published previous;
        synchronized (this) {
            current = local;
            on = advertise;
            previous = lastPublished;
        }
        if (!on && previous != null) {
            deletePublished(previous);
            return;
        }
        final OverlayAdvert toSend = on ? usablePart(current) : null;
        if (toSend == null) {
            publishDone();
            return;
        }
        if (!pool.anyConnected(cfg.advertRelays())) {
            // Not a failure: the relays are still connecting (start-up, or all of them reconnecting).
            synchronized (this) {
                scheduleRetryIn(NostrRuntime.WAIT_FOR_RELAY_MS);
            }
            publishDone();
            return;
        }
        final long now = wallMs.getAsLong();
        final NostrEvent event = DiscoveryEvents.advert(identity.secretKey(), toSend, cfg.app(), now,
                cfg.advertTtlSecs());
        final long expiresAtMs = Math.max(1, Math.floorDiv(now + cfg.advertTtlSecs() * 1000, 1000)) * 1000;
        pool.publish(cfg.advertRelays(), event, NostrRuntime.ADVERT_PUBLISH_TIMEOUT_MS).whenComplete((ok, err) -> {
            final List<String> accepted = ok == null ? List.of() : ok;
            boolean first = false;
            int streak = 0;
            synchronized (this) {
                if (!accepted.isEmpty()) {
                    first = lastPublished == null;
                    lastPublished = new Published(event.id(), wallMs.getAsLong(), expiresAtMs, accepted, toSend);
                    publishFailStreak = 0;
                    count.accept("advert_publishes");
                } else {
                    streak = ++publishFailStreak;
                    count.accept("advert_publish_failures");
                    scheduleRetry(streak);
                }
            }
            if (!accepted.isEmpty()) {
                LOG.log(first ? Level.INFO : Level.DEBUG, "nostr: advert {0} published to {1} relay(s) ({2})",
                        event.id(), accepted.size(), endpointsText(toSend));
            } else {
                LOG.log(streak == 1 ? Level.WARNING : Level.DEBUG,
                        "nostr: no advert relay accepted our advert ({0} connected); retrying in {1} s",
                        pool.connectedCount(), NostrRuntime.PUBLISH_RETRY.delayMs(streak) / 1000);
            }
            publishDone();
        });
    }

    /**
     * {@code advertise} is off and this process had published an advert (§1.8, the reference's
     * {@code publish_advert}): a kind-5 deletion of its id goes to {@code advert_relays}; once a relay accepts it the
     * advert counts as withdrawn, else the deletion is tried again with the publish backoff.
     */
    private void deletePublished(final Published previous) {
        if (!pool.anyConnected(cfg.advertRelays())) {
            synchronized (this) {
                scheduleRetryIn(NostrRuntime.WAIT_FOR_RELAY_MS);
            }
            publishDone();
            return;
        }
        final NostrEvent deletion = DiscoveryEvents.deletion(identity.secretKey(), List.of(previous.eventId()),
                Math.floorDiv(wallMs.getAsLong(), 1000));
        pool.publish(cfg.advertRelays(), deletion, NostrRuntime.RELAY_OP_TIMEOUT_MS).whenComplete((ok, err) -> {
            final boolean accepted = ok != null && !ok.isEmpty();
            int streak = 0;
            synchronized (this) {
                if (accepted) {
                    if (lastPublished == previous) {
                        lastPublished = null;
                    }
                    publishFailStreak = 0;
                    count.accept("advert_deletions");
                } else {
                    streak = ++publishFailStreak;
                    count.accept("advert_deletion_failures");
                    scheduleRetry(streak);
                }
            }
            LOG.log(accepted ? Level.INFO : Level.WARNING, accepted
                    ? "nostr: advertise is off: deletion {0} of our advert {1} sent to {2} relay(s)"
                    : "nostr: advertise is off: no advert relay accepted the deletion {0} of our advert {1}; retrying",
                    deletion.id(), previous.eventId(), accepted ? ok.size() : 0);
            publishDone();
        });
    }

    /** @return the advert with only usable endpoints, or null when none is left or a nat endpoint lacks metadata */
    private OverlayAdvert usablePart(final OverlayAdvert a) {
        if (a == null) {
            return null;
        }
        try {
            return AdvertValidity.validate(a, usable);
        } catch (final NostrFormatException e) {
            LOG.log(Level.DEBUG, "nostr: our advert is not published: {0}", e.getMessage());
            return null;
        }
    }

    private void publishDone() {
        final boolean again;
        synchronized (this) {
            publishing = false;
            again = publishAgain && !closed;
            publishAgain = false;
        }
        if (again) {
            requestPublish();
        }
    }

    /** Caller holds this. */
    private void scheduleRetry(final int streak) {
        scheduleRetryIn(NostrRuntime.PUBLISH_RETRY.delayMs(streak));
    }

    /** Caller holds this. */
    private void scheduleRetryIn(final long delayMs) {
        if (closed) {
            return;
        }
        if (retryTask != null) {
            retryTask.cancel();
        }
        retryTask = scheduler.schedule(this::requestPublish, delayMs);
    }

    private void scheduleRefresh() {
        synchronized (this) {
            if (closed) {
                return;
            }
            refreshTask = scheduler.schedule(() -> {
                requestPublish();
                scheduleRefresh();
            }, Math.max(1_000, cfg.advertRefreshSecs() * 1000));
        }
    }

    private void publishRelayList() {
        if (!pool.anyConnected(cfg.dmRelays())) {
            synchronized (this) {
                if (!closed) {
                    relayListTask = scheduler.schedule(this::publishRelayList, NostrRuntime.WAIT_FOR_RELAY_MS);
                }
            }
            return;
        }
        final NostrEvent list = DiscoveryEvents.relayList(identity.secretKey(), cfg.dmRelays(),
                Math.floorDiv(wallMs.getAsLong(), 1000));
        pool.publish(cfg.dmRelays(), list, NostrRuntime.RELAY_OP_TIMEOUT_MS).whenComplete((ok, err) -> {
            synchronized (this) {
                if (ok != null && !ok.isEmpty()) {
                    relayListPublishedMs = wallMs.getAsLong();
                    return;
                }
                if (closed) {
                    return;
                }
                relayListTask = scheduler.schedule(this::publishRelayList,
                        NostrRuntime.PUBLISH_RETRY.delayMs(++relayListAttempts));
            }
            LOG.log(Level.DEBUG, "nostr: no dm relay accepted our relay list; retrying");
        });
    }

    /** @return our last accepted advert, or null */
    synchronized Published lastPublished() {
        return lastPublished;
    }

    /** @return when a relay last accepted our kind-10050 list, Unix ms, or null */
    synchronized Long relayListPublishedMs() {
        return relayListPublishedMs;
    }

    /** @return the advert the node currently wants published (before the usability filter), or null */
    synchronized OverlayAdvert localAdvert() {
        return local;
    }

    private static String endpointsText(final OverlayAdvert a) {
        final List<String> out = new ArrayList<>();
        a.endpoints().forEach(e -> out.add(e.transport() + " " + e.addr()));
        return String.join(", ", out);
    }

    /** Stops the timers; nothing is published or deleted afterwards (§1.8). Idempotent. */
    synchronized void close() {
        closed = true;
        for (final RelayScheduler.Task t : new RelayScheduler.Task[] {refreshTask, retryTask, relayListTask}) {
            if (t != null) {
                t.cancel();
            }
        }
    }
}
