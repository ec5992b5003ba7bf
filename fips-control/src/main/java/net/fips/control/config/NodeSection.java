package net.fips.control.config;

import java.util.Map;
import java.util.Optional;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;

/** Maps {@code node.*}; every default comes from the records' {@code DEFAULTS} (operator.md §1.3-§1.10). */
final class NodeSection {
    /** What {@link #read} found besides the record, for cross-field checks. */
    record Result(NodeConfig node, Map<String, Object> nostr, LanConfig lan) {
    }

    private NodeSection() {
    }

    static Result read(final ConfigReader n, final HostEnvironment host) {
        final NodeConfig.Identity identity = identity(n.child("identity"));
        final boolean leafOnly = n.bool("leaf_only", false);
        final Optional<String> logLevel = n.optString("log_level");
        // A zero tick would make the maintenance timer spin; the reference would panic creating it.
        final long tick = n.integer("tick_interval_secs", NodeConfig.DEFAULT_TICK_INTERVAL_SECS, 1, Long.MAX_VALUE);
        final long baseRtt = n.u64("base_rtt_ms", NodeConfig.DEFAULT_BASE_RTT_MS);
        final long heartbeat = n.u64("heartbeat_interval_secs", NodeConfig.DEFAULT_HEARTBEAT_INTERVAL_SECS);
        final long linkDead = n.u64("link_dead_timeout_secs", NodeConfig.DEFAULT_LINK_DEAD_TIMEOUT_SECS);
        n.u64("drain_timeout_secs", 0);
        final ConfigReader api = n.child("native_api");
        Skim.read(api, Skim.NATIVE_API);
        api.finish();

        final ConfigReader l = n.child("limits");
        final NodeConfig.Limits ld = NodeConfig.Limits.DEFAULTS;
        final NodeConfig.Limits limits = new NodeConfig.Limits(l.usize("max_connections", ld.maxConnections()),
                l.usize("max_peers", ld.maxPeers()), l.usize("max_links", ld.maxLinks()),
                l.usize("max_pending_inbound", ld.maxPendingInbound()));
        l.finish();

        final ConfigReader rl = n.child("rate_limit");
        final NodeConfig.RateLimit rd = NodeConfig.RateLimit.DEFAULTS;
        final NodeConfig.RateLimit rateLimit = new NodeConfig.RateLimit(
                rl.u32("handshake_burst", rd.handshakeBurst()),
                rl.f64("handshake_rate", rd.handshakeRate(), 0, Double.MAX_VALUE),
                rl.u64("handshake_timeout_secs", rd.handshakeTimeoutSecs()),
                rl.u64("handshake_resend_interval_ms", rd.handshakeResendIntervalMs()),
                rl.f64("handshake_resend_backoff", rd.handshakeResendBackoff(), 0, Double.MAX_VALUE),
                rl.u32("handshake_max_resends", rd.handshakeMaxResends()));
        Skim.read(rl, Skim.RATE_LIMIT_MASTER);
        rl.finish();

        final ConfigReader rt = n.child("retry");
        final NodeConfig.Retry rtd = NodeConfig.Retry.DEFAULTS;
        final NodeConfig.Retry retry = new NodeConfig.Retry(rt.u32("max_retries", rtd.maxRetries()),
                rt.u64("base_interval_secs", rtd.baseIntervalSecs()),
                rt.u64("max_backoff_secs", rtd.maxBackoffSecs()));
        rt.finish();

        final ConfigReader c = n.child("cache");
        final NodeConfig.Cache cd = NodeConfig.Cache.DEFAULTS;
        final NodeConfig.Cache cache = new NodeConfig.Cache(c.usize("coord_size", cd.coordSize()),
                c.u64("coord_ttl_secs", cd.coordTtlSecs()), c.usize("identity_size", cd.identitySize()));
        c.finish();

        // v0.4.1 spells the lookup scalars and the rendezvous sections node.discovery.*; master moved them to
        // node.lookup.* and node.rendezvous.{nostr,lan}.* and, like master, a key of the old block wins.
        final ConfigReader d = n.child("discovery");
        final ConfigReader lk = n.child("lookup");
        final NodeConfig.Lookup lookup = lookup(d, lookup(lk, NodeConfig.Lookup.DEFAULTS));
        lk.finish();
        final ConfigReader rv = n.child("rendezvous");
        final Map<String, Object> newNostr = section(rv, "nostr", Skim.NOSTR);
        final LanConfig newLan = LanConfig.read(rv.child("lan"));
        rv.finish();
        final Map<String, Object> oldNostr = section(d, "nostr", Skim.NOSTR);
        final LanConfig oldLan = LanConfig.read(d.child("lan"));
        d.finish();
        final Map<String, Object> nostr = d.has("nostr") ? oldNostr : newNostr;
        final LanConfig lan = d.has("lan") ? oldLan : newLan;

        final ConfigReader t = n.child("tree");
        final NodeConfig.Tree td = NodeConfig.Tree.DEFAULTS;
        final NodeConfig.Tree tree = new NodeConfig.Tree(t.u64("announce_min_interval_ms", td.announceMinIntervalMs()),
                t.f64("parent_hysteresis", td.parentHysteresis(), 0, Double.MAX_VALUE),
                t.u64("hold_down_secs", td.holdDownSecs()), t.u64("reeval_interval_secs", td.reevalIntervalSecs()),
                t.u32("flap_threshold", td.flapThreshold()), t.u64("flap_window_secs", td.flapWindowSecs()),
                t.u64("flap_dampening_secs", td.flapDampeningSecs()));
        t.finish();

        final ConfigReader b = n.child("bloom");
        final double fpr = b.f64("max_inbound_fpr", NodeConfig.Bloom.DEFAULTS.maxInboundFpr(), 0, 1);
        if (fpr == 0 || fpr == 1) {
            // The reference documents the valid range as the open interval (0, 1).
            b.error("max_inbound_fpr", "expected a number in (0, 1), got " + fpr);
        }
        final NodeConfig.Bloom bloom = new NodeConfig.Bloom(
                b.u64("update_debounce_ms", NodeConfig.Bloom.DEFAULTS.updateDebounceMs()),
                fpr == 0 || fpr == 1 ? NodeConfig.Bloom.DEFAULTS.maxInboundFpr() : fpr);
        b.finish();

        final ConfigReader s = n.child("session");
        final NodeConfig.Session sd = NodeConfig.Session.DEFAULTS;
        final NodeConfig.Session session = new NodeConfig.Session(s.u8("default_ttl", sd.defaultTtl()),
                s.usize("pending_packets_per_dest", sd.pendingPacketsPerDest()),
                s.usize("pending_max_destinations", sd.pendingMaxDestinations()),
                s.u64("idle_timeout_secs", sd.idleTimeoutSecs()),
                s.u8("coords_warmup_packets", sd.coordsWarmupPackets()),
                s.u64("coords_response_interval_ms", sd.coordsResponseIntervalMs()));
        s.finish();

        final NodeConfig.Mmp mmp = mmp(n.child("mmp"));
        final NodeConfig.Mmp sessionMmp = mmp(n.child("session_mmp"));

        final ConfigReader e = n.child("ecn");
        final NodeConfig.Ecn ed = NodeConfig.Ecn.DEFAULTS;
        final NodeConfig.Ecn ecn = new NodeConfig.Ecn(e.bool("enabled", ed.enabled()),
                e.f64("loss_threshold", ed.lossThreshold(), 0, 1),
                e.f64("etx_threshold", ed.etxThreshold(), 0, Double.MAX_VALUE));
        e.finish();

        final ConfigReader rk = n.child("rekey");
        final NodeConfig.Rekey rkd = NodeConfig.Rekey.DEFAULTS;
        // Zero would rekey on every tick; master rejects such values and so do we.
        final NodeConfig.Rekey rekey = new NodeConfig.Rekey(rk.bool("enabled", rkd.enabled()),
                rk.integer("after_secs", rkd.afterSecs(), 1, Long.MAX_VALUE),
                rk.integer("after_messages", rkd.afterMessages(), 1, Long.MAX_VALUE));
        rk.finish();

        final ConfigReader bf = n.child("buffers");
        final NodeConfig.Buffers bd = NodeConfig.Buffers.DEFAULTS;
        final NodeConfig.Buffers buffers = new NodeConfig.Buffers(
                (int) bf.integer("packet_channel", bd.packetChannel(), 1, Integer.MAX_VALUE),
                (int) bf.integer("tun_channel", bd.tunChannel(), 1, Integer.MAX_VALUE),
                (int) bf.integer("dns_channel", bd.dnsChannel(), 1, Integer.MAX_VALUE));
        bf.finish();

        final ConfigReader ct = n.child("control");
        final boolean controlEnabled = ct.bool("enabled", true);
        final String socketPath = ct.optString("socket_path").orElseGet(
                () -> ControlSocketPaths.resolveDefault(host, ControlSocketPaths.CONTROL_SOCKET).toString());
        if (socketPath.isEmpty()) {
            ct.error("socket_path", "must not be empty");
        }
        ct.finish();

        final NodeConfig.Metrics metrics = MetricsSection.read(n.child("metrics"));
        final ConfigReader dpr = n.child("dataplane");
        final NodeConfig.Dataplane dataplane = new NodeConfig.Dataplane(
                dpr.enumValue("threading", NodeConfig.Threading.class, NodeConfig.Dataplane.DEFAULTS.threading()),
                dpr.bool("udp_gro", NodeConfig.Dataplane.DEFAULTS.udpGro()));
        dpr.finish();

        n.finish();
        return new Result(new NodeConfig(identity, leafOnly, logLevel, tick, baseRtt, heartbeat, linkDead, limits,
                rateLimit, retry, cache, lookup, tree, bloom, session, mmp, sessionMmp, ecn, rekey, buffers,
                new NodeConfig.Control(controlEnabled, socketPath), metrics, dataplane), nostr, lan);
    }

