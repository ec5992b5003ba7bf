package net.fips.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import net.fips.control.config.ConfigSources;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;
import net.fips.dataplane.tun.StandInTcpStream;
import net.fips.dataplane.tun.TunStandIn;

/**
 * The training run for the daemon's opt-in ahead-of-time cache ({@code -XX:AOTCacheOutput}, JDK 25): bin/fips runs
 * it once per build when {@code FIPS_DAEMON_AOT=1}, so that later starts of the daemon find its classes loaded and
 * linked and the hot methods' profiles recorded. It does what a daemon carrying a TCP stream does, in one
 * JVM and on {@code 127.0.0.1} only: loads two configuration files the way {@code fips -c} does (TUN on, the
 * threading and offload settings at the daemon's defaults, no DNS, control sockets in a temporary directory),
 * starts two nodes that link to each other over UDP, each with a {@link TunStandIn} in place of {@code fips0} (a
 * socket pair, no TUN driver or privileges needed, the same reader, offload split, coalescer and writer over it),
 * and then drives a TCP bulk stream through both ({@link StandInTcpStream}: super-segments into the first node's
 * device, through its session to the second, coalesced out of the second's device, ACKs back, with session
 * rekeys every {@value #REKEY_SECONDS} s) for at least {@value #STREAM_SECONDS_DEFAULT} s and until its rate
 * settles (at most {@value #STREAM_SECONDS_MAX} s), so the profiles recorded, and the methods C2 compiled, are those
 * of the daemon's own threads under a full-rate stream.
 * Nothing is printed on success (unless {@value #VERBOSE_PROPERTY} is true); the exit status is 0 when the nodes
 * linked and the stream's data and ACKs came through, 1 otherwise (bin/fips then starts the daemon without a
 * cache). Not a command for people. The daemon's start-up warm-up ({@link StartupWarmup}, on by default in the
 * launchers) runs the same two nodes inside its own JVM before its node starts, with a stream policy of its own.
 */
public final class DaemonTraining {
    /** The least seconds of stream, when {@value #STREAM_SECONDS_PROPERTY} is not set. */
    static final int STREAM_SECONDS_DEFAULT = 10;
    /** The most seconds of stream, however unsettled its rate. */
    static final int STREAM_SECONDS_MAX = 30;
    /** System property: the least seconds of stream (tests run a shorter one). */
    static final String STREAM_SECONDS_PROPERTY = "fips.training.stream.seconds";
    /** Consecutive one-second slices whose rates must agree for the stream to count as settled. */
    static final int SETTLED_SLICES = 4;
    /** How far (percent of the smallest) those slices' rates may spread. */
    static final int SETTLED_SPREAD_PERCENT = 25;
    /** System property: print what the stream moved even when the run succeeds. */
    static final String VERBOSE_PROPERTY = "fips.training.verbose";
    /** The least payload that must come through for the run to count (a few hundred super-segments). */
    private static final long MIN_BYTES = 4L << 20;
    /**
     * {@code node.rekey.after_secs} of the training nodes: session rekeys every few seconds instead of every two
     * minutes, so the stream's profiles hold the session rekey's branches (a new key epoch, the K-bit cutover, the
     * drain of the old keys), which a daemon's stream takes early (its 65,536-message trigger); a method whose
     * profile never saw them is compiled with an uncommon trap there, and the first rekey deoptimises it. Link
     * rekeys keep the reference's fixed timings (30 s minimum key age); 2 s link rekeys once stalled this stream,
     * a data-plane bug fixed since (ADR 0063; docs/benchmarks.md, "Rekey stall under 2 s link rekeys").
     */
    static final int REKEY_SECONDS = 4;
    private static final long LINK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private DaemonTraining() {
    }

