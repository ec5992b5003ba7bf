package net.fips.control.nat;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * Runs one {@link PunchAttempt} on the attempt's socket (discovery-gateway.md §2.5): listens from the call on, probes
 * from the hint's wall-clock start, and returns the source of the first probe or ack of this session, or fails with
 * {@code PunchTimeout} at the attempt's deadline. Blocking; one attempt per call, on the caller's thread.
 *
 * <p>After success it only sends the acks still due (ADR 0040) and no longer reads the socket, so a Noise msg1 that
 * the other side sends at once over its freshly adopted socket stays queued for our data plane once ours is adopted
 * too. Decisions take time from the injected clocks; the waits in between are real socket waits, each bounded by the
 * attempt's next deadline.
 */
public final class PunchRunner {
    /** The longest single socket wait, so a cancellation is seen within it. */
    static final long MAX_WAIT_MS = 100;

    private final LongSupplier nanoClock;
    private final LongSupplier wallMillis;

    /**
     * @param nanoClock  monotonic nanoseconds
     * @param wallMillis Unix ms (the hint's start is a wall-clock instant both sides agreed on)
     */
    public PunchRunner(final LongSupplier nanoClock, final LongSupplier wallMillis) {
        this.nanoClock = nanoClock;
        this.wallMillis = wallMillis;
    }

    /**
     * What an attempt ended with.
     *
     * @param remote     where the winning probe or ack came from
     * @param probesSent probes this side sent (rounds times targets)
     */
    public record Outcome(InetSocketAddress remote, long probesSent) {
    }

    /**
     * @param socket       the attempt's socket
     * @param sessionId    the offer's session id
     * @param targets      {@link PunchPlan#remotes}, non-empty
     * @param startAtMs    the hint's start, Unix ms
     * @param intervalMs   the hint's interval
     * @param durationMs   the hint's duration
     * @param timeoutNanos {@code attempt_timeout_secs}, from now
     * @param cancelled    polled between waits; true ends the attempt as {@code cancelled}
     * @return the winning remote address
     * @throws PunchFailure {@code PunchTimeout} at the deadline, {@code cancelled} when asked to stop
     */
    public Outcome run(final DatagramPort socket, final String sessionId, final List<InetSocketAddress> targets,
            final long startAtMs, final long intervalMs, final long durationMs, final long timeoutNanos,
            final BooleanSupplier cancelled) throws PunchFailure {
        final PunchAttempt attempt = new PunchAttempt(sessionId, targets, startAtMs, intervalMs, durationMs,
                timeoutNanos, nanoClock.getAsLong(), (packet, to) -> socket.send(packet, packet.length, to));
        final byte[] in = new byte[TraversalSocket.MAX_DATAGRAM];
        while (true) {
            final long now = nanoClock.getAsLong();
            attempt.poll(now, wallMillis.getAsLong());
            if (attempt.done()) {
                break;
            }
            if (cancelled.getAsBoolean() || socket.isClosed()) {
                throw new PunchFailure("cancelled", "punch of session " + sessionId + " stopped");
            }
            final long waitNanos = attempt.nextWakeNanos(now, wallMillis.getAsLong()) - now;
            final int waitMs = (int) Math.max(1, Math.min(MAX_WAIT_MS, ceilMillis(waitNanos)));
            if (attempt.state() != PunchAttempt.State.RUNNING) {
                sleepQuietly(waitMs);   // acks still due: the socket is left for the data plane
                continue;
            }
            final DatagramPort.Received r = socket.receive(in, waitMs);
            if (r != null) {
                attempt.onDatagram(in, r.length(), r.from(), nanoClock.getAsLong());
            }
        }
        if (attempt.state() == PunchAttempt.State.ESTABLISHED) {
            return new Outcome(attempt.remote(), attempt.probesSent());
        }
        throw new PunchFailure("PunchTimeout", "no probe or ack of session " + sessionId + " within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; " + attempt.probesSent() + " probes sent to "
                + targets);
    }

    private static long ceilMillis(final long nanos) {
        return nanos <= 0 ? 0 : (nanos + 999_999) / 1_000_000;
    }

    private static void sleepQuietly(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
