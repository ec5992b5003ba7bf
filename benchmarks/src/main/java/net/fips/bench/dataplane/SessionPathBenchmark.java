package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The whole session path of both nodes on <b>one thread</b>, so that a back-to-back A/B comparison is not at the
 * mercy of how a loaded machine schedules eight agent threads: two SHARED-mode data planes A and C on loopback UDP;
 * the benchmark thread hands A 32 IPv6 packets of 1400 bytes ({@code sendIpv6}: copy into a slot), runs A's duty
 * cycles until they are shim-encoded, FSP-sealed, FMP-sealed and sent (one {@code sendmmsg}), then C's until they
 * are received ({@code recvmmsg}), FMP-opened, FSP-opened, rebuilt into IPv6 in place and written to C's sink (a
 * counter in place of the TUN write). Score: packets/s through both nodes' worker code plus two loopback UDP
 * syscalls per batch; {@code raw} replaces the AEAD by a no-op so that the Java side stands alone. A packet the
 * kernel drops (not expected on loopback with 4 MiB buffers) is written off after 20 ms and reported at teardown.
 *
 * <p>On a machine shared with other work the score (wall time) mostly measures the share of a core this thread got.
 * So each measurement iteration also prints the benchmark thread's own CPU time (user + system, from
 * {@link ThreadMXBean#getCurrentThreadCpuTime()}) per packet as {@code cpu-ns/packet}; every agent of both data
 * planes runs on this thread, so that is the whole per-packet cost of both nodes, syscalls included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(SessionPathBenchmark.BATCH)
public class SessionPathBenchmark {
    static final int BATCH = 32;
    static final int PACKET = 1400;
    private static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(20);

    @Param({"raw", "link"})
    public String mode;

    private final long[] delivered = new long[1];
    private DataPlane a;
    private DataPlane c;
    private MemorySegment packet;
    private long sent;
    private long lost;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long cpuAtStart;
    private long sentAtStart;
    private final StringBuilder cpuPerPacket = new StringBuilder();

    private DataPlane plane(final NodeAddr self, final NodeAddr peer) throws IOException {
        return Links.sessionPlane(mode, ThreadingMode.SHARED, self, peer, (seg, off, len) -> {
            delivered[0]++;
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

    @Setup(Level.Iteration)
    public void startIteration() {
        cpuAtStart = threads.getCurrentThreadCpuTime();
        sentAtStart = sent;
    }

    @TearDown(Level.Iteration)
    public void endIteration(final IterationParams params) {
        if (params.getType() == IterationType.MEASUREMENT && sent > sentAtStart) {
            cpuPerPacket.append(' ').append((threads.getCurrentThreadCpuTime() - cpuAtStart) / (sent - sentAtStart));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%n%s: cpu-ns/packet per measurement iteration:%s%n", mode, cpuPerPacket);
        System.out.printf("%s: sent %d, delivered %d, written off %d; A out %d, C in %d; drops A %s, C %s%n", mode,
                sent, delivered[0], lost, a.counter(DataPlaneCounter.SESSION_PACKETS_OUT),
                c.counter(DataPlaneCounter.SESSION_PACKETS_IN), Links.drops(a), Links.drops(c));
        a.close();
        c.close();
    }

    @Benchmark
    public long sendAndReceive() {
        final DataPlane a = this.a;
        final DataPlane c = this.c;
        for (int i = 0; i < BATCH; i++) {
            if (!a.sendIpv6(packet, 0, PACKET)) {
                throw new IllegalStateException("worker queue full");
            }
        }
        sent += BATCH;
        while (a.counter(DataPlaneCounter.FRAMES_OUT) < sent) {
            a.doWork();
        }
        // One more cycle so the transmit agent has flushed what the worker sealed last.
        a.doWork();
        final long start = System.nanoTime();
        while (delivered[0] + lost < sent) {
            if (c.doWork() == 0 && System.nanoTime() - start > STALL_NS) {
                lost = sent - delivered[0];
            }
        }
        return delivered[0];
    }
}
