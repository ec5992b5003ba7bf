package net.fips.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code fipsctl show <what>}: the read-only queries. */
@Command(name = "show", description = "Show node information.", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "(status | peers | links | connections | transports | tree | bloom | cache"
                + " | routing | identity-cache | sessions | mmp | listening-sockets)")
final class ShowCommand {

    @ParentCommand
    FipsCtl root;

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Node status overview.")
    int status() {
        return root.request("show_status", null, TableView::status);
    }

    @Command(name = "peers", mixinStandardHelpOptions = true, description = "Authenticated peers.")
    int peers() {
        return root.request("show_peers", null, TableView::peers);
    }

    @Command(name = "links", mixinStandardHelpOptions = true, description = "Active links.")
    int links() {
        return root.request("show_links", null, TableView::links);
    }

    @Command(name = "connections", mixinStandardHelpOptions = true, description = "Pending handshake connections.")
    int connections() {
        return root.request("show_connections", null, TableView::connections);
    }

    @Command(name = "transports", mixinStandardHelpOptions = true, description = "Transport instances.")
    int transports() {
        return root.request("show_transports", null, TableView::transports);
    }

    @Command(name = "tree", mixinStandardHelpOptions = true, description = "Spanning tree: root, parent, depth, coordinates, peers' positions.")
    int tree() {
        return root.request("show_tree", null, TableView::tree);
    }

    @Command(name = "bloom", mixinStandardHelpOptions = true, description = "Bloom filters: own sequence and each peer's inbound filter.")
    int bloom() {
        return root.request("show_bloom", null, TableView::bloom);
    }

    @Command(name = "cache", mixinStandardHelpOptions = true, description = "Coordinate cache: known destinations' tree coordinates.")
    int cache() {
        return root.request("show_cache", null, TableView::cache);
    }

    @Command(name = "identity-cache", mixinStandardHelpOptions = true,
            description = "Known node keys: peers, lookup targets (later DNS answers).")
    int identityCache() {
        return root.request("show_identity_cache", null, TableView::identityCache);
    }

    @Command(name = "sessions", mixinStandardHelpOptions = true,
            description = "End-to-end sessions: state, initiator, K bit, warm-up, traffic.")
    int sessions() {
        return root.request("show_sessions", null, TableView::sessions);
    }

    @Command(name = "mmp", mixinStandardHelpOptions = true,
            description = "Measurement metrics per peer (link layer) and per session (session layer).")
    int mmp() {
        return root.request("show_mmp", null, TableView::mmp);
    }

    @Command(name = "listening-sockets", mixinStandardHelpOptions = true,
            description = "Sockets on this host that fips0 reaches (bound to :: or the fips0 address), with owner"
                    + " and firewall state.")
    int listeningSockets() {
        return root.request("show_listening_sockets", null, TableView::listeningSockets);
    }

    @Command(name = "routing", mixinStandardHelpOptions = true, description = "Routing: pending lookups, forwarding, discovery and error counters.")
    int routing() {
        return root.request("show_routing", null, TableView::routing);
    }
}
