package net.fips.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code fipsctl show <what>}: the read-only queries. */
@Command(name = "show", description = "Show node information.", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "(status | peers | links | connections | transports | tree | bloom | cache"
                + " | routing | identity-cache | sessions | mmp | listening-sockets | lan)")
final class ShowCommand {

    @ParentCommand
    FipsCtl root;

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Node status overview.")
    int status() {
        return root.request(Query.STATUS);
    }

    @Command(name = "peers", mixinStandardHelpOptions = true, description = "Authenticated peers.")
    int peers() {
        return root.request(Query.PEERS);
    }

    @Command(name = "links", mixinStandardHelpOptions = true, description = "Active links.")
    int links() {
        return root.request(Query.LINKS);
    }

    @Command(name = "connections", mixinStandardHelpOptions = true, description = "Pending handshake connections.")
    int connections() {
        return root.request(Query.CONNECTIONS);
    }

    @Command(name = "transports", mixinStandardHelpOptions = true, description = "Transport instances.")
    int transports() {
        return root.request(Query.TRANSPORTS);
    }

    @Command(name = "tree", mixinStandardHelpOptions = true,
            description = "Spanning tree: root, parent, depth, coordinates, peers' positions.")
    int tree() {
        return root.request(Query.TREE);
    }

    @Command(name = "bloom", mixinStandardHelpOptions = true,
            description = "Bloom filters: own sequence and each peer's inbound filter.")
    int bloom() {
        return root.request(Query.BLOOM);
    }

    @Command(name = "cache", mixinStandardHelpOptions = true,
            description = "Coordinate cache: known destinations' tree coordinates.")
    int cache() {
        return root.request(Query.CACHE);
    }

    @Command(name = "identity-cache", mixinStandardHelpOptions = true,
            description = "Known node keys: peers, lookup targets (later DNS answers).")
    int identityCache() {
        return root.request(Query.IDENTITY_CACHE);
    }

    @Command(name = "sessions", mixinStandardHelpOptions = true,
            description = "End-to-end sessions: state, initiator, K bit, warm-up, traffic.")
    int sessions() {
        return root.request(Query.SESSIONS);
    }

    @Command(name = "mmp", mixinStandardHelpOptions = true,
            description = "Measurement metrics per peer (link layer) and per session (session layer).")
    int mmp() {
        return root.request(Query.MMP);
    }

    @Command(name = "listening-sockets", mixinStandardHelpOptions = true,
            description = "Sockets on this host that fips0 reaches (bound to :: or the fips0 address), with owner"
                    + " and firewall state.")
    int listeningSockets() {
        return root.request(Query.LISTENING_SOCKETS);
    }

    @Command(name = "lan", mixinStandardHelpOptions = true,
            description = "LAN discovery over mDNS: whether it runs, the peers it found, the dials it made.")
    int lan() {
        return root.request(Query.LAN);
    }

    @Command(name = "routing", mixinStandardHelpOptions = true,
            description = "Routing: pending lookups, forwarding, discovery and error counters.")
    int routing() {
        return root.request(Query.ROUTING);
    }

    @Command(name = "nostr", mixinStandardHelpOptions = true,
            description = "Nostr discovery: relays and their state, our advert and its last publish, adverts seen,"
                    + " dials from adverts and their outcomes.")
    int nostr() {
        return root.request(Query.NOSTR);
    }
}
