package net.fips.control.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * {@code node.discovery.nostr.*} (v0.4.1) or {@code node.rendezvous.nostr.*} (master), every key of
 * discovery-gateway.md §1.13 with the reference's defaults (operator.md §1.7). Which spelling wins is decided in
 * {@code NodeSection} (the v0.4.1 block, when present, as master does). The node does not run Nostr discovery
 * yet: these values are parsed and typed, and the keys still warn as not implemented ({@code ReferenceKeys}).
 *
 * @param enabled                      {@code enabled} (false)
 * @param advertise                    {@code advertise} (true)
 * @param advertRelays                 {@code advert_relays}
 * @param dmRelays                     {@code dm_relays}
 * @param stunServers                  {@code stun_servers}
 * @param shareLocalCandidates         {@code share_local_candidates} (false)
 * @param app                          {@code app} ({@code fips-overlay-v1})
 * @param signalTtlSecs                {@code signal_ttl_secs} (120)
 * @param policy                       {@code policy} (configured_only)
 * @param openDiscoveryMaxPending      {@code open_discovery_max_pending} (64)
 * @param maxConcurrentIncomingOffers  {@code max_concurrent_incoming_offers} (16)
 * @param maxConcurrentOffersPerNpub   {@code max_concurrent_offers_per_npub} (4, master)
 * @param advertCacheMaxEntries        {@code advert_cache_max_entries} (2048)
 * @param seenSessionsMaxEntries       {@code seen_sessions_max_entries} (2048)
 * @param attemptTimeoutSecs           {@code attempt_timeout_secs} (10)
 * @param replayWindowSecs             {@code replay_window_secs} (300)
 * @param punchStartDelayMs            {@code punch_start_delay_ms} (2000)
 * @param punchIntervalMs              {@code punch_interval_ms} (200)
 * @param punchDurationMs              {@code punch_duration_ms} (10000)
 * @param advertTtlSecs                {@code advert_ttl_secs} (3600)
 * @param advertRefreshSecs            {@code advert_refresh_secs} (1800)
 * @param startupSweepDelaySecs        {@code startup_sweep_delay_secs} (5)
 * @param startupSweepMaxAgeSecs       {@code startup_sweep_max_age_secs} (3600)
 * @param failureStreakThreshold       {@code failure_streak_threshold} (5)
 * @param extendedCooldownSecs         {@code extended_cooldown_secs} (1800)
 * @param warnLogIntervalSecs          {@code warn_log_interval_secs} (300)
 * @param failureStateMaxEntries       {@code failure_state_max_entries} (4096)
 * @param protocolMismatchCooldownSecs {@code protocol_mismatch_cooldown_secs} (86400)
 */