    /** Reads the lookup scalars of {@code node.lookup} or the legacy {@code node.discovery}; absent keys keep
     * {@code base}'s value. */
    private static NodeConfig.Lookup lookup(final ConfigReader d, final NodeConfig.Lookup base) {
        return new NodeConfig.Lookup(d.u8("ttl", base.ttl()),
                d.u64List("attempt_timeouts_secs", base.attemptTimeoutsSecs()),
                d.u64("recent_expiry_secs", base.recentExpirySecs()),
                d.u64("backoff_base_secs", base.backoffBaseSecs()), d.u64("backoff_max_secs", base.backoffMaxSecs()),
                d.u64("forward_min_interval_secs", base.forwardMinIntervalSecs()));
    }

    /** Checks a section this node does not implement and returns its typed values. */
    private static Map<String, Object> section(final ConfigReader parent, final String key, final String schema) {
        final ConfigReader r = parent.child(key);
        final Map<String, Object> values = Skim.read(r, schema);
        r.finish();
        return values;
    }

    private static NodeConfig.Identity identity(final ConfigReader r) {
        final Optional<String> nsec = r.optString("nsec");
        if (nsec.isPresent()) {
            try {
                NodeIdentity.parse(nsec.get().trim());
            } catch (final IdentityFormatException e) {
                // The message names the problem but never echoes the secret.
                r.error("nsec", "expected an nsec1... or 64 hex digit secret key (" + e.problem() + ")");
            }
        }
        final NodeConfig.Identity identity = new NodeConfig.Identity(nsec.map(String::trim),
                r.bool("persistent", false));
        r.finish();
        return identity;
    }

    private static NodeConfig.Mmp mmp(final ConfigReader r) {
        final NodeConfig.Mmp d = NodeConfig.Mmp.DEFAULTS;
        final NodeConfig.Mmp m = new NodeConfig.Mmp(r.enumValue("mode", NodeConfig.MmpMode.class, d.mode()),
                r.u64("log_interval_secs", d.logIntervalSecs()),
                (int) r.integer("owd_window_size", d.owdWindowSize(), 1, Integer.MAX_VALUE));
        r.finish();
        return m;
    }
}
