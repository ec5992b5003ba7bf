package net.fips.control.nat;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One hole-punch attempt on one socket (discovery-gateway.md §2.5), as a state machine driven by its caller's clock:
 * {@link #poll} sends what is due, {@link #onDatagram} takes what the socket received. From the wall-clock start
 * of the hint until {@code durationMs} later it probes every target each {@code max(intervalMs, 20)} ms with a rising
 * sequence; from its creation it listens: a probe of this attempt is acked, and a probe or ack of this attempt ends
 * it successfully with the datagram's source address (which may be none of the targets: a peer-reflexive address
 * works). Without one by {@code timeoutNanos} after creation it times out.
 *
 * <p>Deliberate difference (ADR 0040): the first side to hear a probe acks three times, 50 ms apart, where the
 * reference acks once; a single lost ack otherwise leaves the other side timing out while this one adopts the socket.
 */
public final class PunchAttempt {

    /** Where an attempt stands. */
    public enum State {
        /** Probing and/or listening. */
        RUNNING,
        /** A probe or ack of this attempt arrived; {@link #remote()} says from where. */
        ESTABLISHED,
        /** The deadline passed with nothing heard. */
        TIMED_OUT
    }

    /** Where an attempt's datagrams go: the attempt's socket. */
    @FunctionalInterface
    public interface Sender {
        /**
         * @param packet the bytes
         * @param to     the destination
         */
        void send(byte[] packet, InetSocketAddress to);
    }

    /** The shortest probe interval, whatever the hint says. */
    public static final long MIN_INTERVAL_MS = 20;
    /** How often the first side to hear a probe acks it. */
    public static final int ACKS = 3;
    /** Between two of those acks. */
    public static final long ACK_SPACING_MS = 50;

    private final byte[] hash;
    private final List<InetSocketAddress> targets;
    private final long startAtWallMs;
    private final long durationNanos;
    private final long intervalNanos;
    private final long deadlineNanos;
    private final Sender sender;

    private State state = State.RUNNING;
    private InetSocketAddress remote;
    private long sequence;
    private boolean probing;
    private boolean probingOver;
    private long probingEndNanos;
    private long nextProbeNanos;
    private byte[] ack;
    private InetSocketAddress ackTo;
    private int acksLeft;
    private long nextAckNanos;
    private long probesSent;

    /**
     * @param sessionId      the attempt's session id (from the offer)
     * @param targets        the addresses to probe ({@link PunchPlan#remotes}), in order
     * @param startAtWallMs  the hint's start, Unix ms
     * @param intervalMs     the hint's interval
     * @param durationMs     the hint's duration
     * @param timeoutNanos   how long the attempt listens, from now ({@code attempt_timeout_secs})
     * @param nowNanos       now, monotonic
     * @param sender         the attempt's socket
     */
    public PunchAttempt(final String sessionId, final List<InetSocketAddress> targets, final long startAtWallMs,
            final long intervalMs, final long durationMs, final long timeoutNanos, final long nowNanos,
            final Sender sender) {
        this.hash = PunchPacket.sessionHash(sessionId);
        this.targets = List.copyOf(targets);
        this.startAtWallMs = startAtWallMs;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(intervalMs, MIN_INTERVAL_MS));
        this.durationNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(durationMs, 1));
        this.deadlineNanos = nowNanos + timeoutNanos;
        this.sender = sender;
    }

    /**
     * Sends what is due at this instant (probes in their rounds, pending acks) and times the attempt out at its
     * deadline. Call it at {@link #nextWakeNanos} or sooner.
     *
     * @param nowNanos  now, monotonic
     * @param nowWallMs now, Unix ms (the hint's start is a wall-clock instant both sides agreed on)
     * @return the state after it
     */
    public State poll(final long nowNanos, final long nowWallMs) {
        if (acksLeft > 0 && nowNanos - nextAckNanos >= 0) {
            sender.send(ack, ackTo);
            acksLeft--;
            nextAckNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(ACK_SPACING_MS);
        }
        if (state != State.RUNNING) {
            return state;
        }
        if (nowNanos - deadlineNanos >= 0) {
            state = State.TIMED_OUT;
            acksLeft = 0;
            return state;
        }
        if (!probing && !probingOver && nowWallMs >= startAtWallMs) {
            probing = true;
            probingEndNanos = nowNanos + durationNanos;
            nextProbeNanos = nowNanos;
        }
        if (probing && nowNanos - probingEndNanos >= 0) {
            probing = false;
            probingOver = true;
        }
        if (probing && nowNanos - nextProbeNanos >= 0) {
            final byte[] probe = new PunchPacket(false, sequence, hash).encode();
            for (final InetSocketAddress t : targets) {
                sender.send(probe, t);
                probesSent++;
            }
            sequence = (sequence + 1) & 0xffff_ffffL;
            nextProbeNanos = nowNanos + intervalNanos;
        }
        return state;
    }

    /**
     * Takes one datagram the attempt's socket received.
     *
     * @param datagram the bytes
     * @param length   how many
     * @param from     its source
     * @param nowNanos now, monotonic
     * @return true when it was a packet of this attempt (anything else is ignored)
     */
    public boolean onDatagram(final byte[] datagram, final int length, final InetSocketAddress from,
            final long nowNanos) {
        final PunchPacket p = PunchPacket.parse(datagram, length);
        if (p == null || !p.belongsTo(hash) || state == State.TIMED_OUT) {
            return false;
        }
        if (!p.ack() && state == State.RUNNING) {
            ack = p.toAck().encode();
            ackTo = from;
            acksLeft = ACKS;
            sender.send(ack, ackTo);
            acksLeft--;
            nextAckNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(ACK_SPACING_MS);
        }
        if (state == State.RUNNING) {
            state = State.ESTABLISHED;
            remote = from;
            probing = false;
            probingOver = true;
        }
        return true;
    }

    /** @return when {@link #poll} next has something to do (a probe round, an ack, the deadline, the start) */
    public long nextWakeNanos(final long nowNanos, final long nowWallMs) {
        long next = Long.MAX_VALUE;
        if (acksLeft > 0) {
            next = nextAckNanos;
        }
        if (state != State.RUNNING) {
            return next;
        }
        next = Math.min(next, deadlineNanos);
        if (probing) {
            next = Math.min(next, Math.min(nextProbeNanos, probingEndNanos));
        } else if (!probingOver) {
            next = Math.min(next, nowNanos + TimeUnit.MILLISECONDS.toNanos(Math.max(0, startAtWallMs - nowWallMs)));
        }
        return next;
    }

    /** @return whether anything is still to be sent or decided */
    public boolean done() {
        return state != State.RUNNING && acksLeft == 0;
    }

    /** @return the state */
    public State state() {
        return state;
    }

    /** @return where the successful packet came from, or null */
    public InetSocketAddress remote() {
        return remote;
    }

    /** @return the probes sent so far (rounds times targets) */
    public long probesSent() {
        return probesSent;
    }
}
