package net.fips.control.config;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code node.discovery.lan.*} (v0.4.1) or {@code node.rendezvous.lan.*} (master): LAN discovery over mDNS
 * (discovery-gateway.md §3.4). Which spelling wins is decided in {@code NodeSection} (the v0.4.1 block when present,
 * as for Nostr). The values are checked at load, where the reference only fails to start the discovery (ADR 0042).
 *
 * @param enabled     {@code enabled} (false)
 * @param serviceType {@code service_type} ({@value #DEFAULT_SERVICE_TYPE})
 * @param scope       {@code scope}, trimmed; empty when unset or blank (the node then derives the scope from the
 *                    Nostr {@code app}, see {@code net.fips.control.lan.LanAdvert#scope})
 */
public record LanConfig(boolean enabled, String serviceType, Optional<String> scope) {

    /** The reference's default service type. */
    public static final String DEFAULT_SERVICE_TYPE = "_fips._udp.local.";
    /** Every default. */
    public static final LanConfig DEFAULTS = new LanConfig(false, DEFAULT_SERVICE_TYPE, Optional.empty());
    /** Bytes of a DNS label at most (RFC 1035 §2.3.4). */
    static final int MAX_LABEL_BYTES = 63;
    /** Bytes of one TXT string at most (RFC 6763 §6.1), here {@code scope=<value>}. */
    static final int MAX_TXT_STRING_BYTES = 255;

    /** Checks nullness. */
    public LanConfig {
        Objects.requireNonNull(serviceType, "serviceType");
        Objects.requireNonNull(scope, "scope");
    }

    /**
     * Reads one {@code lan} block and finishes its reader; problems are recorded at the keys' paths.
     *
     * @param r the block's reader (empty when the block is absent)
     * @return the settings, defaults for absent or invalid keys
     */
    static LanConfig read(final ConfigReader r) {
        final boolean enabled = r.bool("enabled", DEFAULTS.enabled());
        String serviceType = r.string("service_type", DEFAULTS.serviceType());
        final String problem = serviceTypeProblem(serviceType);
        if (problem != null) {
            r.error("service_type", problem);
            serviceType = DEFAULTS.serviceType();
        }
        Optional<String> scope = r.optString("scope").map(String::trim).filter(s -> !s.isEmpty());
        if (scope.isPresent()
                && ("scope=" + scope.get()).getBytes(StandardCharsets.UTF_8).length > MAX_TXT_STRING_BYTES) {
            r.error("scope", "too long for a TXT entry: \"scope=<value>\" must fit in " + MAX_TXT_STRING_BYTES
                    + " bytes (UTF-8)");
            scope = Optional.empty();
        }
        r.finish();
        return new LanConfig(enabled, serviceType, scope);
    }

    /**
     * @param serviceType a configured service type
     * @return why it cannot be used, or null: it must be {@code _<name>._udp.local.} or {@code _<name>._tcp.local.}
     *         with a service name label of 1 to 63 bytes (the reference requires the suffix)
     */
    static String serviceTypeProblem(final String serviceType) {
        final String suffix;
        if (serviceType.endsWith("._udp.local.")) {
            suffix = "._udp.local.";
        } else if (serviceType.endsWith("._tcp.local.")) {
            suffix = "._tcp.local.";
        } else {
            return "expected a service type ending in ._udp.local. or ._tcp.local. (e.g. " + DEFAULT_SERVICE_TYPE
                    + "), got \"" + serviceType + "\"";
        }
        final String name = serviceType.substring(0, serviceType.length() - suffix.length());
        if (!name.startsWith("_") || name.length() < 2 || name.indexOf('.') >= 0
                || name.getBytes(StandardCharsets.UTF_8).length > MAX_LABEL_BYTES) {
            return "expected one service label \"_<name>\" of at most " + MAX_LABEL_BYTES + " bytes before "
                    + suffix + " (e.g. " + DEFAULT_SERVICE_TYPE + "), got \"" + serviceType + "\"";
        }
        return null;
    }
}
