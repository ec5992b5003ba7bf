package net.fips.bench.dataplane;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * {@code NextHop.find} (the transit path's routing decision), expected at 0 B/op under {@code -prof gc}: a node at
 * depth 2 with 8 peers (parent, 4 children, 3 cross-links, each with a filter of 500 entries) and 10 000 cached
 * destinations; routed by the cache (bloom and greedy steps), to a direct peer, and with packet-supplied
 * coordinates (bloom membership then needs a SHA-256 of the address).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouteBenchmark {
    private static final int DESTS = 10_000;

    private final NextHop hop = new NextHop();
    private ForwardingTable table;
    private NodeAddr[] dests;
    private long[][] destHi;
    private long[][] destLo;
    private NodeAddr[] peers;
    private int next;
    private long now = 1_000_000_000L;

    /** Builds the neighbourhood. */
    @Setup
    public void setup() {
        final SplittableRandom rnd = new SplittableRandom(42);
        final NodeAddr root = NodeAddr.of(0, 1);
        final NodeAddr parent = NodeAddr.of(rnd.nextLong() >>> 1, rnd.nextLong());
        final NodeAddr self = NodeAddr.of(rnd.nextLong() >>> 1, rnd.nextLong());
        final Coords selfCoords = Coords.of(self, parent, root);
        final CoordCache cache = new CoordCache();
        dests = new NodeAddr[DESTS];
        destHi = new long[DESTS][];
        destLo = new long[DESTS][];
        final List<NodeAddr> branch = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            branch.add(NodeAddr.of(rnd.nextLong() >>> 1, rnd.nextLong()));
        }
        for (int i = 0; i < DESTS; i++) {
            final NodeAddr d = NodeAddr.of(rnd.nextLong(), rnd.nextLong());
            dests[i] = d;
            final Coords c = Coords.of(d, branch.get(i % 8), root);
            cache.insert(d, c, now);
            destHi[i] = new long[c.size()];
            destLo[i] = new long[c.size()];
            for (int k = 0; k < c.size(); k++) {
                destHi[i][k] = c.addrs().get(k).hi();
                destLo[i][k] = c.addrs().get(k).lo();
            }
        }
        final ForwardingTable.Builder b = ForwardingTable.builder(self, selfCoords).cache(cache.view());
        peers = new NodeAddr[8];
        for (int p = 0; p < 8; p++) {
            final NodeAddr addr = p == 0 ? parent : NodeAddr.of(rnd.nextLong() >>> 1, rnd.nextLong());
            peers[p] = addr;
            final Coords coords = p == 0 ? Coords.of(parent, root)
                    : p < 5 ? Coords.of(addr, self, parent, root) : Coords.of(addr, branch.get(p), root);
            final BloomFilter f = BloomFilter.create();
            for (int i = p; i < DESTS; i += 20) {
                f.insert(dests[i]);
            }
            b.peer(new ForwardingTable.Peer(addr, p, coords, f.toBytes(), BloomFilter.DEFAULT_HASH_COUNT,
                    1.0 + p * 0.1, 1280, true, p == 0 ? ForwardingTable.TreeRole.PARENT
                    : p < 5 ? ForwardingTable.TreeRole.CHILD : ForwardingTable.TreeRole.NONE));
        }
        table = b.build();
    }

    /** Routed with cached coordinates (touching the entry). */
    @Benchmark
    public int cached() {
        final NodeAddr d = dests[next++ % DESTS];
        now += 1000;
        return hop.find(table, d.hi(), d.lo(), now);
    }

    /** The destination is a peer. */
    @Benchmark
    public int directPeer() {
        final NodeAddr d = peers[next++ & 7];
        return hop.find(table, d.hi(), d.lo(), now);
    }

    /** Coordinates supplied from the packet (SessionSetup-style warming). */
    @Benchmark
    public int packetCoordinates() {
        final int i = next++ % DESTS;
        final NodeAddr d = dests[i];
        return hop.find(table, ~d.hi(), d.lo(), now, destHi[i], destLo[i], destHi[i].length);
    }

    /** Runs this suite. */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(RouteBenchmark.class.getSimpleName()).build()).run();
    }
}
