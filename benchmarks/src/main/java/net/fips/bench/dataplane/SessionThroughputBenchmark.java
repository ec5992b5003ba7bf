package net.fips.bench.dataplane;

import java.io.IOException;
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

import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The full session path, both directions, on loopback: A's data plane takes 1400-byte IPv6 packets as the TUN
 * reader hands them over (copied into a slot: {@link DataPlane#sendIpv6(MemorySegment, long, int)}), compresses
 * them to the port-256 shim, FSP-seals them in place, wraps them in a SessionDatagram, FMP-seals them and sends
 * them; C's data plane receives, FMP-opens, FSP-opens, rebuilds the IPv6 header in place and writes each packet to
 * its IPv6 sink (a counter standing in for the TUN write). Each side on its own threads; windowed like
 * {@link TransitThroughputBenchmark}. With {@code -prof gc}, B/op covers both sides' threads in this JVM.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(SessionThroughputBenchmark.BATCH)
public class SessionThroughputBenchmark {
    static final int BATCH = 32;
    /** The IPv6 packet: 1400 bytes, which with 77 bytes of encapsulation fits a 1500-byte transport MTU. */
    static final int PACKET = 1400;

    @Param({"link"})
    public String mode;

    private final AtomicLong delivered = new AtomicLong();
    private DataPlane a;
    private DataPlane c;
    private MemorySegment packet;
    private final DeliveryWindow window = new DeliveryWindow(delivered);

    private DataPlane plane(final NodeAddr self, final NodeAddr peer) throws IOException {
        return Links.sessionPlane(mode, ThreadingMode.DEDICATED, self, peer, (seg, off, len) -> {
            delivered.incrementAndGet();
            return len;
        });
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = plane(Links.SESSION_A, Links.SESSION_C);
        c = plane(Links.SESSION_C, Links.SESSION_A);
        Links.connectSession(a, c);
        packet = Links.udpPacketAToC(PACKET);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%nsent %d, delivered %d, written off %d; A out %d, C in %d%n", window.sent(),
                delivered.get(), window.lost(), a.counter(DataPlaneCounter.SESSION_PACKETS_OUT),
                c.counter(DataPlaneCounter.SESSION_PACKETS_IN));
        System.out.printf("drops: A %s; C %s; C rx %s%n", Links.drops(a), Links.drops(c), c.udpTransport(0).counters());
        a.close();
        c.close();
    }

    /** Offers {@link #BATCH} packets, then waits for the window to open. */
    @Benchmark
    public long push() {
        for (int i = 0; i < BATCH; i++) {
            while (!a.sendIpv6(packet, 0, PACKET)) {
                Thread.onSpinWait();
            }
        }
        return window.sentAndWait(BATCH);
    }
}
