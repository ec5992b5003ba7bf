package net.fips.bench.dataplane;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.PacketView;

/**
 * Cost of taking a slot from {@link PacketPool} and giving it back: uncontended, uncontended with a header written
 * through a {@link PacketView}, and with two threads sharing the free list.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PacketPoolAcquireRelease {
    @Param({"4096"})
    int slots;

    private PacketPool pool;

    /** One view per benchmark thread, as one per agent in the data plane. */
    @State(Scope.Thread)
    public static class View {
        PacketView view;

        /**
         * Creates the thread's view.
         *
         * @param bench the shared pool holder
         */
        @Setup(Level.Trial)
        public void setUp(final PacketPoolAcquireRelease bench) {
            view = bench.pool.newView();
        }
    }

    /** Builds the pool once per trial; ownership is not strict, as in production. */
    @Setup(Level.Trial)
    public void setUp() {
        pool = new PacketPool(slots, 1500, false);
    }

    /** Frees the pool. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    /** @return the acquired slot, so the JIT cannot drop the pair */
    @Benchmark
    @Threads(1)
    public int acquireRelease() {
        final int slot = pool.acquire();
        pool.release(slot);
        return slot;
    }

    /** Acquire, write a 16-byte FMP-sized header in front of a 1200-byte packet, release. */
    @Benchmark
    @Threads(1)
    public int acquireWrapPrependRelease(final View state) {
        final int slot = pool.acquire();
        final PacketView view = state.view.wrap(slot);
        view.setLength(1200);
        view.prepend(16);
        view.putI64Le(8, slot);
        pool.release(slot);
        return view.length();
    }

    /** @return the acquired slot; two threads contend on the free-list head */
    @Benchmark
    @Threads(2)
    public int acquireReleaseContended() {
        final int slot = pool.acquire();
        pool.release(slot);
        return slot;
    }

    /**
     * Runs only this benchmark.
     *
     * @param args ignored
     * @throws RunnerException if JMH fails
     */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(PacketPoolAcquireRelease.class.getName()).build()).run();
    }
}
