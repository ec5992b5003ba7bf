package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import net.fips.dataplane.SessionStats;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.MmpReceiver;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.wire.FspFlags;

/**
 * One end-to-end (FSP) session as the worker that owns it sees it (routing-session.md §5.3, §5.7): up to three key
 * generations (current, pending, previous; each a {@link LinkSession} with its replay window and send counter, the
 * indices unused), the K bit, the coordinate warm-up, the path MTU and MSS ceiling, plus published statistics any
 * thread may read ({@link SessionStats}, opaque stores as in {@link Link}).
 */
final class FspSession implements SessionStats {
    private static final VarHandle LAST_DATA;
    private static final VarHandle SEND_COUNTER;
    private static final VarHandle K_BIT;
    private static final VarHandle PACKETS_OUT;
    private static final VarHandle BYTES_OUT;
    private static final VarHandle PACKETS_IN;
    private static final VarHandle BYTES_IN;
    private static final VarHandle DROPS_IN;
    private static final VarHandle MESSAGES_IN;
    private static final VarHandle MESSAGE_BYTES_IN;
    private static final VarHandle HIGHEST_IN;
    private static final VarHandle PEER_TS;
    private static final VarHandle PEER_TS_NANOS;
    private static final VarHandle CE_IN;
    private static final VarHandle GEN_START;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            LAST_DATA = l.findVarHandle(FspSession.class, "lastDataNanos", long.class);
            SEND_COUNTER = l.findVarHandle(FspSession.class, "publishedSendCounter", long.class);
            K_BIT = l.findVarHandle(FspSession.class, "publishedKBit", boolean.class);
            PACKETS_OUT = l.findVarHandle(FspSession.class, "packetsOut", long.class);
            BYTES_OUT = l.findVarHandle(FspSession.class, "bytesOut", long.class);
            PACKETS_IN = l.findVarHandle(FspSession.class, "packetsIn", long.class);
            BYTES_IN = l.findVarHandle(FspSession.class, "bytesIn", long.class);
            DROPS_IN = l.findVarHandle(FspSession.class, "dropsIn", long.class);
            MESSAGES_IN = l.findVarHandle(FspSession.class, "messagesIn", long.class);
            MESSAGE_BYTES_IN = l.findVarHandle(FspSession.class, "messageBytesIn", long.class);
            HIGHEST_IN = l.findVarHandle(FspSession.class, "highestIn", long.class);
            PEER_TS = l.findVarHandle(FspSession.class, "peerTimestampMs", long.class);
            PEER_TS_NANOS = l.findVarHandle(FspSession.class, "peerTimestampNanos", long.class);
            CE_IN = l.findVarHandle(FspSession.class, "ceIn", long.class);
            GEN_START = l.findVarHandle(FspSession.class, "generationStartNanos", long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Largest CP coordinate block carried in warm-up (two lists of 64 entries). */
    static final int MAX_CP_BYTES = 2 * (2 + 16 * 64);

    final NodeAddr remote;
    final long remoteHi;
    final long remoteLo;
    final int ttl;

    // ---- worker-owned state (plain) ----
    LinkSession current;
    LinkSession pending;
    LinkSession previous;
    /** K bit of the current generation, as the FSP flag value (0 or {@code FspFlags.K}). */
    int kFlag;
    /** A cutover ordered by the control plane has not yet been confirmed by an inbound frame. */
    boolean awaitingConfirmation;
    int warmupRemaining;
    /** Scratch for the CP coordinates, encoded from the forwarding table at each warm-up send. */
    final MemorySegment cpCoords = Arena.ofAuto().allocate(MAX_CP_BYTES, 8);
    /** Path MTU learned for this session (65535 until lowered). */
    int pathMtu = 0xFFFF;
    long lastPreviousEventNanos = Long.MIN_VALUE;
    /** The forward path MTU last seen on a message from the remote (-1 before the first). */
    int observedPathMtu = -1;
    long lastPathMtuNotifyNanos;
    long lastNoRouteEventNanos = Long.MIN_VALUE;
    /** MMP receiver state over the FSP counters and timestamps (worker-written, published). */
    final MmpReceiver mmp = new MmpReceiver();

    // ---- published statistics (opaque) ----
    private long lastDataNanos;
    private long publishedSendCounter;
    private boolean publishedKBit;
    private long packetsOut;
    private long bytesOut;
    private long packetsIn;
    private long bytesIn;
    private long dropsIn;
    private long messagesIn;
    private long messageBytesIn;
    private long highestIn = -1;
    private long peerTimestampMs = -1;
    private long peerTimestampNanos;
    private long ceIn;
    private long generationStartNanos;

    /** Built on the control thread from a spec, then owned by the worker. */
    static FspSession of(final SessionSpec spec, final long nowNanos) {
        final LinkSession gen = new LinkSession(0, 0, spec.sendKey(), spec.recvKey());
        gen.startNanos = spec.sessionStartNanos();
        return new FspSession(spec.remote(), gen, spec.keyEpoch(), spec.datagramTtl(), nowNanos);
    }

    FspSession(final NodeAddr remote, final LinkSession current, final boolean keyEpoch, final int ttl,
               final long nowNanos) {
        this.remote = remote;
        this.remoteHi = remote.hi();
        this.remoteLo = remote.lo();
        this.ttl = ttl;
        this.current = current;
        this.kFlag = keyEpoch ? FspFlags.K : 0;
        LAST_DATA.setOpaque(this, nowNanos);
        publish();
    }

    // ---- writer side (the owning worker) ----

    void onSent(final long nowNanos, final int ipv6Bytes) {
        LAST_DATA.setOpaque(this, nowNanos);
        PACKETS_OUT.setOpaque(this, (long) PACKETS_OUT.getOpaque(this) + 1);
        BYTES_OUT.setOpaque(this, (long) BYTES_OUT.getOpaque(this) + ipv6Bytes);
        SEND_COUNTER.setOpaque(this, current.sendCounter);
    }

    void onReceived(final long nowNanos, final int ipv6Bytes) {
        LAST_DATA.setOpaque(this, nowNanos);
        PACKETS_IN.setOpaque(this, (long) PACKETS_IN.getOpaque(this) + 1);
        BYTES_IN.setOpaque(this, (long) BYTES_IN.getOpaque(this) + ipv6Bytes);
    }

    /**
     * Any authenticated message (the session MMP receiver state, routing-session §6.3).
     *
     * @param counter     its FSP counter
     * @param current     whether it was opened with the current generation (only those move highest_counter)
     * @param timestampMs its inner timestamp (u32)
     * @param bytes       its FSP message length
     * @param ce          whether its FMP frame carried CE
     */
    void onMessageIn(final long counter, final boolean current, final long timestampMs, final int bytes,
                     final boolean ce, final long nowNanos) {
        MESSAGES_IN.setOpaque(this, (long) MESSAGES_IN.getOpaque(this) + 1);
        MESSAGE_BYTES_IN.setOpaque(this, (long) MESSAGE_BYTES_IN.getOpaque(this) + bytes);
        if (current && counter > (long) HIGHEST_IN.getOpaque(this)) {
            HIGHEST_IN.setOpaque(this, counter);
        }
        PEER_TS.setOpaque(this, timestampMs);
        PEER_TS_NANOS.setOpaque(this, nowNanos);
        if (ce) {
            CE_IN.setOpaque(this, (long) CE_IN.getOpaque(this) + 1);
        }
        if (current) {
            mmp.onFrame(counter, timestampMs, ce, nowNanos);
        }
    }

    void onDropIn() {
        DROPS_IN.setOpaque(this, (long) DROPS_IN.getOpaque(this) + 1);
    }

    /** Publishes the generation figures (after install and cutover, and per message sent). */
    void publish() {
        K_BIT.setOpaque(this, kFlag != 0);
        SEND_COUNTER.setOpaque(this, current.sendCounter);
        if ((long) GEN_START.getOpaque(this) != current.startNanos) {
            GEN_START.setOpaque(this, current.startNanos);
            // A new generation counts from 0 on the wire: the receiver's highest counter restarts with it.
            HIGHEST_IN.setOpaque(this, -1L);
        }
    }

    /** Wipes every generation's keys. */
    void wipe() {
        current.wipe();
        if (pending != null) {
            pending.wipe();
        }
        if (previous != null) {
            previous.wipe();
        }
    }

    // ---- reader side (any thread) ----

    @Override
    public long lastDataNanos() {
        return (long) LAST_DATA.getOpaque(this);
    }

    @Override
    public long sendCounter() {
        return (long) SEND_COUNTER.getOpaque(this);
    }

    @Override
    public boolean keyEpoch() {
        return (boolean) K_BIT.getOpaque(this);
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
    public long packetsIn() {
        return (long) PACKETS_IN.getOpaque(this);
    }

    @Override
    public long bytesIn() {
        return (long) BYTES_IN.getOpaque(this);
    }

    // The three below read worker-owned fields racily: each is a single int or reference, so a reader sees some
    // recent value, which is all a status display needs.

    @Override
    public int coordsWarmupRemaining() {
        return warmupRemaining;
    }

    @Override
    public int pathMtu() {
        return pathMtu;
    }

    @Override
    public boolean draining() {
        return previous != null;
    }

    @Override
    public long messagesIn() {
        return (long) MESSAGES_IN.getOpaque(this);
    }

    @Override
    public long messageBytesIn() {
        return (long) MESSAGE_BYTES_IN.getOpaque(this);
    }

    @Override
    public long highestCounterIn() {
        return (long) HIGHEST_IN.getOpaque(this);
    }

    @Override
    public long peerTimestampMs() {
        return (long) PEER_TS.getOpaque(this);
    }

    @Override
    public long peerTimestampNanos() {
        return (long) PEER_TS_NANOS.getOpaque(this);
    }

    @Override
    public MmpReceiver receiver() {
        return mmp;
    }

    @Override
    public long ceCount() {
        return (long) CE_IN.getOpaque(this);
    }

    @Override
    public long generationStartNanos() {
        return (long) GEN_START.getOpaque(this);
    }

    @Override
    public long dropsIn() {
        return (long) DROPS_IN.getOpaque(this);
    }
}
