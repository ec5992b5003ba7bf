package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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

import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;

/**
 * The send hot path on one thread: a SHARED-mode data plane driven by the benchmark thread takes 32 1400-byte
 * SessionDatagrams ({@code sendDatagram}, copying into slots), frames and seals them in place and sends them as
 * one batch (GSO train) to a loopback socket nobody reads (the kernel drops what does not fit its buffer, which
 * costs the sender nothing extra). Score: packets/s; {@code -prof gc} should show ~0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(SealSendBenchmark.BATCH)
public class SealSendBenchmark {
    static final int BATCH = 32;

    @Param({"raw", "link"})
    public String mode;

    private DataPlane a;
    private DataPlane sink;
    private MemorySegment datagram;
    private long target;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = Links.plane(mode, ThreadingMode.SHARED, (link, seg, off, len) -> { });
        sink = Links.plane(mode, ThreadingMode.SHARED, (link, seg, off, len) -> { });
        Links.connect(a, sink);
        datagram = Arena.ofShared().allocate(Links.SIZE, 64);
        datagram.fill((byte) 0x5a);
        datagram.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%n%s: frames out %d, tx %s%n", mode, a.counter(DataPlaneCounter.FRAMES_OUT),
                a.udpTransport(0).counters());
        a.close();
        sink.close();
    }

    @Benchmark
    public long sealAndSend() {
        final DataPlane a = this.a;
        for (int i = 0; i < BATCH; i++) {
            if (!a.sendDatagram(Links.LINK_A, datagram, 0, Links.SIZE)) {
                throw new IllegalStateException("worker queue full");
            }
        }
        target += BATCH;
        while (a.counter(DataPlaneCounter.FRAMES_OUT) < target) {
            a.doWork();
        }
        // One more cycle so the transmit agent has flushed what the worker sealed last.
        a.doWork();
        return target;
    }
}
