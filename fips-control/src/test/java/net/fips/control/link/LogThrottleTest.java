package net.fips.control.link;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** One line per key per interval, and a bounded number of keys. */
class LogThrottleTest {
    @Test
    void oneLinePerKeyPerIntervalWithBoundedKeys() {
        final LogThrottle<String> t = new LogThrottle<>(60, 2);
        assertTrue(t.allow("a", 0));
        assertFalse(t.allow("a", 59));
        assertTrue(t.allow("b", 10));
        assertFalse(t.allow("c", 20), "full, nothing expired: skipped");
        assertTrue(t.allow("a", 60));
        assertTrue(t.allow("c", 70), "b expired and was dropped");
        assertFalse(t.allow("b", 71), "full again (a, c)");
    }
}