public record NostrConfig(boolean enabled, boolean advertise, List<String> advertRelays, List<String> dmRelays,
        List<String> stunServers, boolean shareLocalCandidates, String app, long signalTtlSecs, Policy policy,
        long openDiscoveryMaxPending, long maxConcurrentIncomingOffers, long maxConcurrentOffersPerNpub,
        long advertCacheMaxEntries, long seenSessionsMaxEntries, long attemptTimeoutSecs, long replayWindowSecs,
        long punchStartDelayMs, long punchIntervalMs, long punchDurationMs, long advertTtlSecs,
        long advertRefreshSecs, long startupSweepDelaySecs, long startupSweepMaxAgeSecs,
        long failureStreakThreshold, long extendedCooldownSecs, long warnLogIntervalSecs,
        long failureStateMaxEntries, long protocolMismatchCooldownSecs) {

    /** {@code policy}: which adverts become dials (discovery-gateway.md §1.10). */
    public enum Policy {
        /** Advert endpoints are never dialled. */
        DISABLED,
        /** Advert endpoints of configured peers with {@code via_nostr: true}. */
        CONFIGURED_ONLY,
        /** Also every cached stranger. */
        OPEN
    }

    /** The reference's default relays, for both lists. */
    public static final List<String> DEFAULT_RELAYS = List.of("wss://relay.damus.io", "wss://nos.lol",
            "wss://offchain.pub");
    /** The reference's default STUN servers. */
    public static final List<String> DEFAULT_STUN_SERVERS = List.of("stun:stun.l.google.com:19302",
            "stun:stun.cloudflare.com:3478", "stun:global.stun.twilio.com:3478");

    /** Every default. */
    public static final NostrConfig DEFAULTS = new NostrConfig(false, true, DEFAULT_RELAYS, DEFAULT_RELAYS,
            DEFAULT_STUN_SERVERS, false, "fips-overlay-v1", 120, Policy.CONFIGURED_ONLY, 64, 16, 4, 2048, 2048, 10,
            300, 2000, 200, 10_000, 3600, 1800, 5, 3600, 5, 1800, 300, 4096, 86_400);

    /**
     * @param on {@code advertise}
     * @return these settings with {@code advertise} set to {@code on} (what a reload applies while running)
     */
    public NostrConfig withAdvertise(final boolean on) {
        return new NostrConfig(enabled, on, advertRelays, dmRelays, stunServers, shareLocalCandidates, app,
                signalTtlSecs, policy, openDiscoveryMaxPending, maxConcurrentIncomingOffers, maxConcurrentOffersPerNpub,
                advertCacheMaxEntries, seenSessionsMaxEntries, attemptTimeoutSecs, replayWindowSecs, punchStartDelayMs,
                punchIntervalMs, punchDurationMs, advertTtlSecs, advertRefreshSecs, startupSweepDelaySecs,
                startupSweepMaxAgeSecs, failureStreakThreshold, extendedCooldownSecs, warnLogIntervalSecs,
                failureStateMaxEntries, protocolMismatchCooldownSecs);
    }

    /** Checks nullness and freezes the lists. */
    public NostrConfig {
        advertRelays = List.copyOf(advertRelays);
        dmRelays = List.copyOf(dmRelays);
        stunServers = List.copyOf(stunServers);
        Objects.requireNonNull(app, "app");
        Objects.requireNonNull(policy, "policy");
    }

    /**
     * Builds the record from the section's typed values ({@code Skim.NOSTR} has already checked every type and
     * enum value); absent keys take the defaults.
     *
     * @param section key to typed value, as {@code Skim.read} returns it
     * @return the settings
     */
    static NostrConfig from(final Map<String, Object> section) {
        final NostrConfig d = DEFAULTS;
        final Values v = new Values(section);
        return new NostrConfig(v.bool("enabled", d.enabled), v.bool("advertise", d.advertise),
                v.strings("advert_relays", d.advertRelays), v.strings("dm_relays", d.dmRelays),
                v.strings("stun_servers", d.stunServers), v.bool("share_local_candidates", d.shareLocalCandidates),
                v.string("app", d.app), v.num("signal_ttl_secs", d.signalTtlSecs),
                section.get("policy") instanceof String p ? Policy.valueOf(p.toUpperCase(Locale.ROOT)) : d.policy,
                v.num("open_discovery_max_pending", d.openDiscoveryMaxPending),
                v.num("max_concurrent_incoming_offers", d.maxConcurrentIncomingOffers),
                v.num("max_concurrent_offers_per_npub", d.maxConcurrentOffersPerNpub),
                v.num("advert_cache_max_entries", d.advertCacheMaxEntries),
                v.num("seen_sessions_max_entries", d.seenSessionsMaxEntries),
                v.num("attempt_timeout_secs", d.attemptTimeoutSecs), v.num("replay_window_secs", d.replayWindowSecs),
                v.num("punch_start_delay_ms", d.punchStartDelayMs), v.num("punch_interval_ms", d.punchIntervalMs),
                v.num("punch_duration_ms", d.punchDurationMs), v.num("advert_ttl_secs", d.advertTtlSecs),
                v.num("advert_refresh_secs", d.advertRefreshSecs),
                v.num("startup_sweep_delay_secs", d.startupSweepDelaySecs),
                v.num("startup_sweep_max_age_secs", d.startupSweepMaxAgeSecs),
                v.num("failure_streak_threshold", d.failureStreakThreshold),
                v.num("extended_cooldown_secs", d.extendedCooldownSecs),
                v.num("warn_log_interval_secs", d.warnLogIntervalSecs),
                v.num("failure_state_max_entries", d.failureStateMaxEntries),
                v.num("protocol_mismatch_cooldown_secs", d.protocolMismatchCooldownSecs));
    }

    /** Typed look-ups in a skimmed section. */
    private record Values(Map<String, Object> m) {
        boolean bool(final String key, final boolean def) {
            return m.get(key) instanceof Boolean b ? b : def;
        }

        long num(final String key, final long def) {
            return m.get(key) instanceof Number n ? n.longValue() : def;
        }

        String string(final String key, final String def) {
            return m.get(key) instanceof String s ? s : def;
        }

        List<String> strings(final String key, final List<String> def) {
            if (m.get(key) instanceof List<?> l) {
                return l.stream().map(String::valueOf).toList();
            }
            return def;
        }
    }
}
