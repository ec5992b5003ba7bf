package net.fips.bench.dataplane;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.dataplane.pool.SpscSlotRing;

/**
 * One producer thread offering slot indices and one consumer thread taking them, through {@link SpscSlotRing}.
 * The {@code offersMade}/{@code pollsMade} aux counters are the real throughput; {@code *Failed} show how often a
 * side found the ring full or empty (no backoff, so they measure contention rather than drops).
 * The {@code batch} group drains with {@code drainTo} instead of {@code poll}.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SlotRingThroughput {
    @Param({"1024"})
    int capacity;

    private SpscSlotRing ring;

    /** Producer-side outcome counts, reported per operation. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class OfferCounters {
        /** Offers that found the ring full. */
        public long offersFailed;
        /** Offers accepted. */
        public long offersMade;
    }

    /** Consumer-side outcome counts, reported per operation. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class PollCounters {
        /** Polls that found the ring empty. */
        public long pollsFailed;
        /** Slot indices taken. */
        public long pollsMade;
    }

    /** The consumer's reusable batch array for {@code drainTo}. */
    @State(Scope.Thread)
    public static class Batch {
        final int[] slots = new int[32];
    }

    /** Builds the ring once per trial. */
    @Setup(Level.Trial)
    public void setUp() {
        ring = new SpscSlotRing(capacity);
    }

    /** Producer: offers one index. */
    @Benchmark
    @Group("single")
    @GroupThreads(1)
    public void offer(final OfferCounters counters) {
        if (ring.offer(7)) {
            counters.offersMade++;
        } else {
            counters.offersFailed++;
        }
    }

    /** Consumer: polls one index. */
    @Benchmark
    @Group("single")
    @GroupThreads(1)
    public void poll(final PollCounters counters) {
        if (ring.poll() == SpscSlotRing.EMPTY) {
            counters.pollsFailed++;
        } else {
            counters.pollsMade++;
        }
    }

    /** Producer for the batch group. */
    @Benchmark
    @Group("batch")
    @GroupThreads(1)
    public void offerForBatch(final OfferCounters counters) {
        offer(counters);
    }

    /** Consumer: drains up to 32 indices at once. */
    @Benchmark
    @Group("batch")
    @GroupThreads(1)
    public void drain(final PollCounters counters, final Batch batch) {
        final int n = ring.drainTo(batch.slots);
        if (n == 0) {
            counters.pollsFailed++;
        } else {
            counters.pollsMade += n;
        }
    }

    /**
     * Runs only this benchmark.
     *
     * @param args ignored
     * @throws RunnerException if JMH fails
     */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(SlotRingThroughput.class.getName()).build()).run();
    }
}
