package net.fips.control.mmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Delivery ratios and ETX from consecutive reports (routing-session §6.3). */
class DeliveryRatiosTest {
    @Test
    void ratiosEtxAndARekeyThatRestartsTheCounter() {
        final DeliveryRatios d = new DeliveryRatios();
        d.onReport(99, 100, 10000, 50, 49);
        assertNull(d.forward());
        assertNull(d.etx());
        // 100 counters, 80 arrived; we got 50 of 100 of theirs: df 0.8, dr 0.5, ETX 1/(0.4) = 2.5.
        d.onReport(199, 180, 18000, 100, 149);
        assertEquals(0.8, d.forward(), 1e-9);
        assertEquals(0.2, d.lossRate(), 1e-9);
        assertEquals(0.5, d.reverse(), 1e-9);
        assertEquals(2.5, d.etx(), 1e-9);
        // A rekey restarts both counters: the ratios stay, the next interval is re-based.
        d.onReport(9, 190, 19000, 110, 9);
        assertEquals(0.8, d.forward(), 1e-9);
        d.onReport(109, 290, 29000, 210, 109);
        assertEquals(1.0, d.forward(), 1e-9);
        assertEquals(1.0, d.reverse(), 1e-9);
        assertEquals(1.0, d.etx(), 1e-9);
        // A repeat of the last report and one whose cumulative packets went backwards are stale: ignored.
        assertFalse(d.onReport(109, 290, 29000, 220, 119));
        assertFalse(d.onReport(150, 280, 28000, 220, 119));
        assertEquals(1.0, d.reverse(), 1e-9);
        // Nothing delivered: ETX is capped at 100.
        d.onReport(209, 290, 29000, 210, 209);
        assertEquals(0.0, d.forward(), 1e-9);
        assertEquals(100.0, d.etx(), 1e-9);
    }

    @Test
    void goodputIsTheReportedBytesOverTheTimeBetweenReportsSmoothedByAQuarter() {
        final long s = 1_000_000_000L;
        final DeliveryRatios d = new DeliveryRatios();
        d.onReport(99, 100, 10_000, 50, 49, 10 * s);
        assertNull(d.goodputBps(), "one report gives no rate");
        // 8 000 bytes in 2 s: 4 000 B/s seeds the average.
        d.onReport(199, 180, 18_000, 100, 149, 12 * s);
        assertEquals(4000.0, d.goodputBps(), 1e-9);
        // 2 000 bytes in 0.5 s (4 000 B/s) keeps it; then 6 000 bytes in 1 s: 4 000 + (6 000 - 4 000) / 4.
        d.onReport(299, 200, 20_000, 150, 199, 12 * s + s / 2);
        assertEquals(4000.0, d.goodputBps(), 1e-9);
        d.onReport(399, 260, 26_000, 200, 249, 13 * s + s / 2);
        assertEquals(4500.0, d.goodputBps(), 1e-9);
        // A stale report changes nothing, and the next rate spans from the last accepted one.
        assertFalse(d.onReport(399, 260, 26_000, 200, 249, 14 * s));
        d.onReport(499, 270, 26_000, 250, 299, 15 * s + s / 2);
        assertEquals(4500.0 + (0.0 - 4500.0) / 4, d.goodputBps(), 1e-9);
        // Reports without a time (the untimed overload) measure no rate and re-base the next one.
        d.onReport(599, 280, 27_000, 300, 349);
        assertEquals(3375.0, d.goodputBps(), 1e-9);
        d.onReport(699, 290, 28_000, 350, 399, 20 * s);
        assertEquals(3375.0, d.goodputBps(), 1e-9);
        d.onReport(799, 300, 29_000, 400, 449, 21 * s);
        assertEquals(3375.0 + (1000.0 - 3375.0) / 4, d.goodputBps(), 1e-9);
    }
}
