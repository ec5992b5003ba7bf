package net.fips.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Waiting: returns once the condition holds, fails naming what it waited for once the deadline passes. */
class AwaitTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(30);

    @Test
    void returnsAsSoonAsTheConditionHolds() {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger described = new AtomicInteger();
        Await.until(LONG, () -> polls.incrementAndGet() == 5, () -> "never: " + described.incrementAndGet());
        assertEquals(5, polls.get());
        Await.spinUntil(LONG, () -> polls.incrementAndGet() == 500, () -> "never: " + described.incrementAndGet());
        assertEquals(500, polls.get());
        Await.until(LONG, Duration.ofMillis(2), () -> polls.incrementAndGet() == 503, () -> "never");
        assertEquals(503, polls.get());
        assertEquals(0, described.get(), "the description is only built for a failure");
    }

    @Test
    void failsNamingWhatItWaitedForOnceTheDeadlinePasses() {
        final long start = System.nanoTime();
        final AssertionError plain = assertThrows(AssertionError.class, () -> Await.until(SHORT, () -> false,
                "the impossible"));
        assertEquals("timed out after 30 ms waiting for the impossible", plain.getMessage());
        final AssertionError spun = assertThrows(AssertionError.class, () -> Await.spinUntil(SHORT, () -> false,
                () -> "state " + 7));
        assertEquals("timed out after 30 ms waiting for state 7", spun.getMessage());
        assertTrue(System.nanoTime() - start < LONG.toNanos(), "both waits ended at their short deadline");
    }
}
