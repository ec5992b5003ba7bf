package net.fips.cli;

import java.util.Optional;
import java.util.concurrent.Callable;

import net.fips.control.ctl.ControlJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code fipsctl disconnect <peer>}. */
@Command(name = "disconnect", mixinStandardHelpOptions = true,
        description = "Disconnect a peer and cancel its pending reconnect.")
final class DisconnectCommand implements Callable<Integer> {

    @ParentCommand
    FipsCtl root;

    @Parameters(index = "0", paramLabel = "PEER", description = "Peer npub, or a hostname from the hosts file.")
    String peer;

    @Override
    public Integer call() {
        final Optional<String> npub = HostsFile.resolvePeer(root.hostsFile, peer);
        if (npub.isEmpty()) {
            return root.fail(HostsFile.unknownHostMessage(root.hostsFile, peer));
        }
        return root.request("disconnect", ControlJson.MAPPER.createObjectNode().put("npub", npub.get()),
                TableView::disconnect);
    }
}
