package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The start-up warm-up: its stop rule (compilation quiet for {@value StartupWarmup#QUIET_MS} ms, and only once the
 * stream moved enough), its cap, its property, and a real run through two loopback nodes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StartupWarmupTest {
    private static final long MS = 1_000_000L;

    @Test
    void quietMeansNoCompilationFinishedForTheQuietTime() {
        final AtomicLong now = new AtomicLong();
        final AtomicLong compiled = new AtomicLong();
        final AtomicInteger steps = new AtomicInteger();
        final StartupWarmup w = new StartupWarmup(now::get, compiled::get, TimeUnit.SECONDS.toNanos(10));
        // each step takes 50 ms; the JIT finishes something in each of the first 10 steps, then nothing
        final boolean quiet = w.awaitQuiet(TimeUnit.SECONDS.toNanos(10), () -> {
            now.addAndGet(50 * MS);
            if (steps.incrementAndGet() <= 10) {
                compiled.addAndGet(7);
            }
        }, () -> true);
        assertTrue(quiet);
        // the last growth was seen after step 10 (500 ms); quiet from 300 ms later, i.e. after step 16
        assertEquals(10 + StartupWarmup.QUIET_MS / 50, steps.get());
    }

    @Test
    void aJitThatNeverStopsEndsAtTheCap() {
        final AtomicLong now = new AtomicLong();
        final AtomicLong compiled = new AtomicLong();
        final StartupWarmup w = new StartupWarmup(now::get, compiled::get, TimeUnit.SECONDS.toNanos(10));
        final boolean quiet = w.awaitQuiet(TimeUnit.SECONDS.toNanos(2), () -> {
            now.addAndGet(50 * MS);
            compiled.incrementAndGet();
        }, () -> true);
        assertFalse(quiet);
        assertEquals(TimeUnit.SECONDS.toNanos(2), now.get());
    }

    @Test
    void quietDoesNotCountBeforeTheStreamIsReady() {
        final AtomicLong now = new AtomicLong();
        final AtomicInteger steps = new AtomicInteger();
        final StartupWarmup w = new StartupWarmup(now::get, () -> 42, TimeUnit.SECONDS.toNanos(10));
        final boolean quiet = w.awaitQuiet(TimeUnit.SECONDS.toNanos(10), () -> {
            now.addAndGet(100 * MS);
            steps.incrementAndGet();
        }, () -> steps.get() >= 20);
        assertTrue(quiet);
        assertEquals(20, steps.get(), "quiet from the start, but not ready before step 20");
    }

    @Test
    void thePropertyIsACapInSecondsAndOffByDefault() {
        final String was = System.getProperty(StartupWarmup.PROPERTY);
        try {
            System.clearProperty(StartupWarmup.PROPERTY);
            assertEquals(0, StartupWarmup.configuredSeconds());
            System.setProperty(StartupWarmup.PROPERTY, " 8 ");
            assertEquals(8, StartupWarmup.configuredSeconds());
            System.setProperty(StartupWarmup.PROPERTY, "eight");
            assertEquals(0, StartupWarmup.configuredSeconds());
            System.setProperty(StartupWarmup.PROPERTY, "-3");
            assertEquals(0, StartupWarmup.configuredSeconds());
        } finally {
            if (was == null) {
                System.clearProperty(StartupWarmup.PROPERTY);
            } else {
                System.setProperty(StartupWarmup.PROPERTY, was);
            }
        }
    }

    @Test
    void twoGenerationsOfLoopbackNodesCarryTheStreamWithinTheCap() throws Exception {
        final long cap = TimeUnit.SECONDS.toNanos(8);
        final long t0 = System.nanoTime();
        final StartupWarmup.Outcome o = new StartupWarmup(System::nanoTime,
                ManagementFactory.getCompilationMXBean()::getTotalCompilationTime, cap).run();
        final long took = System.nanoTime() - t0;
        assertTrue(o.linked(), o::toString);
        assertFalse(o.generations().isEmpty());
        assertTrue(o.generations().size() <= StartupWarmup.GENERATIONS, o::toString);
        // the first pair's stream ran and was answered (data one way, ACKs back)
        assertTrue(o.generations().get(0).stream().bytesIn() > 0, o::toString);
        assertTrue(o.generations().get(0).stream().acksIn() > 0, o::toString);
        // then the lone pings, one in flight at a time, came back through both nodes (when the cap left them time)
        final StartupWarmup.Generation first = o.generations().get(0);
        assertTrue(first.pingNanos() == 0 || first.pings() > 0, o::toString);
        assertTrue(first.pings() <= StartupWarmup.LONE_PINGS, o::toString);
        // bounded: the cap, plus linking each pair (at most 5 s each), closing them and the drain (3 s)
        assertTrue(took < cap + TimeUnit.SECONDS.toNanos(2L * StartupWarmup.LINK_TIMEOUT_SECONDS + 3 + 5),
                () -> "took " + took / 1e9 + " s");
        assertTrue(o.drainNanos() <= TimeUnit.MILLISECONDS.toNanos(StartupWarmup.DRAIN_CAP_MS + 500), o::toString);
    }
}
