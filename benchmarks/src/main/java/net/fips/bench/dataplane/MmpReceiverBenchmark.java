package net.fips.bench.dataplane;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import net.fips.dataplane.MmpReceiver;

/**
 * Per-frame cost of the MMP receiver ({@link MmpReceiver#onFrame}: jitter, OWD window and slope, gap and reorder
 * tracking, published with opaque stores) as the worker pays it for every authenticated frame. Frames arrive in
 * order with arrival times that wander around a 1 ms spacing; {@code gapEvery} > 0 loses one frame in that many
 * (a burst every so often). {@link #baseline} is the input generation alone: the receiver's cost is the difference.
 * Run with {@code -prof gc} to see that it allocates nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MmpReceiverBenchmark {
    @Param({"0", "100"})
    int gapEvery;

    private MmpReceiver receiver;
    private long counter;
    private long nanos;
    private long seed = 0x9E3779B97F4A7C15L;

    /** A fresh receiver per trial. */
    @Setup
    public void setUp() {
        receiver = new MmpReceiver();
    }

    /** The same input generation without the receiver: the harness's share of {@link #onFrame}. */
    @Benchmark
    public long baseline() {
        long c = counter++;
        if (gapEvery > 0 && c % gapEvery == 0) {
            c = counter++;
        }
        seed = seed * 6364136223846793005L + 1442695040888963407L;
        nanos += 1_000_000L + (seed >>> 54);
        return c ^ nanos;
    }

    /** One frame. */
    @Benchmark
    public void onFrame() {
        long c = counter++;
        if (gapEvery > 0 && c % gapEvery == 0) {
            c = counter++;
        }
        seed = seed * 6364136223846793005L + 1442695040888963407L;
        nanos += 1_000_000L + (seed >>> 54);
        receiver.onFrame(c, c, (c & 1023) == 0, nanos);
    }
}
