package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

import net.fips.control.identity.Nip19;

/**
 * The cache of peers' adverts (discovery-gateway.md §1.9): keyed by author npub, an entry replaced when a new
 * advert's {@code created_at} is at least the cached one's, entries past their validity pruned on every access,
 * and above {@code advert_cache_max_entries} the entries with the earliest validity evicted. Time comes from the
 * caller; not thread-safe (the control thread owns it).
 */
public final class AdvertCache {
    /** Largest number of cached adverts one open-discovery sweep looks at (§1.7). */
    public static final int SWEEP_LIMIT = 64;

    private final int maxEntries;
    private final long advertTtlSecs;
    private final String app;
    private final Predicate<OverlayAdvert.Endpoint> usable;
    private final Map<String, Cached> entries = new HashMap<>();

    /**
     * A usable advert.
     *
     * @param authorNpub   the author
     * @param advert       the validated content (only usable endpoints)
     * @param createdAt    the event's {@code created_at}, Unix seconds
     * @param validUntilMs until when it may be used, Unix ms
     * @param eventId      the event's id
     */
    public record Cached(String authorNpub, OverlayAdvert advert, long createdAt, long validUntilMs, String eventId) {
    }

    /** What {@link #offer} did with an event. */
    public enum Outcome {
        /** Cached (new author, or newer than or as new as the cached advert). */
        STORED,
        /** Older than the cached advert of that author: ignored. */
        OLDER,
        /** Not an advert of our {@code app}, or content that does not decode or validate. */
        INVALID,
        /** Expired, or created more than twice {@code advert_ttl_secs} ago. */
        STALE
    }

    /**
     * @param maxEntries    {@code advert_cache_max_entries}
     * @param advertTtlSecs our {@code advert_ttl_secs} (the validity window is twice it)
     * @param app           our {@code app}: the {@code protocol} tag an advert must carry
     */
    public AdvertCache(final int maxEntries, final long advertTtlSecs, final String app) {
        this(maxEntries, advertTtlSecs, app, AdvertValidity::isPubliclyUsable);
    }

    /**
     * @param maxEntries    {@code advert_cache_max_entries}
     * @param advertTtlSecs our {@code advert_ttl_secs} (the validity window is twice it)
     * @param app           our {@code app}: the {@code protocol} tag an advert must carry
     * @param usable        the endpoint filter (the reference's public-usability filter outside tests)
     */
    public AdvertCache(final int maxEntries, final long advertTtlSecs, final String app,
            final Predicate<OverlayAdvert.Endpoint> usable) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("advert cache needs at least one entry");
        }
        this.maxEntries = maxEntries;
        this.advertTtlSecs = advertTtlSecs;
        this.app = app;
        this.usable = usable;
    }

    /**
     * Reads, validates and caches an advert event whose id and signature are already verified (the relay client
     * does that).
     *
     * @param event a kind-37195 event
     * @param nowMs the wall clock, Unix ms
     * @return what happened
     */
    public Outcome offer(final NostrEvent event, final long nowMs) {
        final OverlayAdvert advert;
        try {
            advert = AdvertValidity.validate(DiscoveryEvents.readAdvert(event, app), usable);
        } catch (final NostrFormatException e) {
            return Outcome.INVALID;
        }
        final OptionalLong until = AdvertValidity.validUntilMs(event, nowMs, advertTtlSecs);
        if (until.isEmpty()) {
            return Outcome.STALE;
        }
        prune(nowMs);
        final String npub = Nip19.encodeNpub(event.pubkeyBytes());
        final Cached old = entries.get(npub);
        if (old != null && Long.compareUnsigned(event.createdAt(), old.createdAt()) < 0) {
            return Outcome.OLDER;
        }
        entries.put(npub, new Cached(npub, advert, event.createdAt(), until.getAsLong(), event.id()));
        while (entries.size() > maxEntries) {
            final Cached first = entries.values().stream().min(Comparator.comparingLong(Cached::validUntilMs))
                    .orElseThrow();
            entries.remove(first.authorNpub());
        }
        return Outcome.STORED;
    }

    /**
     * @param npub  an author
     * @param nowMs the wall clock, Unix ms
     * @return the author's valid advert, if cached
     */
    public Optional<Cached> get(final String npub, final long nowMs) {
        prune(nowMs);
        return Optional.ofNullable(entries.get(npub));
    }

    /**
     * Evicts an author (the stale re-check found nothing on the relays).
     *
     * @param npub the author
     * @return whether it was cached
     */
    public boolean evict(final String npub) {
        return entries.remove(npub) != null;
    }

    /**
     * The adverts an open-discovery sweep may look at: valid, not ours, at most {@link #SWEEP_LIMIT}, newest first.
     *
     * @param selfNpub our npub
     * @param nowMs    the wall clock, Unix ms
     * @return the candidates
     */
    public List<Cached> candidates(final String selfNpub, final long nowMs) {
        prune(nowMs);
        final List<Cached> out = new ArrayList<>();
        entries.values().stream().filter(c -> !c.authorNpub().equals(selfNpub))
                .sorted(Comparator.comparingLong(Cached::createdAt).reversed().thenComparing(Cached::authorNpub))
                .limit(SWEEP_LIMIT).forEach(out::add);
        return out;
    }

    /** @return the number of entries (without pruning) */
    public int size() {
        return entries.size();
    }

    private void prune(final long nowMs) {
        entries.values().removeIf(c -> c.validUntilMs() <= nowMs);
    }
}
