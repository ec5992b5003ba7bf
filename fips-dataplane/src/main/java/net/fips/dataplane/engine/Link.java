package net.fips.dataplane.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import net.fips.dataplane.LinkStats;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.MmpReceiver;

/**
 * One established link as its worker sees it: up to three sessions, the K bit, the peer's current address and
 * the consecutive-failure count, all owned by the worker thread (single writer, plain fields), plus published
 * statistics ({@link LinkStats}) that any thread may read.
 *
 * <p>Statistics are written by the worker with opaque stores and read with opaque loads: every 64-bit value is
 * atomic (never torn), possibly a moment old, and the per-packet cost is a plain store (no fence on x86).
 */
final class Link implements LinkStats {
    private static final VarHandle LAST_AUTH;
    private static final VarHandle SEND_COUNTER;
    private static final VarHandle K_BIT;
    private static final VarHandle PACKETS_IN;
    private static final VarHandle BYTES_IN;
    private static final VarHandle PACKETS_OUT;
    private static final VarHandle BYTES_OUT;
    private static final VarHandle HIGHEST_IN;
    private static final VarHandle DROPS_IN;
    private static final VarHandle REPLAY_DROPS;
    private static final VarHandle CONSECUTIVE_FAILURES;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            LAST_AUTH = l.findVarHandle(Link.class, "lastAuthNanos", long.class);
            SEND_COUNTER = l.findVarHandle(Link.class, "publishedSendCounter", long.class);
            K_BIT = l.findVarHandle(Link.class, "publishedKBit", int.class);
            PACKETS_IN = l.findVarHandle(Link.class, "packetsIn", long.class);
            BYTES_IN = l.findVarHandle(Link.class, "bytesIn", long.class);
            PACKETS_OUT = l.findVarHandle(Link.class, "packetsOut", long.class);
            BYTES_OUT = l.findVarHandle(Link.class, "bytesOut", long.class);
            HIGHEST_IN = l.findVarHandle(Link.class, "highestIn", long.class);
            DROPS_IN = l.findVarHandle(Link.class, "dropsIn", long.class);
            REPLAY_DROPS = l.findVarHandle(Link.class, "replayDrops", long.class);
            CONSECUTIVE_FAILURES = l.findVarHandle(Link.class, "publishedConsecutiveFailures", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long linkId;
    final int transportId;

    // ---- worker-owned state (plain) ----
    LinkSession current;
    LinkSession pending;
    LinkSession previous;
    /** The K bit of the current session: sent in every frame, compared with every received one. */
    int kBit;
    TransportDestination destination;
    int consecutiveFailures;
    /** ECN: the control plane flagged the link congested; transit forwards onto it get CE (§6.6). */
    boolean congested;
    /** MMP receiver state (worker-written, published). */
    final MmpReceiver mmp = new MmpReceiver();

    // ---- published statistics (opaque) ----
    private long lastAuthNanos;
    private long publishedSendCounter;
    private int publishedKBit;
    private long packetsIn;
    private long bytesIn;
    private long packetsOut;
    private long bytesOut;
    private long highestIn;
    private long dropsIn;
    private long replayDrops;
    private int publishedConsecutiveFailures;

    /**
     * @param sessionStartNanos the instant the control plane chose as the session's start (frame timestamps)
     * @param nowNanos          the clock now (the liveness baseline)
     */
    Link(final long linkId, final int transportId, final TransportDestination destination, final LinkSession current,
         final long sessionStartNanos, final long nowNanos) {
        this.linkId = linkId;
        this.transportId = transportId;
        this.destination = destination;
        this.current = current;
        current.startNanos = sessionStartNanos;
        LAST_AUTH.setOpaque(this, nowNanos);
    }

    // ---- writer side (the worker) ----

    void onAuthenticated(final long nowNanos, final int frameBytes, final long highest) {
        LAST_AUTH.setOpaque(this, nowNanos);
        PACKETS_IN.setOpaque(this, (long) PACKETS_IN.getOpaque(this) + 1);
        BYTES_IN.setOpaque(this, (long) BYTES_IN.getOpaque(this) + frameBytes);
        HIGHEST_IN.setOpaque(this, highest);
    }

    void onSent(final int frameBytes, final long sendCounter) {
        PACKETS_OUT.setOpaque(this, (long) PACKETS_OUT.getOpaque(this) + 1);
        BYTES_OUT.setOpaque(this, (long) BYTES_OUT.getOpaque(this) + frameBytes);
        SEND_COUNTER.setOpaque(this, sendCounter);
    }

    /** A frame failed authentication; publishes the run of consecutive failures too. */
    void onAuthFailure() {
        DROPS_IN.setOpaque(this, (long) DROPS_IN.getOpaque(this) + 1);
        consecutiveFailures++;
        CONSECUTIVE_FAILURES.setOpaque(this, consecutiveFailures);
    }

    /** A frame's counter was replayed or too old for the window. */
    void onReplayDrop() {
        DROPS_IN.setOpaque(this, (long) DROPS_IN.getOpaque(this) + 1);
        REPLAY_DROPS.setOpaque(this, (long) REPLAY_DROPS.getOpaque(this) + 1);
    }

    /** A frame authenticated: the failure run ends. */
    void resetFailures() {
        if (consecutiveFailures != 0) {
            consecutiveFailures = 0;
            CONSECUTIVE_FAILURES.setOpaque(this, 0);
        }
    }

    /** Publishes the session-level figures after a cutover. */
    void publishSession() {
        K_BIT.setOpaque(this, kBit);
        SEND_COUNTER.setOpaque(this, current.sendCounter);
        HIGHEST_IN.setOpaque(this, current.replay.highest());
    }

    // ---- reader side (any thread) ----

    @Override
    public long lastAuthenticatedNanos() {
        return (long) LAST_AUTH.getOpaque(this);
    }

    @Override
    public long sendCounter() {
        return (long) SEND_COUNTER.getOpaque(this);
    }

    @Override
    public int keyEpochBit() {
        return (int) K_BIT.getOpaque(this);
    }

    @Override
    public long packetsIn() {
        return (long) PACKETS_IN.getOpaque(this);
    }

    @Override
    public long bytesIn() {
        return (long) BYTES_IN.getOpaque(this);
    }

    @Override
    public long packetsOut() {
        return (long) PACKETS_OUT.getOpaque(this);
    }

    @Override
    public long bytesOut() {
        return (long) BYTES_OUT.getOpaque(this);
    }

    @Override
    public long highestCounterIn() {
        return (long) HIGHEST_IN.getOpaque(this);
    }

    @Override
    public long dropsIn() {
        return (long) DROPS_IN.getOpaque(this);
    }

    @Override
    public long replayDrops() {
        return (long) REPLAY_DROPS.getOpaque(this);
    }

    @Override
    public int consecutiveDecryptFailures() {
        return (int) CONSECUTIVE_FAILURES.getOpaque(this);
    }

    @Override
    public MmpReceiver receiver() {
        return mmp;
    }

    @Override
    public String toString() {
        return "Link{" + linkId + ", in=" + packetsIn() + ", out=" + packetsOut() + ", k=" + keyEpochBit() + "}";
    }
}
