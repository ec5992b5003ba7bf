package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The content of a kind-37195 advert (discovery-gateway.md §1.4): compact JSON with keys in the reference's order,
 * {@code signalRelays} and {@code stunServers} omitted when null. Decoding follows serde's rules (unknown keys
 * ignored); an endpoint whose transport is not {@code udp}, {@code tcp} or {@code tor} is skipped instead of
 * failing the whole advert (ADR 0037). Validity ({@code identifier}, {@code version}, endpoint filter) is not
 * checked here.
 *
 * @param identifier   must be {@link #IDENTIFIER} to be valid
 * @param version      must be {@link #VERSION} to be valid
 * @param endpoints    the endpoints, in order
 * @param signalRelays the publisher's {@code dm_relays} for a {@code nat} endpoint, else null (omitted)
 * @param stunServers  the publisher's STUN servers for a {@code nat} endpoint, else null (omitted)
 */
public record OverlayAdvert(String identifier, long version, List<Endpoint> endpoints, List<String> signalRelays,
        List<String> stunServers) {
    /** The advert kind (parameterized replaceable). */
    public static final int KIND = 37195;
    /** The advert identifier, also its {@code d} tag. */
    public static final String IDENTIFIER = "fips-overlay-v1";
    /** The advert version. */
    public static final int VERSION = 1;
    /** The value of the {@code version} tag. */
    public static final String PROTOCOL_VERSION_TAG = "1";

    /**
     * One advertised endpoint.
     *
     * @param transport {@code udp}, {@code tcp} or {@code tor} (lowercase)
     * @param addr      {@code ip:port}, {@code host:port}, {@code name.onion:port} or {@code nat}
     */
    public record Endpoint(String transport, String addr) {
        /** The transports the reference's enum knows. */
        public static final List<String> TRANSPORTS = List.of("udp", "tcp", "tor");

        /** Checks the transport name. */
        public Endpoint {
            Objects.requireNonNull(addr, "addr");
            if (!TRANSPORTS.contains(transport)) {
                throw new IllegalArgumentException("transport must be udp, tcp or tor, got " + transport);
            }
        }

        /** @return whether this is the UDP {@code nat} token (any case) */
        public boolean isUdpNat() {
            return "udp".equals(transport) && "nat".equals(addr.toLowerCase(Locale.ROOT));
        }
    }

    /** Copies the lists. */
    public OverlayAdvert {
        Objects.requireNonNull(identifier, "identifier");
        endpoints = List.copyOf(endpoints);
        signalRelays = signalRelays == null ? null : List.copyOf(signalRelays);
        stunServers = stunServers == null ? null : List.copyOf(stunServers);
    }

    /** @return whether some endpoint is the UDP {@code nat} token */
    public boolean hasUdpNatEndpoint() {
        return endpoints.stream().anyMatch(Endpoint::isUdpNat);
    }

    /** @return the compact JSON the reference writes */
    public String toJson() {
        final StringBuilder eps = new StringBuilder("[");
        for (int i = 0; i < endpoints.size(); i++) {
            if (i > 0) {
                eps.append(',');
            }
            eps.append(Json.object().str("transport", endpoints.get(i).transport())
                    .str("addr", endpoints.get(i).addr()).close());
        }
        final Json j = Json.object().str("identifier", identifier).unsigned("version", version)
                .raw("endpoints", eps.append(']').toString());
        if (signalRelays != null) {
            j.strings("signalRelays", signalRelays);
        }
        if (stunServers != null) {
            j.strings("stunServers", stunServers);
        }
        return j.close();
    }

    /**
     * Decodes advert content.
     *
     * @param json the content
     * @return the advert
     * @throws NostrFormatException when a required member is missing or of the wrong type
     */
    public static OverlayAdvert parse(final String json) throws NostrFormatException {
        final JsonNode n = Fields.object(json, "advert");
        final String identifier = Fields.str(n, "identifier");
        final long version = Fields.unsigned(n, "version", 0xffff_ffffL);
        final JsonNode eps = Fields.required(n, "endpoints");
        if (!eps.isArray()) {
            throw Fields.malformed("endpoints must be an array");
        }
        final List<Endpoint> endpoints = new ArrayList<>(eps.size());
        for (final JsonNode e : eps) {
            if (!e.isObject()) {
                throw Fields.malformed("each endpoint must be an object");
            }
            final String transport = Fields.str(e, "transport");
            final String addr = Fields.str(e, "addr");
            if (Endpoint.TRANSPORTS.contains(transport)) {
                endpoints.add(new Endpoint(transport, addr));
            }
        }
        return new OverlayAdvert(identifier, version, endpoints, Fields.optStrings(n, "signalRelays"),
                Fields.optStrings(n, "stunServers"));
    }
}
