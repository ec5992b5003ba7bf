package net.fips.control.nostr;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;

/**
 * One open-discovery sweep over the cached adverts (discovery-gateway.md §1.10, the reference's
 * {@code run_open_discovery_sweep}): within a budget, each cached stranger that passes the checks, in the
 * reference's order, is handed to the node to dial; every candidate that does not is counted under the first check
 * it failed. The per-tick sweep runs without an age limit; the one-shot startup sweep skips adverts created more than
 * {@code startup_sweep_max_age_secs} ago. Pure: the node's state comes through {@link Peers}, time from the caller.
 */
public final class OpenDiscoverySweep {
    /** The caller label of the per-tick sweep. */
    public static final String PER_TICK = "per-tick";
    /** The caller label of the one-shot startup sweep. */
    public static final String STARTUP = "startup";

    /** Why a cached advert was not queued, in the order the checks run. */
    public enum Skip {
        /** Older than the startup sweep's maximum age. */
        AGE,
        /** A configured peer (its own dial path handles it). */
        CONFIGURED,
        /** The author is not a valid npub. */
        INVALID_NPUB,
        /** Our own advert. */
        SELF,
        /** Already a peer. */
        CONNECTED,
        /** Already queued, or waiting before its next try. */
        RETRY_PENDING,
        /** In its failure or protocol-mismatch cooldown (§1.12). */
        COOLDOWN,
        /** A handshake to it is in flight. */
        CONNECTING,
        /** No endpoint of its advert that one of our transports can dial. */
        NO_ENDPOINTS
    }

    /** The node's state as the sweep asks for it (control thread). */
    public interface Peers {
        /** @return whether {@code npub} is a configured peer */
        boolean configured(String npub);

        /** @return whether {@code npub} is a peer now */
        boolean connected(String npub);

        /** @return whether a dial of {@code npub} is queued or it waits before its next try */
        boolean retryPending(String npub);

        /** @return whether {@code npub} is in a cooldown */
        boolean inCooldown(String npub);

        /** @return whether a handshake to {@code npub} is in flight */
        boolean connecting(String npub);

        /**
         * Dials the stranger from its advert.
         *
         * @return false when none of its endpoints is one we can dial (nothing was started)
         */
        boolean queue(PeerIdentity peer, AdvertCache.Cached advert);
    }

    /**
     * What one sweep did.
     *
     * @param caller  {@link #PER_TICK} or {@link #STARTUP}
     * @param atMs    when it ran, Unix ms
     * @param budget  how many it could queue
     * @param cached  how many cached adverts it was given
     * @param queued  how many it queued
     * @param skipped the skip counts, every {@link Skip} present
     */
    public record Result(String caller, long atMs, int budget, int cached, int queued, Map<Skip, Integer> skipped) {
        /** Freezes the map. */
        public Result {
            skipped = Collections.unmodifiableMap(new EnumMap<>(skipped));
        }

        /** @return the skips in total */
        public int skippedTotal() {
            return skipped.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** @return the summary line's fields: {@code caller=... cached=... queued=... skipped_age=... ...} */
        public String summary() {
            final StringBuilder sb = new StringBuilder();
            sb.append("caller=").append(caller).append(" cached=").append(cached).append(" queued=").append(queued);
            skipped.forEach((k, v) -> sb.append(" skipped_").append(k.name().toLowerCase(Locale.ROOT)).append('=')
                    .append(v));
            return sb.append(" skipped_total=").append(skippedTotal()).toString();
        }
    }

    private OpenDiscoverySweep() {
    }

    /**
     * The sweep's budget (§1.10): {@code open_discovery_max_pending} less the strangers already pending, and no more
     * than the free outbound slots.
     *
     * @param maxPending    {@code open_discovery_max_pending}
     * @param pending       strangers queued or dialling now
     * @param freeOutbound  free connection and peer slots (the smaller)
     * @return how many the sweep may queue, at least 0
     */
    public static int budget(final long maxPending, final long pending, final long freeOutbound) {
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, Math.min(maxPending - pending, freeOutbound)));
    }

    /**
     * Runs one sweep.
     *
     * @param caller     {@link #PER_TICK} or {@link #STARTUP}
     * @param candidates the cached adverts, at most {@link AdvertCache#SWEEP_LIMIT}
     * @param budget     how many may be queued ({@link #budget})
     * @param maxAgeSecs the startup sweep's age limit on {@code created_at}, or null for none
     * @param nowMs      the wall clock, Unix ms
     * @param selfNpub   our npub
     * @param peers      the node's state
     * @return what it did
     */
    public static Result run(final String caller, final List<AdvertCache.Cached> candidates, final int budget,
            final Long maxAgeSecs, final long nowMs, final String selfNpub, final Peers peers) {
        final Map<Skip, Integer> skipped = new EnumMap<>(Skip.class);
        for (final Skip s : Skip.values()) {
            skipped.put(s, 0);
        }
        final long nowSecs = Math.floorDiv(nowMs, 1000);
        int queued = 0;
        for (final AdvertCache.Cached c : candidates) {
            if (queued >= budget) {
                break;
            }
            final String npub = c.authorNpub();
            Skip skip = null;
            PeerIdentity id = null;
            if (maxAgeSecs != null && nowSecs - c.createdAt() > maxAgeSecs) {
                skip = Skip.AGE;
            } else if (peers.configured(npub)) {
                // Its own dial path (NostrDiscovery) dials it from this advert; no retry is pulled forward (ADR 0058).
                skip = Skip.CONFIGURED;
            } else {
                try {
                    id = PeerIdentity.fromNpub(npub);
                    skip = check(npub, selfNpub, peers);
                } catch (final IdentityFormatException e) {
                    skip = Skip.INVALID_NPUB;
                }
            }
            if (skip == null && !peers.queue(id, c)) {
                skip = Skip.NO_ENDPOINTS;
            }
            if (skip != null) {
                skipped.merge(skip, 1, Integer::sum);
            } else {
                queued++;
            }
        }
        return new Result(caller, nowMs, budget, candidates.size(), queued, skipped);
    }

    /** @return the first of the later checks {@code npub} fails, or null */
    private static Skip check(final String npub, final String selfNpub, final Peers peers) {
        if (npub.equals(selfNpub)) {
            return Skip.SELF;
        }
        if (peers.connected(npub)) {
            return Skip.CONNECTED;
        }
        if (peers.retryPending(npub)) {
            return Skip.RETRY_PENDING;
        }
        if (peers.inCooldown(npub)) {
            return Skip.COOLDOWN;
        }
        if (peers.connecting(npub)) {
            return Skip.CONNECTING;
        }
        return null;
    }
}
