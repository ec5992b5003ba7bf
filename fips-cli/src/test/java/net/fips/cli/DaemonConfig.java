package net.fips.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import net.fips.control.identity.NodeIdentity;

/** The config of one of two real daemons that peer over UDP on loopback, for the end-to-end tests of this module. */
final class DaemonConfig {
    private DaemonConfig() {
    }

    /**
     * Writes {@code dir/name.yaml}: identity {@code self}, a 1 s heartbeat, the control socket {@code dir/name.sock},
     * UDP on {@code 127.0.0.1:port} and one peer {@code peer} (alias {@code peerAlias}) at {@code 127.0.0.1:peerPort}.
     *
     * @return the file written
     * @throws IOException when it cannot be written
     */
    static Path write(final Path dir, final String name, final NodeIdentity self, final int port,
            final NodeIdentity peer, final String peerAlias, final int peerPort) throws IOException {
        final String yaml = "node:\n"
                + "  identity:\n    nsec: \"" + self.nsec() + "\"\n"
                + "  heartbeat_interval_secs: 1\n"
                + "  control:\n    socket_path: \"" + dir.resolve(name + ".sock") + "\"\n"
                + "transports:\n  udp:\n    bind_addr: \"127.0.0.1:" + port + "\"\n"
                + "peers:\n  - npub: \"" + peer.npub() + "\"\n    alias: \"" + peerAlias + "\"\n"
                + "    addresses:\n      - transport: udp\n        addr: \"127.0.0.1:" + peerPort + "\"\n";
        final Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
