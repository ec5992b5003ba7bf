package net.fips.dataplane;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The per-frame part of an MMP receiver (routing-session.md §6.3), one per link and one per end-to-end session:
 * RFC 3550 jitter, the one-way-delay trend, loss bursts from counter gaps, reordering and CE marks. The worker that
 * owns the flow is the only writer and calls {@link #onFrame} for each authenticated frame (current key generation
 * only for the counter-based figures); any thread reads the published figures (opaque loads, each value atomic,
 * possibly a moment old, never torn). Nothing is allocated per frame: the OWD window is a preallocated array and
 * its least-squares sums are kept incrementally, so a frame costs a few arithmetic operations and a division.
 *
 * <p>Definitions, as the reference's receiver (v0.4.1 {@code mmp/receiver.rs}, {@code mmp/algorithms.rs}):
 * <ul>
 *   <li>jitter: {@code D = Δrecv_µs − Δsender_ts_µs} between consecutive frames (truncated to i32),
 *       {@code J_q4 += |D| − (J_q4 >> 4)}, reported as {@code J_q4 >> 4} µs; not updated for 15 s after a
 *       rekey (old-generation frames of the drain window would spike it);</li>
 *   <li>OWD trend: sample {@code y = (µs since the previous frame, 0 for the first) − sender_ts·1000} against a
 *       sequence number that counts samples; the least-squares slope over the last 32 samples, ×1000, as i32;</li>
 *   <li>bursts: a counter above the next expected one is a gap; consecutive gaps extend one burst, an in-order or
 *       late frame ends it; reordering: a counter below the highest seen.</li>
 * </ul>
 * A rekey ({@link #resetForRekey}) clears the generation state (highest counter, gap tracker, jitter, OWD window,
 * reorder and CE counts), as the reference does; the cumulative burst totals survive (the control plane reports
 * per-interval differences of them).
 *
 * <p>Per-interval burst figures: the reference resets them when it builds a report. Here the worker publishes
 * cumulative burst and lost-frame counts (the control plane takes differences) and a per-interval maximum tagged
 * with an interval number the control plane advances ({@link #takeIntervalMaxBurst}). One deviation: a burst still
 * open when a report is built is counted in the interval where it began, its length split by the boundary (the
 * reference closes it at the report and counts its continuation as a new burst).
 */
public final class MmpReceiver {
    /** OWD trend window (the reference's default {@code owd_window_size}). */
    public static final int OWD_WINDOW = 32;
    /** Jitter is not updated for this long after a rekey (the reference's REKEY_JITTER_GRACE_SECS). */
    public static final long REKEY_JITTER_GRACE_NANOS = 15_000_000_000L;

    private static final VarHandle JITTER;
    private static final VarHandle OWD_TREND;
    private static final VarHandle BURSTS;
    private static final VarHandle BURST_LOST;
    private static final VarHandle MAX_BURST;
    private static final VarHandle INTERVAL;
    private static final VarHandle REORDER;
    private static final VarHandle CE_GENERATION;
    private static final VarHandle CE_TOTAL;
    private static final VarHandle LAST_FRAME;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            JITTER = l.findVarHandle(MmpReceiver.class, "jitterUs", long.class);
            OWD_TREND = l.findVarHandle(MmpReceiver.class, "owdTrend", int.class);
            BURSTS = l.findVarHandle(MmpReceiver.class, "bursts", long.class);
            BURST_LOST = l.findVarHandle(MmpReceiver.class, "burstLost", long.class);
            MAX_BURST = l.findVarHandle(MmpReceiver.class, "maxBurstTagged", long.class);
            INTERVAL = l.findVarHandle(MmpReceiver.class, "interval", int.class);
            REORDER = l.findVarHandle(MmpReceiver.class, "reorder", long.class);
            CE_GENERATION = l.findVarHandle(MmpReceiver.class, "ceGeneration", long.class);
            CE_TOTAL = l.findVarHandle(MmpReceiver.class, "ceTotal", long.class);
            LAST_FRAME = l.findVarHandle(MmpReceiver.class, "lastFrame", long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- worker-owned state (plain) ----
    private boolean hasExpected;
    private long expectedNext;
    private boolean inBurst;
    private int currentBurst;
    private long highest = -1;
    private boolean hasLast;
    private long lastRecvNanos;
    private long lastSenderMs;
    private long jitterQ4;
    private long graceUntilNanos;
    private boolean inGrace;
    private final long[] owd = new long[OWD_WINDOW];
    private int owdHead;
    private int owdCount;
    /** Σ y over the window. */
    private long owdSumY;
    /** Σ i·y over the window, i = 0 for the oldest sample. */
    private long owdSumIY;
    private int workerInterval;
    private int workerMax;

    // ---- published (opaque) ----
    private long jitterUs;
    private int owdTrend;
    private long bursts;
    private long burstLost;
    /** interval number (high 32 bits) ‖ longest burst in it (low 32 bits). */
    private long maxBurstTagged;
    /** Written by the control plane only: the interval the worker's maximum belongs to. */
    private int interval;
    private long reorder;
    private long ceGeneration;
    private long ceTotal;
    /** sender timestamp (ms, high 32 bits) ‖ arrival (clock ms, low 32 bits) of the last frame; -1 before one. */
    private long lastFrame = -1;

    /**
     * One authenticated frame.
     *
     * @param counter  its AEAD counter
     * @param senderMs its inner timestamp (ms, u32)
     * @param ce       whether the FMP frame carried CE
     * @param nowNanos when it arrived (the data plane's clock)
     */
    public void onFrame(final long counter, final long senderMs, final boolean ce, final long nowNanos) {
        if (counter < highest) {
            REORDER.setOpaque(this, (long) REORDER.getOpaque(this) + 1);
        } else {
            highest = counter;
        }
        observeGap(counter);
        if (ce) {
            CE_GENERATION.setOpaque(this, (long) CE_GENERATION.getOpaque(this) + 1);
            CE_TOTAL.setOpaque(this, (long) CE_TOTAL.getOpaque(this) + 1);
        }
        final long senderUs = senderMs * 1000;
        final long sinceLastUs = hasLast ? Math.max(0, nowNanos - lastRecvNanos) / 1000 : 0;
        if (inGrace && nowNanos - graceUntilNanos >= 0) {
            inGrace = false;
        }
        if (!inGrace && hasLast) {
            final int d = (int) (sinceLastUs - (senderUs - lastSenderMs * 1000));
            jitterQ4 += Math.abs((long) d) - (jitterQ4 >> 4);
            JITTER.setOpaque(this, (jitterQ4 >> 4) & 0xFFFF_FFFFL);
        }
        pushOwd(sinceLastUs - senderUs);
        LAST_FRAME.setOpaque(this, senderMs << 32 | (nowNanos / 1_000_000L) & 0xFFFF_FFFFL);
        lastSenderMs = senderMs;
        lastRecvNanos = nowNanos;
        hasLast = true;
    }

    private void observeGap(final long counter) {
        if (!hasExpected) {
            hasExpected = true;
            expectedNext = counter + 1;
            return;
        }
        if (counter > expectedNext) {
            final long gap = counter - expectedNext;
            if (inBurst) {
                currentBurst = (int) Math.min(0xFFFF, currentBurst + gap);
            } else {
                inBurst = true;
                currentBurst = (int) Math.min(0xFFFF, gap);
                BURSTS.setOpaque(this, (long) BURSTS.getOpaque(this) + 1);
            }
            BURST_LOST.setOpaque(this, (long) BURST_LOST.getOpaque(this) + gap);
            final int iv = (int) INTERVAL.getOpaque(this);
            if (iv != workerInterval) {
                workerInterval = iv;
                workerMax = 0;
            }
            if (currentBurst > workerMax) {
                workerMax = currentBurst;
                MAX_BURST.setOpaque(this, (long) iv << 32 | workerMax);
            }
        } else {
            inBurst = false;
            currentBurst = 0;
        }
        if (counter >= expectedNext) {
            expectedNext = counter + 1;
        }
    }

    private void pushOwd(final long y) {
        final int n = owdCount;
        if (n == OWD_WINDOW) {
            final long oldest = owd[owdHead];
            // Drop the oldest (index 0): every other sample moves down one index.
            owdSumY -= oldest;
            owdSumIY -= owdSumY;
            owd[owdHead] = y;
            owdHead = (owdHead + 1) & (OWD_WINDOW - 1);
            owdSumIY += (long) (n - 1) * y;
            owdSumY += y;
        } else {
            owd[(owdHead + n) & (OWD_WINDOW - 1)] = y;
            owdSumIY += (long) n * y;
            owdSumY += y;
            owdCount = n + 1;
        }
        OWD_TREND.setOpaque(this, trend(owdCount, owdSumY, owdSumIY));
    }

    /**
     * Least-squares slope of {@code y} over {@code x = 0..n-1}, ×1000, truncated to i32 (saturating): with
     * consecutive x the slope is {@code (2·Σiy − (n−1)·Σy) · 6 / (n(n²−1))}.
     */
    public static int trend(final int n, final long sumY, final long sumIY) {
        if (n < 2) {
            return 0;
        }
        final double num = 2.0 * sumIY - (double) (n - 1) * sumY;
        return (int) (num / TREND_DEN[n] * 1000.0);
    }

    /** {@code n(n²−1)/6} for n up to the window (the slope's denominator, times 2). */
    private static final double[] TREND_DEN = new double[OWD_WINDOW + 1];

    static {
        for (int n = 0; n <= OWD_WINDOW; n++) {
            TREND_DEN[n] = (double) n * ((double) n * n - 1) / 6.0;
        }
    }

    /** A cutover to a new key generation: counters restart at 0, timestamps at the new start. */
    public void resetForRekey(final long nowNanos) {
        highest = -1;
        hasExpected = false;
        inBurst = false;
        currentBurst = 0;
        hasLast = false;
        jitterQ4 = 0;
        JITTER.setOpaque(this, 0L);
        inGrace = true;
        graceUntilNanos = nowNanos + REKEY_JITTER_GRACE_NANOS;
        owdHead = 0;
        owdCount = 0;
        owdSumY = 0;
        owdSumIY = 0;
        OWD_TREND.setOpaque(this, 0);
        REORDER.setOpaque(this, 0L);
        CE_GENERATION.setOpaque(this, 0L);
        LAST_FRAME.setOpaque(this, -1L);
    }

    // ---- reader side ----

    /**
     * The timestamp echo state of the ReceiverReport (routing-session.md §6.3), one atomic value: the last frame's
     * sender timestamp (ms, u32) in the high 32 bits, its arrival on the data plane's clock in whole milliseconds
     * (the low 32 bits of {@code nanos / 10⁶}) in the low 32 bits; -1 before a frame of the current generation.
     */
    public long lastFrame() {
        return (long) LAST_FRAME.getOpaque(this);
    }

    /** @return the RFC 3550 jitter estimate in µs (u32) */
    public long jitterMicros() {
        return (long) JITTER.getOpaque(this);
    }

    /** @return the OWD trend (slope ×1000 over the window) */
    public int owdTrend() {
        return (int) OWD_TREND.getOpaque(this);
    }

    /** @return loss bursts since the flow began (cumulative across rekeys) */
    public long burstLossCount() {
        return (long) BURSTS.getOpaque(this);
    }

    /** @return frames lost in those bursts (counter gaps) */
    public long burstLostFrames() {
        return (long) BURST_LOST.getOpaque(this);
    }

    /**
     * The longest burst since the previous call, and starts a new interval. Only one thread may call it (the
     * control plane's report builder for this flow).
     */
    public int takeIntervalMaxBurst() {
        final int iv = (int) INTERVAL.getOpaque(this);
        final long tagged = (long) MAX_BURST.getOpaque(this);
        INTERVAL.setOpaque(this, iv + 1);
        return (int) (tagged >>> 32) == iv ? (int) tagged : 0;
    }

    /** @return frames received below the highest counter seen, on the current key generation */
    public long reorderCount() {
        return (long) REORDER.getOpaque(this);
    }

    /** @return CE-marked frames on the current key generation (the ReceiverReport's ecn_ce_count) */
    public long ceCountGeneration() {
        return (long) CE_GENERATION.getOpaque(this);
    }

    /** @return CE-marked frames since the flow began */
    public long ceCountTotal() {
        return (long) CE_TOTAL.getOpaque(this);
    }
}
