package net.fips.control.mmp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.MmpReceiver;
import net.fips.dataplane.wire.MmpReceiverReport;

/** The ReceiverReports we send carry the receiver's figures, encoded as routing-session.md §6.2. */
class ReceiverReportsTest {
    private static final long MS = 1_000_000L;

    /** The 64 field bytes written independently, little-endian, in the §6.2 order. */
    private static byte[] fields(final long highest, final long packets, final long bytes, final int echo,
                                 final int dwell, final int maxBurst, final int meanBurst, final int jitter,
                                 final int ce, final int owd, final int bursts, final int reorder, final int ipk,
                                 final int ibytes) {
        final ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(highest).putLong(packets).putLong(bytes).putInt(echo).putShort((short) dwell)
                .putShort((short) maxBurst).putShort((short) meanBurst).putShort((short) 0).putInt(jitter).putInt(ce)
                .putInt(owd).putInt(bursts).putInt(reorder).putInt(ipk).putInt(ibytes);
        return b.array();
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void reportCarriesJitterOwdBurstsReorderAndCeByteExact() {
        final MmpReceiver r = new MmpReceiver();
        r.onFrame(0, 0, true, 0);
        r.onFrame(1, 10, false, 10 * MS);
        r.onFrame(4, 40, false, 42 * MS);    // 2, 3 missing: one burst of 2; D = 32000 - 30000: J_q4 = 2000
        r.onFrame(5, 50, false, 50 * MS);    // D = -2000: J_q4 = 2000 + 2000 - 125 = 3875
        r.onFrame(3, 30, false, 51 * MS);    // reordered; D = 1000 + 20000: J_q4 = 3875 + 21000 - 242 = 24633
        // OWD samples 0, 0, -8000, -42000, -29000: Σ(x-2)y = -42000 - 58000 = -100000 over Σ(x-2)² = 10.
        final ReceiverReports builder = new ReceiverReports();
        final MmpReceiverReport rr = builder.next(r, 5, 5, 500, 50, 3, 5, 500);
        final byte[] expected = fields(5, 5, 500, 50, 3, 2, 2 * 256, 24633 >> 4, 1, -10_000_000, 1, 1, 5, 500);
        assertArrayEquals(concat(new byte[] {0x02, 0, 0, 0}, expected), rr.encodeLink());
        assertArrayEquals(concat(new byte[] {0, 0}, expected), rr.encodeSession());
        assertEquals(1539, rr.jitter());

        // Next interval: no new gap, so no bursts; the cumulative figures stay.
        r.onFrame(6, 60, false, 60 * MS);
        final MmpReceiverReport second = builder.next(r, 6, 6, 600, 60, 0, 1, 100);
        assertEquals(0, second.burstLossCount());
        assertEquals(0, second.maxBurstLoss());
        assertEquals(0, second.meanBurstLoss());
        assertEquals(1, second.cumulativeReorderCount());
        assertEquals(1, second.ecnCeCount());

        // Two bursts (2 and 3 frames) in one interval: mean 2.5 = 640 in u8.8, max 3.
        r.onFrame(9, 90, false, 90 * MS);
        r.onFrame(10, 100, false, 100 * MS);
        r.onFrame(14, 140, false, 140 * MS);
        final MmpReceiverReport third = builder.next(r, 14, 9, 900, 140, 0, 3, 300);
        assertEquals(2, third.burstLossCount());
        assertEquals(3, third.maxBurstLoss());
        assertEquals(640, third.meanBurstLoss());
        // And it decodes back to the same figures.
        assertEquals(third, MmpReceiverReport.decodeLink(third.encodeLink(), 0, MmpReceiverReport.LINK_SIZE)
                .valueOrNull());
    }

    @Test
    void meanBurstIsU88Saturating() {
        assertEquals(0, ReceiverReports.meanU88(0, 0));
        assertEquals(256, ReceiverReports.meanU88(3, 3));
        assertEquals(341, ReceiverReports.meanU88(3, 4), "4/3 × 256 = 341.33, truncated");
        assertEquals(0xFFFF, ReceiverReports.meanU88(1, 1000), "1000 × 256 saturates the u16");
    }

    @Test
    void peerReportKeepsTheFiguresAndTheJitterTrend() {
        final PeerReport p = new PeerReport();
        assertNull(p.snapshot());
        assertNull(p.ecnCeCount());
        p.onReport(new MmpReceiverReport(10, 10, 1000, 0, 0, 4, 640, 100, 7, -5, 2, 3, 10, 1000));
        PeerReport.Figures f = p.snapshot();
        assertEquals(new PeerReport.Figures(100, -5, 2, 4, 640, 3, 7, "stable"), f);
        // short = 100 + (1000-100)/4 = 325, long = 100 + 900/32 = 128.1: ratio 2.5 > 1.05
        p.onReport(new MmpReceiverReport(20, 20, 2000, 0, 0, 0, 0, 1000, 7, 0, 0, 3, 10, 1000));
        assertEquals("rising", p.snapshot().jitterTrend());
        assertEquals("falling", PeerReport.trendLabel(90, 100));
        assertEquals("stable", PeerReport.trendLabel(104, 100));
        assertEquals("stable", PeerReport.trendLabel(5, 0));
    }
}
