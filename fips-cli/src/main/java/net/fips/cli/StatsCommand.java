package net.fips.cli;

import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import net.fips.control.ctl.ControlJson;
import net.fips.control.metrics.NodeMetric;
import net.fips.control.metrics.PeerMetric;

/** {@code fipsctl stats ...}: the node's stats history and counter families. */
@Command(name = "stats", description = "Query the node's statistics: history series and counters.",
        mixinStandardHelpOptions = true, synopsisSubcommandLabel = "(list | metrics | peers | history)",
        subcommands = StatsCommand.History.class)
final class StatsCommand {

    @ParentCommand
    FipsCtl root;

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the history metrics.")
    int list() {
        return root.request(Query.STATS_LIST);
    }

    @Command(name = "metrics", mixinStandardHelpOptions = true,
            description = "Current counter values of every protocol metric family.")
    int metrics() {
        return root.request(Query.STATS_METRICS);
    }

    @Command(name = "peers", mixinStandardHelpOptions = true, description = "Peers tracked in the stats history.")
    int peers() {
        return root.request(Query.STATS_PEERS);
    }

    /** {@code fipsctl stats history <metric> [--peer P] [--window W] [--granularity G] [--plot]}. */
    @Command(name = "history", mixinStandardHelpOptions = true,
            description = "Fetch a time-series window for a metric.")
    static final class History implements Callable<Integer> {
        @ParentCommand
        StatsCommand stats;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "METRIC", description = "Metric name (see 'fipsctl stats list')."
                + " Node-level metrics need no --peer; per-peer metrics require it.")
        String metric;

        @Option(names = "--peer", paramLabel = "PEER",
                description = "Peer npub, hosts-file name or config alias, for per-peer metrics.")
        String peer;

        @Option(names = "--window", paramLabel = "W", defaultValue = "10m",
                description = "Window: <N>s, <N>m or <N>h (default: ${DEFAULT-VALUE}).")
        String window;

        @Option(names = "--granularity", paramLabel = "G", defaultValue = "1s",
                description = "Sample resolution: 1s (last hour) or 1m (last day) (default: ${DEFAULT-VALUE}).")
        String granularity;

        @Option(names = "--plot", description = "Print a summary and a Unicode block sparkline instead of the"
                + " JSON or table; a long series is averaged into as many columns as fit the width ($COLUMNS, else"
                + " the terminal's, else 80).")
        boolean plot;

        @Override
        public Integer call() {
            // The daemon answers a metric of the other scope with the reference's bare "unknown metric".
            if (peer == null && PeerMetric.byName(metric).isPresent() && NodeMetric.byName(metric).isEmpty()) {
                throw UsageError.of(spec, metric + " is a per-peer metric: add --peer PEER (an npub, hosts-file name"
                        + " or alias; 'fipsctl stats peers' lists the tracked peers)");
            }
            if (peer != null && NodeMetric.byName(metric).isPresent() && PeerMetric.byName(metric).isEmpty()) {
                throw UsageError.of(spec, metric + " is a node metric: leave out --peer");
            }
            final FipsCtl root = stats.root;
            final ObjectNode params = ControlJson.MAPPER.createObjectNode().put("metric", metric)
                    .put("window", window).put("granularity", granularity);
            if (peer != null) {
                // Not an npub and not in the hosts file: the daemon resolves its config aliases.
                final String npub = HostsFile.resolvePeer(root.hostsFile, peer).orElse(peer);
                params.put("peer", npub);
            }
            return plot ? root.request("show_stats_history", params, d -> StatsTables.plot(metric, d), true)
                    : root.request("show_stats_history", params, d -> StatsTables.history(metric, d));
        }
    }
}