    /**
     * @param args ignored
     * @throws Exception when the training cannot run at all (the caller then goes without a cache)
     */
    public static void main(final String[] args) throws Exception {
        final long seconds = Long.getLong(STREAM_SECONDS_PROPERTY, STREAM_SECONDS_DEFAULT);
        final StandInTcpStream.Result r = run(TimeUnit.SECONDS.toNanos(seconds),
                TimeUnit.SECONDS.toNanos(Math.max(seconds, STREAM_SECONDS_MAX)));
        final boolean ok = r != null && succeeded(r);
        if (!ok || Boolean.getBoolean(VERBOSE_PROPERTY)) {
            System.err.println("fips training: " + (r == null ? "the nodes did not link" : r));
        }
        System.exit(ok ? 0 : 1);
    }

    /** @return whether a stream moved enough data, ACKs included, for its profiles to be the stream's */
    static boolean succeeded(final StandInTcpStream.Result r) {
        return r.bytesIn() >= MIN_BYTES && r.acksIn() > 0;
    }

    /**
     * Starts the two nodes, waits for their link and runs the stream.
     *
     * @return what the stream moved, or null when the nodes did not link within 20 s
     */
    static StandInTcpStream.Result run(final long minNanos, final long maxNanos) throws Exception {
        return run(minNanos, maxNanos, REKEY_SECONDS, UnaryOperator.identity(), (a, b) -> { });
    }

    /**
     * The training run with other settings (the rekey-loss measurement in docs/benchmarks.md uses it); logs at WARN.
     *
     * @param rekeySeconds {@code node.rekey.after_secs} of both nodes
     * @param tune         applied to both nodes' options (e.g. a link config tuner)
     * @param atEnd        called with both nodes after the stream, while they still run
     * @return what the stream moved, or null when the nodes did not link within 20 s
     */
    static StandInTcpStream.Result run(final long minNanos, final long maxNanos, final int rekeySeconds,
                                       final UnaryOperator<NodeOptions> tune, final BiConsumer<Node, Node> atEnd)
            throws Exception {
        LogSetup.install(NodeConfig.LogLevel.WARN);
        return run(LINK_TIMEOUT_NS, rekeySeconds, tune, stream -> stream(stream, minNanos, maxNanos), atEnd);
    }

    /** What runs once the two nodes have linked: drives {@code stream} and returns what it moved. */
    @FunctionalInterface
    interface StreamPolicy {
        /**
         * @param stream the stream through the two nodes' TUN stand-ins
         * @return what the stream moved
         */
        StandInTcpStream.Result drive(StandInTcpStream stream);
    }

