package net.fips.cli;

import java.net.Inet6Address;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import net.fips.control.ctl.ControlJson;

/**
 * {@code fipsctl connect <peer> <address> [<transport>]}: an ephemeral dial. The reference takes the transport as
 * a third positional argument; {@code --transport} is accepted as well, and udp is the default.
 */
@Command(name = "connect", mixinStandardHelpOptions = true,
        description = {"Connect to a peer (ephemeral: not saved to config, no auto-reconnect).",
            "Success means the dial started; check 'fipsctl show peers' for the result."})
final class ConnectCommand implements Callable<Integer> {

    @ParentCommand
    FipsCtl root;

    @Parameters(index = "0", paramLabel = "PEER",
            description = "Peer npub, a hostname from the hosts file, or a peer alias from the daemon's config.")
    String peer;

    @Parameters(index = "1", paramLabel = "ADDRESS", description = "Transport address, e.g. 192.0.2.1:2121.")
    String address;

    @Parameters(index = "2", arity = "0..1", paramLabel = "TRANSPORT",
            description = "Transport type: udp, tcp, ethernet, tor, nym, ble (default udp).")
    String transportPositional;

    @Option(names = {"-t", "--transport"}, paramLabel = "TYPE", description = "Same as the TRANSPORT argument.")
    String transportOption;

    @Override
    public Integer call() {
        if (transportPositional != null && transportOption != null
                && !transportPositional.equals(transportOption)) {
            return root.fail("transport given twice: '" + transportPositional + "' and '" + transportOption + "'");
        }
        final String transport = transportPositional != null ? transportPositional
                : transportOption != null ? transportOption : "udp";
        if (isMeshEndpointTransport(transport) && isMeshAddress(address)) {
            return root.fail("'" + address + "' is a FIPS mesh address (fd00::/8), not a reachable " + transport
                    + " endpoint.\nProvide the peer's routable IP/hostname and port (e.g., '192.0.2.1:2121' or "
                    + "'peer.example.com:2121').");
        }
        // Not an npub and not in the hosts file: the daemon resolves its config aliases.
        final String npub = HostsFile.resolvePeer(root.hostsFile, peer).orElse(peer);
        final ObjectNode params = ControlJson.MAPPER.createObjectNode()
                .put("npub", npub)
                .put("address", address)
                .put("transport", transport);
        return root.request("connect", params, TableView::connect);
    }

    private static boolean isMeshEndpointTransport(final String transport) {
        return transport.equals("udp") || transport.equals("tcp") || transport.equals("ethernet");
    }

    /**
     * Whether {@code address} names an fd00::/8 address, bare, bracketed with a port, or bare with a port. Users
     * pass the peer's mesh address by mistake; the daemon cannot dial it over a transport.
     */
    static boolean isMeshAddress(final String address) {
        if (isUla(address)) {
            return true;
        }
        if (address.startsWith("[")) {
            final int end = address.indexOf(']');
            if (end > 0 && isUla(address.substring(1, end))) {
                return true;
            }
        }
        final int colon = address.lastIndexOf(':');
        if (colon > 0 && colon < address.length() - 1 && address.substring(colon + 1).chars()
                .allMatch(c -> c >= '0' && c <= '9')) {
            String host = address.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return isUla(host);
        }
        return false;
    }

    private static boolean isUla(final String text) {
        // ofLiteral never consults DNS, unlike InetAddress.getByName.
        if (text.indexOf(':') < 0) {
            return false;
        }
        try {
            return (Inet6Address.ofLiteral(text).getAddress()[0] & 0xff) == 0xfd;
        } catch (final IllegalArgumentException e) {
            return false;
        }
    }
}
