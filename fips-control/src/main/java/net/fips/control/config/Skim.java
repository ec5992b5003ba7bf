package net.fips.control.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.AbstractMap;

/**
 * Checks sections of the reference schema this node does not implement: every key must exist there and have the
 * right type, but the values are only returned as a plain map for cross-field checks (the warnings for setting
 * them come from {@link ReferenceKeys}). A schema is written as
 * {@code key:type} words; types are bool, u8, u16, u32, u64, usize, f64, str, str! (required), strs (list of
 * strings), u64s, and {@code one[a|b|c]} for a snake_case enum.
 */
final class Skim {
    static final String NOSTR = "enabled:bool advertise:bool advert_relays:strs dm_relays:strs stun_servers:strs"
            + " share_local_candidates:bool app:str signal_ttl_secs:u64 policy:one[disabled|configured_only|open]"
            + " open_discovery_max_pending:usize max_concurrent_incoming_offers:usize"
            + " max_concurrent_offers_per_npub:usize"
            + " advert_cache_max_entries:usize seen_sessions_max_entries:usize attempt_timeout_secs:u64"
            + " replay_window_secs:u64 punch_start_delay_ms:u64 punch_interval_ms:u64 punch_duration_ms:u64"
            + " advert_ttl_secs:u64 advert_refresh_secs:u64 startup_sweep_delay_secs:u64"
            + " startup_sweep_max_age_secs:u64 failure_streak_threshold:u32 extended_cooldown_secs:u64"
            + " warn_log_interval_secs:u64 failure_state_max_entries:usize protocol_mismatch_cooldown_secs:u64";
    /** [master] additions to {@code node.rate_limit}. */
    static final String RATE_LIMIT_MASTER = "session_setup_burst:u32 session_setup_rate:f64"
            + " established_handshake_burst:u32 established_handshake_rate:f64";
    /** [master] {@code node.native_api}. */
    static final String NATIVE_API = "enabled:bool socket_path:str pending_per_flow:usize backlog:usize"
            + " max_flows:usize debug_commands:bool";
    static final String TCP = "bind_addr:str mtu:u16 connect_timeout_ms:u64 nodelay:bool keepalive_secs:u64"
            + " recv_buf_size:usize send_buf_size:usize max_inbound_connections:usize advertise_on_nostr:bool"
            + " external_addr:str";
    static final String ETHERNET = "interface:str! ethertype:u16 mtu:u16 recv_buf_size:usize send_buf_size:usize"
            + " discovery:bool listen:bool announce:bool auto_connect:bool accept_connections:bool"
            + " beacon_interval_secs:u64";
    static final String NYM = "socks5_addr:str connect_timeout_ms:u64 mtu:u16 startup_timeout_secs:u64";
    static final String BLE = "adapter:str psm:u16 mtu:u16 max_connections:usize connect_timeout_ms:u64"
            + " advertise:bool scan:bool auto_connect:bool accept_connections:bool probe_cooldown_secs:u64";
    static final String GATEWAY = "enabled:bool pool:str! lan_interface:str! pool_grace_period:u64";
    static final String GATEWAY_DNS = "listen:str upstream:str ttl:u32";
    static final String GATEWAY_CONNTRACK = "tcp_established:u64 udp_timeout:u64 udp_assured:u64 icmp_timeout:u64";
    static final String GATEWAY_PORT_FORWARD = "listen_port:u16 proto:one[tcp|udp] target:str!";

    private Skim() {
    }

    /** @return the key names of a schema */
    static Set<String> keys(final String schema) {
        final Set<String> keys = new LinkedHashSet<>();
        for (final String word : schema.trim().split("\\s+")) {
            keys.add(word.substring(0, word.indexOf(':')));
        }
        return keys;
    }

    /**
     * Reads every key of the schema from the reader (does not call {@link ConfigReader#finish()}, so callers
     * can read extra nested keys first).
     *
     * @return present keys with their typed values
     */
    static Map<String, Object> read(final ConfigReader r, final String schema) {
        final Map<String, Object> out = new LinkedHashMap<>();
        for (final String word : schema.trim().split("\\s+")) {
            final int colon = word.indexOf(':');
            final String key = word.substring(0, colon);
            final String type = word.substring(colon + 1);
            if (type.endsWith("!")) {
                r.requiredString(key).ifPresent(v -> out.put(key, v));
                continue;
            }
            if (!r.has(key)) {
                continue;
            }
            final Object value = switch (type) {
                case "bool" -> r.bool(key, false);
                case "u8" -> r.u8(key, 0);
                case "u16" -> r.u16(key, 0);
                case "u32" -> r.u32(key, 0);
                case "u64" -> r.u64(key, 0);
                case "usize" -> r.usize(key, 0);
                case "f64" -> r.f64(key, 0, -Double.MAX_VALUE, Double.MAX_VALUE);
                case "str" -> r.string(key, "");
                case "strs" -> r.stringList(key, List.of());
                case "u64s" -> r.u64List(key, List.of());
                default -> oneOf(r, key, type);
            };
            out.put(key, value);
        }
        return out;
    }

    private static String oneOf(final ConfigReader r, final String key, final String type) {
        if (!type.startsWith("one[") || !type.endsWith("]")) {
            throw new IllegalStateException("bad schema type " + type);
        }
        final List<String> allowed = List.of(type.substring(4, type.length() - 1).split("\\|"));
        final Object v = r.raw(key);
        if (v instanceof String s && allowed.contains(s)) {
            return s;
        }
        r.error(key, "expected one of " + String.join(", ", allowed) + ", got " + ConfigReader.describe(v));
        return allowed.get(0);
    }

    /**
     * Splits a {@code transports.<type>} value into instances: a single block (its keys sit directly under it)
     * or a map of instance name to block. Any schema key among the keys means "single", so a typo inside a
     * single block is reported as an unknown key with a suggestion rather than as a malformed instance. A key that
     * is not a string (YAML's {@code ~: ...}, a bare anchor {@code &a: ...}, a number) makes it a single block too,
     * so {@link ConfigReader#of} reports "keys must be strings" (an instance name must be a string, and the schema
     * sets cannot be asked about a null key).
     *
     * @return (instance name or null, raw block) pairs
     */
    static List<Map.Entry<String, Object>> instances(final ConfigReader transports, final String type,
            final Set<String> fieldNames) {
        final Object raw = transports.raw(type);
        final List<Map.Entry<String, Object>> out = new ArrayList<>();
        if (raw instanceof Map<?, ?> map && !map.isEmpty()) {
            boolean single = false;
            boolean allBlocks = true;
            for (final Map.Entry<?, ?> e : map.entrySet()) {
                single |= !(e.getKey() instanceof String k) || fieldNames.contains(k);
                allBlocks &= e.getValue() == null || e.getValue() instanceof Map<?, ?>;
            }
            if (!single && allBlocks) {
                for (final Map.Entry<?, ?> e : map.entrySet()) {
                    out.add(new AbstractMap.SimpleImmutableEntry<>(String.valueOf(e.getKey()),
                            e.getValue()));
                }
                return out;
            }
        }
        out.add(new AbstractMap.SimpleImmutableEntry<>(null, raw));
        return out;
    }
}
