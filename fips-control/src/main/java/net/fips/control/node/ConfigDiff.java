package net.fips.control.node;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.NodeConfig;

/**
 * Which settings differ between the running configuration and a freshly loaded one, by config path
 * ({@code node.limits}, {@code transports.udp}, {@code peers}, ...). Everything but {@code node.log_level}, LAN
 * discovery ({@code node.discovery.lan}, which {@code LanService.apply} re-applies, and is not compared here) and
 * {@code node.discovery.nostr.advertise} while Nostr runs is applied only at start, so every difference this reports
 * needs a restart.
 */
final class ConfigDiff {
    /** {@code node.*} components a reload applies (or that are not settings): never reported. */
    private static final Set<String> RELOADABLE = Set.of("logLevel");

    private ConfigDiff() {
    }

    /**
     * @param running the configuration the node started with
     * @param fresh   the configuration just loaded
     * @return the paths of changed settings that only a restart applies, in config order
     */
    static List<String> restartNeeded(final FipsConfig running, final FipsConfig fresh) {
        final List<String> out = new ArrayList<>();
        for (final RecordComponent c : NodeConfig.class.getRecordComponents()) {
            if (!RELOADABLE.contains(c.getName())
                    && !Objects.equals(value(c, running.node()), value(c, fresh.node()))) {
                out.add("node." + snake(c.getName()));
            }
        }
        if (!running.tun().equals(fresh.tun())) {
            out.add("tun");
        }
        if (!running.dns().equals(fresh.dns())) {
            out.add("dns");
        }
        if (!running.udp().equals(fresh.udp())) {
            out.add("transports.udp");
        }
        // advertise is applied by a reload while Nostr runs (NostrDiscovery.applyAdvertise, ADR 0058)
        if (!running.nostr().equals(fresh.nostr().withAdvertise(running.nostr().advertise()))) {
            out.add("node.discovery.nostr");
        }
        if (!running.tcp().equals(fresh.tcp())) {
            out.add("transports.tcp");
        }
        if (!running.peers().equals(fresh.peers())) {
            out.add("peers");
        }
        return out;
    }

    private static Object value(final RecordComponent c, final NodeConfig n) {
        try {
            return c.getAccessor().invoke(n);
        } catch (final IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("NodeConfig." + c.getName(), e);
        }
    }

    /** {@code rateLimit} → {@code rate_limit}; acronyms are not used in the component names. */
    static String snake(final String camel) {
        final StringBuilder sb = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            final char ch = camel.charAt(i);
            if (Character.isUpperCase(ch)) {
                sb.append('_').append(Character.toLowerCase(ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }
}
