package net.fips.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import net.fips.control.config.ConfigSources;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.PathExercise;

/**
 * The training run for the daemon's ahead-of-time cache ({@code -XX:AOTCacheOutput}, JDK 25): bin/fips runs it
 * once per build, the package's postinst once per install, so that later starts of the daemon find its classes
 * loaded and linked and the hot methods' profiles recorded. It does what a starting daemon does, in one JVM and on
 * {@code 127.0.0.1} only: loads two configuration files the way {@code fips -c} does, starts two nodes (no TUN, no
 * DNS, control sockets in a temporary directory) that link to each other over UDP, then drives synthetic packets
 * through the session path ({@link PathExercise}) and stops them. Nothing is printed on success; the exit status
 * is 0 when the nodes linked and every packet came through, 1 otherwise. Not a command for people.
 */
public final class DaemonTraining {
    private static final int ROUNDS = 3000;
    private static final long LINK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private DaemonTraining() {
    }

    /**
     * @param args ignored
     * @throws Exception when the training cannot run at all (the caller then goes without a cache)
     */
    public static void main(final String[] args) throws Exception {
        System.exit(run() ? 0 : 1);
    }

    static boolean run() throws Exception {
        final Path dir = Files.createTempDirectory("fips-training");
        try {
            LogSetup.install(NodeConfig.LogLevel.WARN);
            final NodeIdentity a = NodeIdentity.generate();
            final NodeIdentity b = NodeIdentity.generate();
            final int pa = freePort();
            final int pb = freePort();
            final Path acl = Files.createDirectories(dir.resolve("acl"));
            Files.writeString(dir.resolve("a.yaml"), yaml(a, pa, dir.resolve("a.sock"), b, pb));
            Files.writeString(dir.resolve("b.yaml"), yaml(b, pb, dir.resolve("b.sock"), a, pa));
            final LoadedConfig ca = ConfigSources.system().load(Optional.of(dir.resolve("a.yaml")));
            final LoadedConfig cb = ConfigSources.system().load(Optional.of(dir.resolve("b.yaml")));
            final boolean linked;
            try (Node na = Node.start(ca, NodeOptions.defaults().version(Version.VERSION).aclDirectory(acl));
                 Node nb = Node.start(cb, NodeOptions.defaults().version(Version.VERSION).aclDirectory(acl))) {
                final long deadline = System.nanoTime() + LINK_TIMEOUT_NS;
                while (!(peers(na) == 1 && peers(nb) == 1) && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(1_000_000L);
                }
                linked = peers(na) == 1 && peers(nb) == 1;
                na.controlApi().showStatus();
                na.controlApi().showPeers();
            }
            try (PathExercise ex = PathExercise.open(AeadCiphers::create)) {
                final long want = 2L * PathExercise.PACKETS_PER_ROUND * ROUNDS;
                return linked && ex.run(ROUNDS) == want;
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int peers(final Node n) {
        return n.linkSnapshot().peers().size();
    }

    private static int freePort() throws IOException {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }
    }

    private static String yaml(final NodeIdentity self, final int port, final Path socket, final NodeIdentity peer,
                               final int peerPort) {
        return "node:\n  identity:\n    nsec: \"" + self.nsec() + "\"\n  control:\n    socket_path: \"" + socket
                + "\"\ntun:\n  enabled: false\ndns:\n  enabled: false\ntransports:\n  udp:\n    bind_addr: \"127.0.0.1:"
                + port + "\"\npeers:\n  - npub: \"" + peer.npub() + "\"\n    addresses:\n      - transport: udp\n"
                + "        addr: \"127.0.0.1:" + peerPort + "\"\n";
    }
}
