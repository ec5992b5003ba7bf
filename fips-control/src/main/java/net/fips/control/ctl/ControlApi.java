package net.fips.control.ctl;

import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the control socket asks of the node: one method per command {@link ControlSocketServer} serves. The
 * server does the framing, the request validation and the JSON; an implementation only supplies values.
 *
 * <p><b>Threading contract.</b> Methods are called on the server's per-connection virtual threads, several at a
 * time, never on the node's control thread. They must not block on that thread: the {@code show_*} methods
 * return the latest snapshot the node published (for example from an {@code AtomicReference} swapped on each
 * tick, so answers may be up to one tick old, as in the reference), and {@link #connect} / {@link #disconnect}
 * validate, enqueue the request for the control thread and return without waiting for the handshake or the
 * teardown. A slow implementation only delays its own client, but it keeps a connection slot busy.
 *
 * <p>Snapshots are immutable records; the server wraps lists in their reference key ({@code peers},
 * {@code links}, {@code connections}, {@code transports}).
 */
public interface ControlApi {

    /** @return {@code show_status} data */
    StatusSnapshot showStatus();

    /** @return {@code show_peers} rows, in the order to display */
    List<PeerSnapshot> showPeers();

    /**
     * @return configured peers that are not in {@link #showPeers()}, with their state ({@code show_peers}'s
     *         {@code not_connected}, left out when empty)
     */
    default List<UnconnectedPeer> showUnconnectedPeers() {
        return List.of();
    }

    /** @return {@code show_links} rows */
    List<LinkSnapshot> showLinks();

    /** @return {@code show_connections} rows (handshakes in flight) */
    List<ConnectionSnapshot> showConnections();

    /** @return {@code show_transports} rows */
    List<TransportSnapshot> showTransports();

    /** @return {@code show_acl} data */
    AclSnapshot showAcl();

    /** @return {@code show_tree} data: the spanning tree as this node sees it (JSON in the reference's shape) */
    JsonNode showTree();

    /** @return {@code show_bloom} data: own and peer bloom filters */
    JsonNode showBloom();

    /** @return {@code show_cache} data: the coordinate cache */
    JsonNode showCache();

    /** @return {@code show_routing} data: discovery, forwarding and error-signal state */
    JsonNode showRouting();

    /** @return {@code show_identity_cache} data: the node keys this node knows (peers, lookups, later DNS) */
    JsonNode showIdentityCache();

    /**
     * @return {@code show_nostr} data (our command; the reference has none, ADR 0043): relays and their state, our
     *         advert and its last publish, the adverts seen, the dials from adverts and their outcomes, counters
     */
    default JsonNode showNostr() {
        throw new UnsupportedOperationException("show_nostr");
    }

    /** @return {@code show_sessions} data ({@code sessions[]}) */
    default JsonNode showSessions() {
        throw new UnsupportedOperationException("show_sessions");
    }

    /** @return {@code show_mmp} data ({@code peers[]}, {@code sessions[]}) */
    default JsonNode showMmp() {
        throw new UnsupportedOperationException("show_mmp");
    }

    /**
     * {@code show_metrics}: the counter families {@code forwarding, discovery, tree, bloom, congestion, errors},
     * each an object of counters (null where not measured).
     *
     * @return the data
     * @throws ControlException when the node keeps no such counters
     */
    default JsonNode showMetrics() throws ControlException {
        throw new ControlException("unknown command: show_metrics");
    }

    /**
     * Names a peer for {@code connect}, {@code disconnect} and the {@code peer} parameter of
     * {@code show_stats_history} / {@code show_stats_all_history}: an npub is used as given (and checked by the
     * command itself); any other text is looked up among the node's config aliases ({@code peers[].alias}),
     * which only the daemon knows. This is an extension: the reference daemon takes npubs only, and its client
     * resolves hosts-file names before sending.
     *
     * @param name what the client sent
     * @return the npub to use
     * @throws ControlException {@code unknown peer '<name>': ...} when the name is neither an npub nor an alias
     */
    default String resolvePeer(final String name) throws ControlException {
        if (name.startsWith("npub1")) {
            return name;
        }
        throw ControlException.unknownPeerName(name);
    }

    /**
     * {@code show_lan}: LAN discovery over mDNS, whether it runs and the peers it found (an extension of this node,
     * ADR 0042).
     *
     * @return {@code enabled, running, problem, service_type, instance_name, scope, port, interfaces, counters,
     *         peers[]}
     * @throws ControlException when this node does not serve the command
     */
    default JsonNode showLan() throws ControlException {
        throw new ControlException("unknown command: show_lan");
    }

    /**
     * {@code show_listening_sockets}: the host's sockets fips0 can reach ({@link ListeningSockets}).
     *
     * @return {@code fips0_addr, firewall_active, sockets[]}
     * @throws ControlException when this node does not serve the command
     */
    default JsonNode showListeningSockets() throws ControlException {
        throw new ControlException("unknown command: show_listening_sockets");
    }

    /**
     * The stats history the {@code show_stats_*} commands read ({@link StatsRequests}).
     *
     * @return the view, or empty when this node keeps no history
     */
    default Optional<StatsView> stats() {
        return Optional.empty();
    }

    /**
     * Starts an ephemeral dial (not written to config, no auto-reconnect). The server has already checked that
     * all three parameters are present strings.
     *
     * @param npub      peer npub as given by the client
     * @param address   transport address as given
     * @param transport transport type as given
     * @return the echo the client receives
     * @throws ControlException with the message the client should see (for example an invalid npub, an unknown
     *                          transport or an ACL refusal)
     */
    ConnectResult connect(String npub, String address, String transport) throws ControlException;

    /**
     * Disconnects an authenticated peer and cancels its pending retry.
     *
     * @param npub peer npub as given by the client
     * @return the result the client receives
     * @throws ControlException {@code invalid npub '<npub>': <reason>} or {@code peer not found: <npub>}, as the
     *                          reference words them (see {@link ControlException#peerNotFound})
     */
    DisconnectResult disconnect(String npub) throws ControlException;
}
