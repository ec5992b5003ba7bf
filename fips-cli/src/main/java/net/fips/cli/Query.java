package net.fips.cli;

import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parameterless fipsctl queries: the words that name one on the command line, the control command it sends and
 * the table it renders. The picocli commands ({@link ShowCommand}, {@link AclCommand}, {@link StatsCommand}) and the
 * launch path that skips picocli ({@link QuickCtl}) both read this one list, so they cannot drift apart.
 */
enum Query {
    STATUS("show", "status", "show_status", TableView::status),
    PEERS("show", "peers", "show_peers", TableView::peers),
    LINKS("show", "links", "show_links", TableView::links),
    CONNECTIONS("show", "connections", "show_connections", TableView::connections),
    TRANSPORTS("show", "transports", "show_transports", TableView::transports),
    TREE("show", "tree", "show_tree", TableView::tree),
    BLOOM("show", "bloom", "show_bloom", TableView::bloom),
    CACHE("show", "cache", "show_cache", TableView::cache),
    IDENTITY_CACHE("show", "identity-cache", "show_identity_cache", TableView::identityCache),
    SESSIONS("show", "sessions", "show_sessions", TableView::sessions),
    MMP("show", "mmp", "show_mmp", TableView::mmp),
    LISTENING_SOCKETS("show", "listening-sockets", "show_listening_sockets", TableView::listeningSockets),
    LAN("show", "lan", "show_lan", TableView::lan),
    ROUTING("show", "routing", "show_routing", TableView::routing),
    NOSTR("show", "nostr", "show_nostr", TableView::nostr),
    ACL("acl", "show", "show_acl", TableView::acl),
    STATS_LIST("stats", "list", "show_stats_list", StatsTables::list),
    STATS_METRICS("stats", "metrics", "show_metrics", StatsTables::metrics),
    STATS_PEERS("stats", "peers", "show_stats_peers", StatsTables::peers);

    /** The first command-line word ({@code show}, {@code acl}, {@code stats}). */
    final String group;
    /** The second word. */
    final String name;
    /** The control-socket command sent, without parameters. */
    final String command;
    /** The readable rendering of the response's {@code data}. */
    final Function<JsonNode, String> table;

    Query(final String group, final String name, final String command, final Function<JsonNode, String> table) {
        this.group = group;
        this.name = name;
        this.command = command;
        this.table = table;
    }

    /** @return the query named by the two words, or null */
    static Query of(final String group, final String name) {
        for (final Query q : values()) {
            if (q.group.equals(group) && q.name.equals(name)) {
                return q;
            }
        }
        return null;
    }
}
