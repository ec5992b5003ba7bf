package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;

/**
 * One-way link throughput between two data planes on loopback, each on its own threads (rx, one worker, tx):
 * the benchmark thread pushes 1400-byte SessionDatagrams into A ({@code sendDatagram}, copying), A frames, seals
 * and sends them, B receives, opens and delivers them to a counting hook. The benchmark thread keeps at most
 * {@link DeliveryWindow#WINDOW} datagrams undelivered, so the score (packets/s offered) tracks the delivered rate
 * rather than the kernel's drop rate. {@code raw}: same engine with a no-op cipher; {@code link}: full FMP seal/open.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(LinkThroughputBenchmark.BATCH)
public class LinkThroughputBenchmark {
    static final int BATCH = 32;
    /** Undelivered datagrams allowed in flight: under what the 4 MiB receive buffer holds. */

    @Param({"raw", "link"})
    public String mode;

    /**
     * How idle worker and tx threads wait: {@code signal} (default) parks them until signalled once backed off;
     * {@code poll} keeps polling on the back-off's 1 ms timer (compare with {@code -p idle=signal,poll}).
     */
    @Param({"signal"})
    public String idle;

    private final AtomicLong delivered = new AtomicLong();
    private DataPlane a;
    private DataPlane b;
    private MemorySegment datagram;
    private final DeliveryWindow window = new DeliveryWindow(delivered);
    private long refused;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        final long park = switch (idle) {
            case "signal" -> DataPlaneContext.IDLE_PARK_BOUND_NS_DEFAULT;
            case "poll" -> DataPlaneContext.IDLE_PARK_DISABLED;
            default -> throw new IllegalArgumentException("idle " + idle);
        };
        a = Links.plane(mode, ThreadingMode.DEDICATED, (link, seg, off, len) -> { }, park);
        b = Links.plane(mode, ThreadingMode.DEDICATED, (link, seg, off, len) -> delivered.incrementAndGet(), park);
        Links.connect(a, b);
        datagram = Arena.ofShared().allocate(Links.SIZE, 64);
        datagram.fill((byte) 0x5a);
        datagram.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);   // msg_type SessionDatagram
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%n%s: sent %d, delivered %d, written off %d, refused offers %d; A out %d, B in %d, "
                        + "B auth failures %d, B rx %s%n", mode, window.sent(), delivered.get(), window.lost(), refused,
                a.counter(DataPlaneCounter.FRAMES_OUT), b.counter(DataPlaneCounter.FRAMES_IN),
                b.counter(DataPlaneCounter.DROP_AUTH_FAILED), b.udpTransport(0).counters());
        System.out.printf("A drops: %s; B drops: %s%n", Links.drops(a), Links.drops(b));
        a.close();
        b.close();
    }


    /** Offers {@link #BATCH} datagrams, then waits for the window to open. */
    @Benchmark
    public long push() {
        final DataPlane a = this.a;
        for (int i = 0; i < BATCH; i++) {
            while (!a.sendDatagram(Links.LINK_A, datagram, 0, Links.SIZE)) {
                refused++;
                Thread.onSpinWait();
            }
        }
        return window.sentAndWait(BATCH);
    }
}
