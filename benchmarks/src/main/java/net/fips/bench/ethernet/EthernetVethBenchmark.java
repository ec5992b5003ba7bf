package net.fips.bench.ethernet;

import java.io.IOException;
import java.lang.foreign.Arena;
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

import net.fips.dataplane.ethernet.EthernetTransport;
import net.fips.dataplane.ethernet.EthernetTransportConfig;
import net.fips.dataplane.ethernet.FrameReceiveBatch;
import net.fips.dataplane.ethernet.FrameSendBatch;

/**
 * Ethernet frames over a veth pair, sender and receiver on one thread: each invocation sends 32 frames of 1400
 * bytes with one sendmmsg from one end and receives them at the other, so the score is frames per second through
 * the whole AF_PACKET path. {@code recvmmsg} offers 32 slots per receive call (what the transport does);
 * {@code perFrame} offers one, i.e. one system call per frame, as the reference's recvfrom loop. Needs root and the
 * two interfaces in the benchmark's network namespace: run {@code benchmarks/ethernet-rx.sh}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(EthernetVethBenchmark.BATCH)
public class EthernetVethBenchmark {
    static final int BATCH = 32;
    static final int SIZE = 1400;
    private static final int SLOT = 2048;
    private static final int HEADROOM = 64;
    private static final long WAIT_NS = TimeUnit.MILLISECONDS.toNanos(20);

    @Param({"recvmmsg", "perFrame"})
    public String mode;
    @Param("fb0")
    public String txInterface;
    @Param("fb1")
    public String rxInterface;

    private Arena arena;
    private EthernetTransport tx;
    private EthernetTransport rx;
    private FrameSendBatch sendBatch;
    private FrameReceiveBatch receiveBatch;
    private long lost;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        tx = EthernetTransport.open(EthernetTransportConfig.of(txInterface).withBatch(BATCH));
        rx = EthernetTransport.open(EthernetTransportConfig.of(rxInterface).withBatch(BATCH));
        final MemorySegment out = arena.allocate((long) BATCH * SLOT, 64);
        sendBatch = new FrameSendBatch(BATCH);
        for (int i = 0; i < BATCH; i++) {
            out.asSlice((long) i * SLOT + HEADROOM, SIZE).fill((byte) i);
            sendBatch.add(out, (long) i * SLOT + HEADROOM, SIZE, rx.localMac());
        }
        final MemorySegment in = arena.allocate((long) BATCH * SLOT, 64);
        final int offered = "perFrame".equals(mode) ? 1 : BATCH;
        receiveBatch = new FrameReceiveBatch(offered);
        for (int i = 0; i < offered; i++) {
            receiveBatch.slot(i, in, (long) i * SLOT + HEADROOM, SLOT - HEADROOM);
        }
        receiveBatch.offer(offered);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.println("\n" + mode + ": lost " + lost + "; tx " + tx.counters() + "; rx " + rx.counters());
        tx.close();
        rx.close();
        arena.close();
    }

    /** One batch across the pair. @return frames received */
    @Benchmark
    public int roundTrip() {
        tx.send(sendBatch);
        int got = 0;
        long deadline = 0;
        while (got < BATCH) {
            final int n = rx.receive(receiveBatch, 0);
            if (n > 0) {
                got += n;
                continue;
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + WAIT_NS;
            } else if (now - deadline > 0) {
                lost += BATCH - got;
                break;
            }
            Thread.onSpinWait();
        }
        return got;
    }
}
