package net.fips.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import net.fips.control.ctl.ControlJson;

/** {@code fipsctl disconnect <peer>}. */
@Command(name = "disconnect", mixinStandardHelpOptions = true,
        description = "Disconnect a peer and cancel its pending reconnect.")
final class DisconnectCommand implements Callable<Integer> {

    @ParentCommand
    FipsCtl root;

    @Parameters(index = "0", paramLabel = "PEER",
            description = "Peer npub, a hostname from the hosts file, or a peer alias from the daemon's config.")
    String peer;

    @Override
    public Integer call() {
        // Not an npub and not in the hosts file: the daemon resolves its config aliases.
        final String npub = HostsFile.resolvePeer(root.hostsFile, peer).orElse(peer);
        return root.request("disconnect", ControlJson.MAPPER.createObjectNode().put("npub", npub),
                TableView::disconnect);
    }
}
