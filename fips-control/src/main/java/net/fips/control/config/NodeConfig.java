package net.fips.control.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code node.*}: identity, control socket, timers, limits and protocol tuning. Every {@code DEFAULTS} constant
 * holds the reference v0.4.1 default (operator.md §1.3-§1.10, crypto-link.md §5.11-§5.16 and §8).
 *
 * @param identity              {@code node.identity}
 * @param leafOnly              {@code node.leaf_only} (false)
 * @param logLevel              {@code node.log_level} as written; see {@link #effectiveLogLevel()}
 * @param tickIntervalSecs      {@code node.tick_interval_secs} (1)
 * @param baseRttMs             {@code node.base_rtt_ms} (100)
 * @param heartbeatIntervalSecs {@code node.heartbeat_interval_secs} (10)
 * @param linkDeadTimeoutSecs   {@code node.link_dead_timeout_secs} (30)
 * @param limits                {@code node.limits}
 * @param rateLimit             {@code node.rate_limit}
 * @param retry                 {@code node.retry}
 * @param cache                 {@code node.cache}
 * @param lookup                the lookup scalars of {@code node.discovery} (nostr and lan are not modelled)
 * @param tree                  {@code node.tree}
 * @param bloom                 {@code node.bloom}
 * @param session               {@code node.session}
 * @param mmp                   {@code node.mmp}
 * @param sessionMmp            {@code node.session_mmp}
 * @param ecn                   {@code node.ecn}
 * @param rekey                 {@code node.rekey}
 * @param buffers               {@code node.buffers}
 * @param control               {@code node.control}
 * @param metrics               {@code node.metrics} (ours; not in the reference): the Prometheus endpoint
 * @param dataplane             {@code node.dataplane} (ours; not in the reference): how the data plane uses threads
 */
public record NodeConfig(Identity identity, boolean leafOnly, Optional<String> logLevel, long tickIntervalSecs,
        long baseRttMs, long heartbeatIntervalSecs, long linkDeadTimeoutSecs, Limits limits, RateLimit rateLimit,
        Retry retry, Cache cache, Lookup lookup, Tree tree, Bloom bloom, Session session, Mmp mmp, Mmp sessionMmp,
        Ecn ecn, Rekey rekey, Buffers buffers, Control control, Metrics metrics, Dataplane dataplane) {

    /**
     * Without {@code node.metrics} (the endpoint off). Parameters as the canonical constructor's.
     */
    public NodeConfig(final Identity identity, final boolean leafOnly, final Optional<String> logLevel,
                      final long tickIntervalSecs, final long baseRttMs, final long heartbeatIntervalSecs,
                      final long linkDeadTimeoutSecs, final Limits limits, final RateLimit rateLimit,
                      final Retry retry, final Cache cache, final Lookup lookup, final Tree tree, final Bloom bloom,
                      final Session session, final Mmp mmp, final Mmp sessionMmp, final Ecn ecn, final Rekey rekey,
                      final Buffers buffers, final Control control) {
        this(identity, leafOnly, logLevel, tickIntervalSecs, baseRttMs, heartbeatIntervalSecs, linkDeadTimeoutSecs,
                limits, rateLimit, retry, cache, lookup, tree, bloom, session, mmp, sessionMmp, ecn, rekey, buffers,
                control, Metrics.DISABLED, Dataplane.DEFAULTS);
    }

    /** Log levels of {@code node.log_level}. */
    public enum LogLevel { TRACE, DEBUG, INFO, WARN, ERROR }

    /** Link and session metrics modes (§1.10). */
    public enum MmpMode { FULL, LIGHTWEIGHT, MINIMAL }

    /** Checks required parts. */
    public NodeConfig {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(logLevel, "logLevel");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(rateLimit, "rateLimit");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(lookup, "lookup");
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(bloom, "bloom");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(mmp, "mmp");
        Objects.requireNonNull(sessionMmp, "sessionMmp");
        Objects.requireNonNull(ecn, "ecn");
        Objects.requireNonNull(rekey, "rekey");
        Objects.requireNonNull(buffers, "buffers");
        Objects.requireNonNull(control, "control");
        metrics = metrics == null ? Metrics.DISABLED : metrics;
        dataplane = dataplane == null ? Dataplane.DEFAULTS : dataplane;
    }

    /** §1.3 general timers. */
    static final long DEFAULT_TICK_INTERVAL_SECS = 1;
    static final long DEFAULT_BASE_RTT_MS = 100;
    static final long DEFAULT_HEARTBEAT_INTERVAL_SECS = 10;
    static final long DEFAULT_LINK_DEAD_TIMEOUT_SECS = 30;

    /**
     * The log level the reference would use: trace/debug/warn/warning/error case-insensitively, anything else
     * (including absent and "info") is info (§1.3). {@code RUST_LOG} overriding it is handled by
     * {@link ConfigSources}.
     *
     * @return the effective level
     */
    public LogLevel effectiveLogLevel() {
        return parseLogLevel(logLevel.orElse(null));
    }

    static LogLevel parseLogLevel(final String text) {
        if (text == null) {
            return LogLevel.INFO;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "trace" -> LogLevel.TRACE;
            case "debug" -> LogLevel.DEBUG;
            case "warn", "warning" -> LogLevel.WARN;
            case "error" -> LogLevel.ERROR;
            default -> LogLevel.INFO;
        };
    }

    /**
     * {@code node.identity} (crypto-link.md §2.5): an explicit secret always wins; otherwise {@code persistent}
     * picks between reusing {@code fips.key} and a fresh key every start. Pass both to
     * {@code KeyFiles.resolve(nsec.orElse(null), persistent, KeyFiles.directoryFor(loadedFiles))}.
     *
     * @param nsec       {@code nsec} (bech32 or 64 hex), already checked to decode
     * @param persistent {@code persistent} (false)
     */
    public record Identity(Optional<String> nsec, boolean persistent) {
        /** Ephemeral identity, no secret. */
        public static final Identity DEFAULTS = new Identity(Optional.empty(), false);

        /** Checks nullness. */
        public Identity {
            Objects.requireNonNull(nsec, "nsec");
        }

        /** Keeps the secret out of logs. */
        @Override
        public String toString() {
            return "Identity[nsec=" + (nsec.isPresent() ? "<redacted>" : "none") + ", persistent=" + persistent + "]";
        }
    }

    /**
     * {@code node.control} (§1.4, §2.1).
     *
     * @param enabled    {@code enabled} (true)
     * @param socketPath {@code socket_path}; when the file leaves it out it holds the auto-resolved path
     *                   ({@link ControlSocketPaths#resolveDefault})
     */
    public record Control(boolean enabled, String socketPath) {
        /** Checks nullness. */
        public Control {
            Objects.requireNonNull(socketPath, "socketPath");
        }
    }

    /**
     * {@code node.metrics}: the Prometheus/OpenMetrics scrape endpoint, our addition (neither v0.4.1 nor master has
     * one). Off unless {@code bind} is set; a bind address that is not loopback is refused unless
     * {@code allow_non_loopback: true}, since the endpoint has no authentication and names every peer.
     *
     * @param bind             {@code bind}: {@code ip:port} to serve {@code /metrics} on, or empty (off)
     * @param allowNonLoopback {@code allow_non_loopback} (false)
     */
    public record Metrics(Optional<String> bind, boolean allowNonLoopback) {
        /** No endpoint. */
        public static final Metrics DISABLED = new Metrics(Optional.empty(), false);

        /** Checks nullness. */
        public Metrics {
            Objects.requireNonNull(bind, "bind");
        }
    }

    /** {@code node.dataplane.threading}. */
    public enum Threading {
        /** The node picks: dedicated for now (compact is opt-in until measured on a quiet machine). */
        AUTO,
        /** One thread per data-plane agent (receive per UDP transport, TUN receive, workers, send per transport). */
        DEDICATED,
        /** Every data-plane agent on one thread, blocking in poll when idle. */
        COMPACT
    }

    /**
     * {@code node.dataplane}: our addition. The environment variable {@code FIPS_DATAPLANE_THREADING} overrides
     * {@code threading}.
     *
     * @param threading {@code threading} (auto)
     * @param udpGro    {@code udp_gro} (true): ask the kernel for UDP GRO on every UDP transport's socket, so a
     *                  peer's GSO train arrives as one receive (ADR 0067); nothing on the wire changes
     */
    public record Dataplane(Threading threading, boolean udpGro) {
        /** threading auto, UDP GRO on. */
        public static final Dataplane DEFAULTS = new Dataplane(Threading.AUTO, true);

        /** Checks nullness. */
        public Dataplane {
            Objects.requireNonNull(threading, "threading");
        }
    }

    /** {@code node.limits} (§1.5, crypto-link.md §5.16). */
    public record Limits(int maxConnections, int maxPeers, int maxLinks, int maxPendingInbound) {
        /** 256 / 128 / 256 / 1000. */
        public static final Limits DEFAULTS = new Limits(256, 128, 256, 1000);
    }

    /** {@code node.rate_limit} (§1.5, crypto-link.md §8). */
    public record RateLimit(int handshakeBurst, double handshakeRate, long handshakeTimeoutSecs,
            long handshakeResendIntervalMs, double handshakeResendBackoff, int handshakeMaxResends) {
        /** burst 100, 10.0/s, 30 s, 1000 ms, x2.0, 5 resends. */
        public static final RateLimit DEFAULTS = new RateLimit(100, 10.0, 30, 1000, 2.0, 5);
    }

    /** {@code node.retry} (§1.5, crypto-link.md §5.15). */
    public record Retry(int maxRetries, long baseIntervalSecs, long maxBackoffSecs) {
        /** 5 retries, 5 s base, 300 s cap. */
        public static final Retry DEFAULTS = new Retry(5, 5, 300);
    }

    /** {@code node.cache} (§1.5). */
    public record Cache(int coordSize, long coordTtlSecs, int identitySize) {
        /** 50000 / 300 s / 10000. */
        public static final Cache DEFAULTS = new Cache(50_000, 300, 10_000);
    }

    /** The lookup scalars of {@code node.discovery} (§1.6). */
    public record Lookup(int ttl, List<Long> attemptTimeoutsSecs, long recentExpirySecs, long backoffBaseSecs,
            long backoffMaxSecs, long forwardMinIntervalSecs) {
        /** ttl 64, attempts [1,2,4,8] s, 10 s dedup, no backoff, 2 s transit rate limit. */
        public static final Lookup DEFAULTS = new Lookup(64, List.of(1L, 2L, 4L, 8L), 10, 0, 0, 2);

        /** Freezes the list. */
        public Lookup {
            attemptTimeoutsSecs = List.copyOf(attemptTimeoutsSecs);
        }
    }

    /** {@code node.tree} (§1.9). */
    public record Tree(long announceMinIntervalMs, double parentHysteresis, long holdDownSecs,
            long reevalIntervalSecs, int flapThreshold, long flapWindowSecs, long flapDampeningSecs) {
        /** 500 ms, 0.2, 30 s, 60 s, 4 flaps in 60 s, 120 s dampening. */
        public static final Tree DEFAULTS = new Tree(500, 0.2, 30, 60, 4, 60, 120);
    }

    /** {@code node.bloom} (§1.9). */
    public record Bloom(long updateDebounceMs, double maxInboundFpr) {
        /** 500 ms, 0.20. */
        public static final Bloom DEFAULTS = new Bloom(500, 0.20);
    }

    /** {@code node.session} (§1.10, crypto-link.md §8). */
    public record Session(int defaultTtl, int pendingPacketsPerDest, int pendingMaxDestinations,
            long idleTimeoutSecs, int coordsWarmupPackets, long coordsResponseIntervalMs) {
        /** ttl 64, 16 per dest, 256 dests, 90 s idle, 5 warm-up packets, 2000 ms. */
        public static final Session DEFAULTS = new Session(64, 16, 256, 90, 5, 2000);
    }

    /** {@code node.mmp} and {@code node.session_mmp} (§1.10). */
    public record Mmp(MmpMode mode, long logIntervalSecs, int owdWindowSize) {
        /** full, 30 s, 32. */
        public static final Mmp DEFAULTS = new Mmp(MmpMode.FULL, 30, 32);

        /** Checks nullness. */
        public Mmp {
            Objects.requireNonNull(mode, "mode");
        }
    }

    /** {@code node.ecn} (§1.10). */
    public record Ecn(boolean enabled, double lossThreshold, double etxThreshold) {
        /** on, 0.05, 3.0. */
        public static final Ecn DEFAULTS = new Ecn(true, 0.05, 3.0);
    }

    /**
     * {@code node.rekey} (§1.10, crypto-link.md §5.11). The ±15 s jitter, 10 s drain and 30 s dampening are fixed
     * constants, not keys.
     */
    public record Rekey(boolean enabled, long afterSecs, long afterMessages) {
        /** on, 120 s, 65536 messages. */
        public static final Rekey DEFAULTS = new Rekey(true, 120, 65_536);
    }

    /** {@code node.buffers} (§1.10). */
    public record Buffers(int packetChannel, int tunChannel, int dnsChannel) {
        /** 1024 / 1024 / 64. */
        public static final Buffers DEFAULTS = new Buffers(1024, 1024, 64);
    }
}
