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
}
