package net.fips.control.ctl;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Turns one request (the text of one line) into one response, calling a {@link ControlApi}. No I/O here: the
 * socket server and tests share it. Error texts are the reference's: {@code invalid request: ...},
 * {@code unknown command: X}, {@code missing params for X}, {@code missing '<field>' parameter}.
 */
public final class ControlDispatcher {

    /** Commands this dispatcher serves, in the order {@code fipsctl} lists them. */
    public static final List<String> COMMANDS = List.of("show_status", "show_peers", "show_links",
            "show_connections", "show_transports", "show_acl", "show_tree", "show_bloom", "show_cache", "show_routing",
            "show_identity_cache", "show_sessions", "show_mmp", "show_listening_sockets", "show_lan", "show_metrics",
            "show_stats_list", "show_stats_history", "show_stats_all_history", "show_stats_peers",
            "show_stats_history_all_peers", "show_nostr", "connect", "disconnect");

    // Trailing tokens after the object are an error in the reference (serde rejects trailing characters).
    private static final ObjectReader READER = ControlJson.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final ControlApi api;

    /**
     * @param api where the values come from
     */
    public ControlDispatcher(final ControlApi api) {
        this.api = Objects.requireNonNull(api, "api");
    }

    /**
     * Handles one request.
     *
     * @param requestText the request line without its newline; leading and trailing whitespace is ignored
     * @return the response envelope; never throws for bad input or a failing {@link ControlApi}
     */
    public ObjectNode dispatch(final String requestText) {
        final JsonNode request;
        try {
            request = READER.readTree(requestText.strip());
        } catch (final JsonProcessingException e) {
            return ControlJson.error("invalid request: " + e.getOriginalMessage());
        }
        if (request == null || request.isMissingNode()) {
            return ControlJson.error("invalid request: EOF while parsing a value");
        }
        if (!request.isObject()) {
            return ControlJson.error("invalid request: expected a JSON object, got " + request.getNodeType()
                    .name().toLowerCase(Locale.ROOT));
        }
        final JsonNode command = request.get("command");
        if (command == null) {
            return ControlJson.error("invalid request: missing field `command`");
        }
        if (!command.isTextual()) {
            return ControlJson.error("invalid request: invalid type for field `command`, expected a string");
        }
        final JsonNode params = request.get("params");
        try {
            return execute(command.asText(), params == null || params.isNull() ? null : params);
        } catch (final ControlException e) {
            return ControlJson.error(e.getMessage());
        } catch (final RuntimeException e) {
            // A bug in a ControlApi must cost one error response, not the connection or the server.
            return ControlJson.error("internal error: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private ObjectNode execute(final String command, final JsonNode params) throws ControlException {
        return switch (command) {
            case "show_status" -> ok(api::showStatus);
            case "show_peers" -> peers();
            case "show_links" -> list("links", api.showLinks());
            case "show_connections" -> list("connections", api.showConnections());
            case "show_transports" -> list("transports", api.showTransports());
            case "show_acl" -> ok(api::showAcl);
            case "show_tree" -> ok(api::showTree);
            case "show_bloom" -> ok(api::showBloom);
            case "show_cache" -> ok(api::showCache);
            case "show_routing" -> ok(api::showRouting);
            case "show_identity_cache" -> ok(api::showIdentityCache);
            case "show_sessions" -> ok(api::showSessions);
            case "show_mmp" -> ok(api::showMmp);
            case "show_nostr" -> ok(api::showNostr);
            case "show_listening_sockets" -> ControlJson.ok(api.showListeningSockets());
            case "show_lan" -> ControlJson.ok(api.showLan());
            case "show_metrics" -> ControlJson.ok(api.showMetrics());
            case "show_stats_list" -> ControlJson.ok(StatsRequests.list());
            case "show_stats_history" ->
                    ControlJson.ok(StatsRequests.history(resolvePeerParam(params), stats(command)));
            case "show_stats_all_history" ->
                    ControlJson.ok(StatsRequests.allHistory(resolvePeerParam(params), stats(command)));
            case "show_stats_peers" -> ControlJson.ok(StatsRequests.peers(stats(command)));
            case "show_stats_history_all_peers" ->
                    ControlJson.ok(StatsRequests.historyAllPeers(params, stats(command)));
            case "connect" -> {
                final JsonNode p = requireParams(command, params);
                final String npub = api.resolvePeer(requireString(p, "npub"));
                final String address = requireString(p, "address");
                final String transport = requireString(p, "transport");
                yield ControlJson.ok(ControlJson.MAPPER.valueToTree(api.connect(npub, address, transport)));
            }
            case "disconnect" -> {
                final JsonNode p = requireParams(command, params);
                final String npub = api.resolvePeer(requireString(p, "npub"));
                yield ControlJson.ok(ControlJson.MAPPER.valueToTree(api.disconnect(npub)));
            }
            default -> ControlJson.error("unknown command: " + command);
        };
    }

    /** A textual {@code peer} parameter named by alias becomes its npub; everything else passes unchanged. */
    private JsonNode resolvePeerParam(final JsonNode params) throws ControlException {
        if (params == null || !params.isObject() || !params.path("peer").isTextual()) {
            return params;
        }
        final String given = params.get("peer").asText();
        final String npub = api.resolvePeer(given);
        return npub.equals(given) ? params : ((ObjectNode) params).deepCopy().put("peer", npub);
    }

    private StatsView stats(final String command) throws ControlException {
        return api.stats().orElseThrow(() -> new ControlException("unknown command: " + command));
    }

    private static ObjectNode ok(final Supplier<?> value) {
        return ControlJson.ok(ControlJson.MAPPER.valueToTree(Objects.requireNonNull(value.get(), "snapshot")));
    }

    /** The reference's {@code peers}, then the configured peers that are down (our addition), when there are any. */
    private ObjectNode peers() {
        final ObjectNode response = list("peers", api.showPeers());
        final List<UnconnectedPeer> down = Objects.requireNonNull(api.showUnconnectedPeers(), "not_connected");
        if (!down.isEmpty()) {
            ((ObjectNode) response.get("data")).set("not_connected", ControlJson.MAPPER.valueToTree(down));
        }
        return response;
    }

    private static ObjectNode list(final String key, final List<?> rows) {
        final ObjectNode data = ControlJson.MAPPER.createObjectNode();
        data.set(key, ControlJson.MAPPER.valueToTree(Objects.requireNonNull(rows, key)));
        return ControlJson.ok(data);
    }

    private static JsonNode requireParams(final String command, final JsonNode params) throws ControlException {
        if (params == null) {
            throw new ControlException("missing params for " + command);
        }
        return params;
    }

    private static String requireString(final JsonNode params, final String field) throws ControlException {
        // A non-object params, a missing field and a non-string field are one case in the reference.
        final JsonNode v = params.get(field);
        if (v == null || !v.isTextual()) {
            throw new ControlException("missing '" + field + "' parameter");
        }
        return v.asText();
    }
}