    /**
     * Starts the two nodes (logging through whatever the caller installed), waits up to {@code linkTimeoutNanos}
     * for their link, lets {@code policy} drive the stream, calls {@code atEnd}, then closes both nodes and their
     * stand-ins and deletes the temporary configuration, keys' files and sockets.
     *
     * @param rekeySeconds {@code node.rekey.after_secs} of both nodes
     * @param tune         applied to both nodes' options
     * @param atEnd        called with both nodes after the stream, while they still run
     * @return what the stream moved, or null when the nodes did not link in time
     */
    static StandInTcpStream.Result run(final long linkTimeoutNanos, final int rekeySeconds,
                                       final UnaryOperator<NodeOptions> tune, final StreamPolicy policy,
                                       final BiConsumer<Node, Node> atEnd) throws Exception {
        final Path dir = Files.createTempDirectory("fips-training");
        final List<TunStandIn> standIns = new ArrayList<>();
        try {
            final NodeIdentity a = NodeIdentity.generate();
            final NodeIdentity b = NodeIdentity.generate();
            final int pa = freePort();
            final int pb = freePort();
            final Path acl = Files.createDirectories(dir.resolve("acl"));
            Files.writeString(dir.resolve("a.yaml"), yaml(a, pa, dir.resolve("a.sock"), "fipstrain0", b, pb,
                    rekeySeconds));
            Files.writeString(dir.resolve("b.yaml"), yaml(b, pb, dir.resolve("b.sock"), "fipstrain1", a, pa,
                    rekeySeconds));
            final LoadedConfig ca = ConfigSources.system().load(Optional.of(dir.resolve("a.yaml")));
            final LoadedConfig cb = ConfigSources.system().load(Optional.of(dir.resolve("b.yaml")));
            final NodeOptions.TunOpener opener = config -> {
                final TunStandIn s = TunStandIn.open(config);
                standIns.add(s);
                return s.device();
            };
            try (Node na = Node.start(ca, tune.apply(options(acl, opener)));
                 Node nb = Node.start(cb, tune.apply(options(acl, opener)))) {
                final long deadline = System.nanoTime() + linkTimeoutNanos;
                while (!(peers(na) == 1 && peers(nb) == 1) && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(1_000_000L);
                }
                if (!(peers(na) == 1 && peers(nb) == 1)) {
                    return null;
                }
                na.controlApi().showStatus();
                na.controlApi().showPeers();
                try (StandInTcpStream stream = StandInTcpStream.open(standIns.get(0), standIns.get(1))) {
                    final StandInTcpStream.Result r = policy.drive(stream);
                    atEnd.accept(na, nb);
                    return r;
                }
            }
        } finally {
            for (final TunStandIn s : standIns) {
                s.close();
            }
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Runs the stream in one-second slices for at least {@code minNanos} and then until its rate settles (the last
     * {@value #SETTLED_SLICES} slices within {@value #SETTLED_SPREAD_PERCENT} % of each other: the per-packet code is
     * compiled and its profile is the steady stream's), or {@code maxNanos} at most.
     */
    static StandInTcpStream.Result stream(final StandInTcpStream stream, final long minNanos, final long maxNanos) {
        final long slice = TimeUnit.SECONDS.toNanos(1);
        final long[] perSlice = new long[(int) Math.max(1, maxNanos / slice)];
        StandInTcpStream.Result r = null;
        long before = 0;
        for (int i = 0; i < perSlice.length; i++) {
            r = stream.run(slice, System::nanoTime);
            perSlice[i] = r.bytesIn() - before;
            before = r.bytesIn();
            if (Boolean.getBoolean(VERBOSE_PROPERTY)) {
                System.err.println("fips training: second " + (i + 1) + ": " + perSlice[i] * 8 / 1_000_000 + " Mbit/s");
            }
            if ((i + 1) * slice >= minNanos && settled(perSlice, i + 1)) {
                break;
            }
        }
        return r;
    }

    /** @return whether the last {@value #SETTLED_SLICES} of the first {@code n} slices moved about as much */
    static boolean settled(final long[] perSlice, final int n) {
        if (n < SETTLED_SLICES) {
            return false;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = n - SETTLED_SLICES; i < n; i++) {
            min = Math.min(min, perSlice[i]);
            max = Math.max(max, perSlice[i]);
        }
        return min > 0 && (max - min) * 100 <= min * SETTLED_SPREAD_PERCENT;
    }

    private static NodeOptions options(final Path acl, final NodeOptions.TunOpener opener) {
        return NodeOptions.defaults().version(Version.VERSION).aclDirectory(acl).tunOpener(opener);
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

    private static String yaml(final NodeIdentity self, final int port, final Path socket, final String tun,
                               final NodeIdentity peer, final int peerPort, final int rekeySeconds) {
        return "node:\n  identity:\n    nsec: \"" + self.nsec() + "\"\n  rekey:\n    after_secs: " + rekeySeconds
                + "\n  control:\n    socket_path: \"" + socket
                + "\"\ntun:\n  enabled: true\n  name: " + tun + "\ndns:\n  enabled: false\ntransports:\n  udp:\n"
                + "    bind_addr: \"127.0.0.1:" + port + "\"\npeers:\n  - npub: \"" + peer.npub()
                + "\"\n    addresses:\n      - transport: udp\n        addr: \"127.0.0.1:" + peerPort + "\"\n";
    }
}
