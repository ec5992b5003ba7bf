package net.fips.control.nostr;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The responder's cache of offer session ids (discovery-gateway.md §1.12, the reference's
 * {@code mark_session_seen}): expired entries pruned on every call, a known id refused, a new one kept for
 * {@code replay_window_secs}, and above {@code seen_sessions_max_entries} the soonest-expiring entry evicted.
 * Pure; time from the caller; the control thread owns it.
 */
public final class ReplayCache {
    private final int maxEntries;
    private final long windowMs;
    private final Map<String, Long> expiries = new HashMap<>();

    /**
     * @param maxEntries {@code seen_sessions_max_entries}, at least 1
     * @param windowMs   {@code replay_window_secs} in ms
     */
    public ReplayCache(final int maxEntries, final long windowMs) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("replay cache needs at least one entry");
        }
        this.maxEntries = maxEntries;
        this.windowMs = windowMs;
    }

    /**
     * @param sessionId an offer's session id
     * @param nowMs     the wall clock, Unix ms
     * @return true when the id is new (now remembered), false for a replay
     */
    public boolean markSeen(final String sessionId, final long nowMs) {
        expiries.values().removeIf(exp -> exp <= nowMs);
        if (expiries.containsKey(sessionId)) {
            return false;
        }
        expiries.put(sessionId, nowMs + windowMs);
        while (expiries.size() > maxEntries) {
            final String soonest = expiries.entrySet().stream().min(Map.Entry.comparingByValue(
                    Comparator.naturalOrder())).orElseThrow().getKey();
            expiries.remove(soonest);
        }
        return true;
    }

    /** @return the number of remembered ids */
    public int size() {
        return expiries.size();
    }
}
