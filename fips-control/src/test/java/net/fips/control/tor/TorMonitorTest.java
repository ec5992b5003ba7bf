package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** What the monitor logs for successive snapshots, on a manual clock. */
class TorMonitorTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    private static TorMonitoring at(final Integer bootstrap, final String liveness, final Boolean dormant) {
        return new TorMonitoring(bootstrap, false, 0L, 0L, liveness, "0.4.9.11", dormant);
    }

    private static List<String> messages(final List<TorMonitor.Event> events) {
        return events.stream().map(TorMonitor.Event::message).toList();
    }

    @Test
    void milestonesOnceEachStallWarningOnceLivenessAndDormantTransitions() {
        final TorMonitor m = new TorMonitor(0);
        assertNull(m.latest());
        assertEquals(List.of(), messages(m.onSnapshot(at(10, "down", false), 0)));
        assertEquals(List.of("Tor bootstrap 25%", "Tor bootstrap 50%"),
                messages(m.onSnapshot(at(50, "down", false), 10 * S)));
        assertEquals(List.of(), messages(m.onSnapshot(at(50, "down", false), 20 * S)));
        final List<TorMonitor.Event> stall = m.onSnapshot(at(60, "down", false), 61 * S);
        assertEquals(1, stall.size());
        assertTrue(stall.get(0).warning());
        assertTrue(stall.get(0).message().contains("60%"));
        assertEquals(List.of(), messages(m.onSnapshot(at(70, "down", false), 71 * S)), "warned once");
        assertEquals(List.of("Tor bootstrap 75%", "Tor bootstrap 100%", "Tor network liveness changed: down -> up"),
                messages(m.onSnapshot(at(100, "up", false), 81 * S)));
        assertEquals(List.of("Tor daemon entered dormant mode"), messages(m.onSnapshot(at(100, "up", true), 91 * S)));
        assertEquals(List.of(), messages(m.onSnapshot(at(100, "up", true), 101 * S)));
        final TorMonitoring unknown = at(null, null, null);
        assertEquals(List.of(), messages(m.onSnapshot(unknown, 111 * S)), "unknown values change nothing");
        assertSame(unknown, m.latest());
        assertEquals(List.of("Tor network liveness changed: up -> down"),
                messages(m.onSnapshot(at(100, "down", false), 121 * S)));
    }
}
