package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Per-npub NAT-traversal failure accounting of the initiator (discovery-gateway.md §1.12): a failure streak, an
 * extended cooldown once the streak reaches {@code failure_streak_threshold}, rate-limited warnings, the last
 * observed clock skew, the protocol-mismatch cooldown, and eviction of the entries with the oldest last failure
 * above {@code failure_state_max_entries}. Pure; times are Unix ms from the caller; the control thread owns it.
 */
public final class FailureState {
    private final long threshold;
    private final long extendedCooldownMs;
    private final long warnIntervalMs;
    private final int maxEntries;
    private final Map<String, Entry> entries = new HashMap<>();

    /** One npub's record. */
    private static final class Entry {
        long streak;
        long lastFailureAtMs;
        Long lastWarnAtMs;
        Long cooldownUntilMs;
        Long skewMs;

        Entry(final long nowMs) {
            this.lastFailureAtMs = nowMs;
        }
    }

    /**
     * What a failure means.
     *
     * @param consecutiveFailures the streak now
     * @param shouldWarn          log at WARN (else DEBUG: rate-limited)
     * @param cooldownUntilMs     no retry before this, or null
     * @param crossedThreshold    this failure made the streak reach the threshold (run the stale re-check)
     */
    public record Decision(long consecutiveFailures, boolean shouldWarn, Long cooldownUntilMs,
            boolean crossedThreshold) {
    }

    /**
     * One row of {@code show_peers[].nostr_traversal}.
     *
     * @param npub                the peer
     * @param consecutiveFailures the streak
     * @param cooldownUntilMs     the cooldown (set, even if past), or null
     * @param lastObservedSkewMs  the last skew estimate, or null
     */
    public record View(String npub, long consecutiveFailures, Long cooldownUntilMs, Long lastObservedSkewMs) {
    }

    /**
     * @param threshold            {@code failure_streak_threshold}
     * @param extendedCooldownSecs {@code extended_cooldown_secs}
     * @param warnLogIntervalSecs  {@code warn_log_interval_secs}
     * @param maxEntries           {@code failure_state_max_entries}
     */
    public FailureState(final long threshold, final long extendedCooldownSecs, final long warnLogIntervalSecs,
            final int maxEntries) {
        this.threshold = threshold;
        this.extendedCooldownMs = extendedCooldownSecs * 1000;
        this.warnIntervalMs = warnLogIntervalSecs * 1000;
        this.maxEntries = maxEntries;
    }

    /**
     * @param npub  the peer
     * @param nowMs the wall clock
     * @return what the failure means
     */
    public Decision recordFailure(final String npub, final long nowMs) {
        final Entry e = entries.computeIfAbsent(npub, k -> new Entry(nowMs));
        e.streak++;
        e.lastFailureAtMs = nowMs;
        final boolean crossed = e.streak == threshold;
        Long cooldown = null;
        if (e.streak >= threshold) {
            cooldown = nowMs + extendedCooldownMs;
            e.cooldownUntilMs = cooldown;
        }
        final boolean warn = e.lastWarnAtMs == null || nowMs - e.lastWarnAtMs >= warnIntervalMs;
        if (warn) {
            e.lastWarnAtMs = nowMs;
        }
        final Decision d = new Decision(e.streak, warn, cooldown, crossed);
        evictOldest();
        return d;
    }

    /** Clears the streak and cooldown after a traversal succeeded (the skew is kept). */
    public void recordSuccess(final String npub, final long nowMs) {
        final Entry e = entries.get(npub);
        if (e != null) {
            e.streak = 0;
            e.cooldownUntilMs = null;
            e.lastFailureAtMs = nowMs;
        }
    }

    /** Clears the streak and cooldown after the stale re-check found a new advert or none. */
    public void resetStreak(final String npub) {
        final Entry e = entries.get(npub);
        if (e != null) {
            e.streak = 0;
            e.cooldownUntilMs = null;
        }
    }

    /** Stores a skew estimate, creating the entry if needed. */
    public void noteObservedSkew(final String npub, final long skewMs, final long nowMs) {
        entries.computeIfAbsent(npub, k -> new Entry(nowMs)).skewMs = skewMs;
        evictOldest();
    }

    /**
     * An adopted traversal socket got a packet of another FMP version: streak at least the threshold, cooldown
     * {@code cooldownMs} from now.
     *
     * @return true when this is news (WARN once): no earlier cooldown still had half of that window left
     */
    public boolean recordProtocolMismatch(final String npub, final long nowMs, final long cooldownMs) {
        final Entry e = entries.computeIfAbsent(npub, k -> new Entry(nowMs));
        e.streak = Math.max(e.streak, threshold);
        e.lastFailureAtMs = nowMs;
        final boolean suppressed = e.cooldownUntilMs != null && e.cooldownUntilMs > nowMs
                && e.cooldownUntilMs - nowMs >= cooldownMs / 2;
        e.cooldownUntilMs = nowMs + cooldownMs;
        evictOldest();
        return !suppressed;
    }

    /** @return the cooldown of {@code npub} while it lies in the future */
    public OptionalLong cooldownUntil(final String npub, final long nowMs) {
        final Entry e = entries.get(npub);
        return e != null && e.cooldownUntilMs != null && e.cooldownUntilMs > nowMs
                ? OptionalLong.of(e.cooldownUntilMs) : OptionalLong.empty();
    }

    /** @return every record, for {@code show_peers} */
    public List<View> snapshot() {
        final List<View> out = new ArrayList<>();
        entries.forEach((k, e) -> out.add(new View(k, e.streak, e.cooldownUntilMs, e.skewMs)));
        out.sort(Comparator.comparing(View::npub));
        return out;
    }

    private void evictOldest() {
        while (entries.size() > maxEntries) {
            final String oldest = entries.entrySet().stream()
                    .min(Comparator.comparingLong(x -> x.getValue().lastFailureAtMs)).orElseThrow().getKey();
            entries.remove(oldest);
        }
    }
}
