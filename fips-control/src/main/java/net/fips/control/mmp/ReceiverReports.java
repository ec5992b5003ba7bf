package net.fips.control.mmp;

import net.fips.dataplane.MmpReceiver;
import net.fips.dataplane.wire.MmpReceiverReport;

/**
 * Builds the ReceiverReports of one MMP instance (link or session) from the data plane's receiver figures
 * ({@link MmpReceiver}) and the counters the caller passes (routing-session.md §6.2, §6.3): jitter (µs, u32), the
 * CE count and cumulative reorder count of the current key generation (u32), the OWD trend (i32), and this
 * interval's loss bursts: their count (u32), the longest (u16) and the mean length in u8.8 fixed point (u16,
 * saturating, as the reference's {@code (mean * 256) as u16}). The interval is the time since the previous report
 * this builder made. Control thread; one builder per receiver (it starts the receiver's next burst interval).
 */
public final class ReceiverReports {
    private long lastBursts;
    private long lastLost;

    /**
     * This interval's report, advancing the burst interval.
     *
     * @param r               the receiver's figures
     * @param highestCounter  highest counter received (u64)
     * @param packets         cumulative packets received
     * @param bytes           cumulative bytes received
     * @param echo            timestamp echo (u32), 0 for none
     * @param dwellMs         dwell time (u16)
     * @param intervalPackets packets received since the previous report
     * @param intervalBytes   their bytes
     */
    public MmpReceiverReport next(final MmpReceiver r, final long highestCounter, final long packets,
                                  final long bytes, final long echo, final int dwellMs, final long intervalPackets,
                                  final long intervalBytes) {
        final long bursts = r.burstLossCount();
        final long lost = r.burstLostFrames();
        final int max = r.takeIntervalMaxBurst();
        final long count = Math.max(0, bursts - lastBursts);
        final long lostNow = Math.max(0, lost - lastLost);
        lastBursts = bursts;
        lastLost = lost;
        return new MmpReceiverReport(highestCounter, packets, bytes, echo, dwellMs, Math.min(max, 0xFFFF),
                meanU88(count, lostNow), r.jitterMicros(), u32(r.ceCountGeneration()), r.owdTrend(), u32(count),
                r.reorderCount() & 0xFFFF_FFFFL, u32(intervalPackets), u32(intervalBytes));
    }

    /** Mean burst length {@code lost / count} in u8.8 (truncated, saturating at 0xFFFF); 0 without bursts. */
    static int meanU88(final long count, final long lost) {
        if (count <= 0) {
            return 0;
        }
        return (int) Math.min(0xFFFF, (long) ((double) lost / count * 256.0));
    }

    private static long u32(final long v) {
        return Math.max(0, Math.min(v, 0xFFFF_FFFFL));
    }
}
