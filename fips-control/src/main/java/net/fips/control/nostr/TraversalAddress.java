package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An address in an offer or answer (discovery-gateway.md §1.4): {@code {"protocol":"udp","ip":...,"port":...}}.
 *
 * @param protocol {@code udp} in everything the reference sends
 * @param ip       textual IP (IPv6 compressed lowercase)
 * @param port     0 to 65535
 */
public record TraversalAddress(String protocol, String ip, int port) {
    /** Checks the fields. */
    public TraversalAddress {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(ip, "ip");
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
    }

    String toJson() {
        return Json.object().str("protocol", protocol).str("ip", ip).num("port", port).close();
    }

    static String toJson(final TraversalAddress a) {
        return a == null ? null : a.toJson();
    }

    static String listJson(final List<TraversalAddress> list) {
        final StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(list.get(i).toJson());
        }
        return sb.append(']').toString();
    }

    static TraversalAddress read(final JsonNode n, final String name) throws NostrFormatException {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw Fields.malformed(name + " must be an address object or null");
        }
        return new TraversalAddress(Fields.str(n, "protocol"), Fields.str(n, "ip"),
                (int) Fields.unsigned(n, "port", 0xffff));
    }

    static List<TraversalAddress> readList(final JsonNode n, final String name) throws NostrFormatException {
        final JsonNode v = Fields.required(n, name);
        if (!v.isArray()) {
            throw Fields.malformed(name + " must be an array");
        }
        final List<TraversalAddress> out = new ArrayList<>(v.size());
        for (final JsonNode e : v) {
            if (e.isNull()) {
                throw Fields.malformed(name + " must not hold null");
            }
            out.add(read(e, name));
        }
        return out;
    }
}
