package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.LocalDelivery;

/**
 * Transit throughput A → B → C on loopback, each data plane on its own threads: A seals 1400-byte SessionDatagrams
 * addressed to C, B opens them, routes them with its {@link ForwardingTable} (C is a direct peer), rewrites ttl and
 * path_mtu and re-seals them in place towards C; C delivers them to a counting hook. With {@code workers=2} B's two
 * links are pinned to different workers ({@code pinning=split}), so every datagram crosses B's handoff ring, or to
 * one worker ({@code pinning=shared}), which re-seals on the worker that opened it. {@code threading} packs each
 * data plane's agents onto threads: {@code DEDICATED} (a thread per agent) or {@code COMPACT} (one thread per data
 * plane, what a daemon on fewer than four processors runs). Windowed like {@link LinkThroughputBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(TransitThroughputBenchmark.BATCH)
public class TransitThroughputBenchmark {
    static final int BATCH = 32;
    private static final NodeAddr ADDR_A = NodeAddr.of(0x3000_0000_0000_0000L, 1);
    private static final NodeAddr ADDR_B = NodeAddr.of(0x2000_0000_0000_0000L, 1);
    private static final NodeAddr ADDR_C = NodeAddr.of(0x1000_0000_0000_0000L, 1);

    @Param({"link"})
    public String mode;

    @Param({"1", "2"})
    public int workers;

    /** B's links with two workers: {@code split} (one per worker, every datagram handed off) or {@code shared}. */
    @Param({"split"})
    public String pinning;

    /** {@link ThreadingMode} of all three data planes. */
    @Param({"DEDICATED"})
    public String threading;

    private final AtomicLong delivered = new AtomicLong();
    private DataPlane a;
    private DataPlane b;
    private DataPlane c;
    private MemorySegment datagram;
    private final DeliveryWindow window = new DeliveryWindow(delivered);

    private DataPlane plane(final int workerCount, final LocalDelivery hook) throws IOException {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.valueOf(threading))
                .workerCount(workerCount).poolSlots(8192).ringCapacity(1024).cipherSupplier(Links.ciphers(mode))
                .localDelivery(hook));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(Links.MTU)
                .receiveBufferBytes(4 << 20).sendBufferBytes(4 << 20)));
        dp.start();
        return dp;
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = plane(1, (link, seg, off, len) -> { });
        b = plane(workers, (link, seg, off, len) -> { });
        c = plane(1, (link, seg, off, len) -> delivered.incrementAndGet());
        // B's links: 2 (to A) and 1 (to C) sit on different workers when there are two; 3 (to A) and 1 on one.
        final long bToA = switch (pinning) {
            case "split" -> 2;
            case "shared" -> 3;
            default -> throw new IllegalArgumentException("pinning " + pinning);
        };
        a.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), 0x11, 0x12, Links.key(1),
                Links.key(2), System.nanoTime()));
        b.addLink(new LinkSpec(bToA, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x12, 0x11,
                Links.key(2), Links.key(1), System.nanoTime()));
        b.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(c.udpTransport(0).localAddress()), 0x21, 0x22, Links.key(3),
                Links.key(4), System.nanoTime()));
        c.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), 0x22, 0x21, Links.key(4),
                Links.key(3), System.nanoTime()));
        b.setForwardingTable(ForwardingTable.builder(ADDR_B, Coords.of(ADDR_B, ADDR_C))
                .peer(new ForwardingTable.Peer(ADDR_C, 1, Coords.of(ADDR_C), 1.0, Links.MTU, true,
                        ForwardingTable.TreeRole.PARENT))
                .peer(new ForwardingTable.Peer(ADDR_A, bToA, Coords.of(ADDR_A, ADDR_B, ADDR_C), 1.0, Links.MTU, true,
                        ForwardingTable.TreeRole.CHILD))
                .build());
        datagram = Arena.ofShared().allocate(Links.SIZE, 64);
        datagram.fill((byte) 0x5a);
        SessionDatagramHeader.write(datagram, 0, 64, 65535, ADDR_A, ADDR_C);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%nworkers %d, %s, %s: sent %d, delivered %d, written off %d; B forwarded %d, handoffs %d, "
                        + "B no-route %d%n", workers, pinning, threading, window.sent(), delivered.get(), window.lost(),
                b.counter(DataPlaneCounter.FORWARDED), b.counter(DataPlaneCounter.HANDOFFS),
                b.counter(DataPlaneCounter.DROP_NO_ROUTE));
        System.out.printf("drops: A %s; B %s; C %s; B rx %s; C rx %s%n", Links.drops(a), Links.drops(b),
                Links.drops(c),
                b.udpTransport(0).counters(), c.udpTransport(0).counters());
        a.close();
        b.close();
        c.close();
    }


    /** Offers {@link #BATCH} datagrams, then waits for the window to open. */
    @Benchmark
    public long push() {
        for (int i = 0; i < BATCH; i++) {
            while (!a.sendDatagram(1, datagram, 0, Links.SIZE)) {
                Thread.onSpinWait();
            }
        }
        return window.sentAndWait(BATCH);
    }
}
