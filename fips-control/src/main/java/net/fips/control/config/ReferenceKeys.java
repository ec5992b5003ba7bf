package net.fips.control.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one table of keys the reference knows (v0.4.1 or master, operator.md §0/§1) that this node parses and
 * type-checks but does not act on. A config that sets one of them loads, with exactly one warning per key that
 * names it; a key neither reference knows is an error ({@link ConfigReader#finish()}).
 *
 * <p>Paths are schema paths: dotted, with a named transport instance folded into its type
 * ({@code transports.udp.public} covers {@code transports.udp.lan.public}) and every list element written
 * {@code []} ({@code peers[].via_nostr}). An entry ending in {@code .*} covers every key below it, at any depth
 * except inside list elements (the list itself is the one key that warns).
 *
 * <p>When a feature is implemented, its line goes: nothing else has to change.
 */
final class ReferenceKeys {
    /** Which reference line knows a key: the spelling an operator may have copied. */
    enum Line {
        /** The v0.4.1 tag (and master). */
        V041("v0.4.1"),
        /** Only master after v0.4.1. */
        MASTER("master");

        private final String label;

        Line(final String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    private static final Map<String, Line> EXACT = new LinkedHashMap<>();
    private static final Map<String, Line> SECTIONS = new LinkedHashMap<>();

    static {
        // node.* general and tuning (§1.3-§1.10)
        v041("node.base_rtt_ms");
        master("node.drain_timeout_secs");
        v041("node.limits.max_links");
        master("node.rate_limit.session_setup_burst");
        master("node.rate_limit.session_setup_rate");
        master("node.rate_limit.established_handshake_burst");
        master("node.rate_limit.established_handshake_rate");
        v041("node.mmp.log_interval_secs");
        v041("node.mmp.owd_window_size");
        v041("node.session_mmp.log_interval_secs");
        v041("node.session_mmp.owd_window_size");
        v041("node.ecn.*");
        // node.buffers.packet_channel sizes the packet pool (NodeSettings.poolSlots)
        v041("node.buffers.tun_channel");
        v041("node.buffers.dns_channel");
        master("node.native_api.*");
        // Nostr rendezvous (§1.7): every key of node.discovery.nostr / node.rendezvous.nostr acts (adverts, relays,
        // signals, NAT traversal with local candidates, the protocol-mismatch cooldown, the master per-npub offer
        // limit, the open-discovery startup sweep). mDNS (node.discovery.lan, node.rendezvous.lan) runs.
        // transports (§1.12-§1.17)
        v041("transports.udp.accept_connections");
        // transports.ble: the node runs the BLE transport; only dialling discovered peers is not implemented
        v041("transports.ble.auto_connect");
        // of the gateway, which only fips-gateway reads (§1.19), the conntrack timeouts the reference parses and
        // never applies
        v041("gateway.conntrack.*");
    }

    private ReferenceKeys() {
    }

    private static void v041(final String path) {
        add(path, Line.V041);
    }

    private static void master(final String path) {
        add(path, Line.MASTER);
    }

    private static void add(final String path, final Line line) {
        if (path.endsWith(".*")) {
            SECTIONS.put(path.substring(0, path.length() - 1), line);
        } else {
            EXACT.put(path, line);
        }
    }

    /**
     * @param schemaPath a key's schema path
     * @return the reference line that knows the key when this node does not implement it, else null
     */
    static Line unimplemented(final String schemaPath) {
        final Line exact = EXACT.get(schemaPath);
        if (exact != null) {
            return exact;
        }
        for (final Map.Entry<String, Line> s : SECTIONS.entrySet()) {
            if (schemaPath.startsWith(s.getKey()) && schemaPath.indexOf("[]", s.getKey().length()) < 0) {
                return s.getValue();
            }
        }
        return null;
    }

    /** @return the warning text for a key of the table */
    static String warning(final Line line) {
        return "accepted but not implemented (a reference " + line.label() + " key); ignored";
    }

    /** @return every entry, sections written with their {@code .*}, for tests and documentation */
    static Map<String, Line> entries() {
        final Map<String, Line> all = new LinkedHashMap<>(EXACT);
        SECTIONS.forEach((k, v) -> all.put(k + "*", v));
        return all;
    }
}
