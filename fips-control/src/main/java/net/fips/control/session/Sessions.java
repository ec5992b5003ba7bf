package net.fips.control.session;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.FspErrorSignal;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;
import net.fips.dataplane.wire.PathMtuNotification;
import net.fips.dataplane.wire.SessionMessageType;
import net.fips.dataplane.wire.WireResult;

/**
 * The FSP session control plane of one node (spec routing-session §5.1-§5.7): one state machine per remote
 * node_addr driving the Noise XK handshake carried in SessionSetup / SessionAck / SessionMsg3, plus the queue of
 * packets waiting for a session, handshake resends and timeouts, idle expiry, session rekey and the reaction to
 * plaintext error signals.
 *
 * <ul>
 * <li><b>initiator</b>: {@link #send} (or {@link #initiate}) for a destination whose identity is cached builds an
 * XK initiator, sends a SessionSetup with our coordinate and the destination's cached one (our own when none is
 * cached) and stores {@link SessionState#INITIATING} with the encoded Setup for resends. On the SessionAck it sends
 * msg3, derives the keys and reports {@link SessionListener#onEstablished} and the queued packets. Improvement on
 * the reference (§10.2): msg3 is kept and re-sent whenever the responder repeats the Ack it already answered.</li>
 * <li><b>responder</b>: a SessionSetup is answered with a SessionAck carrying our coordinate and the initiator's,
 * and {@link SessionState#AWAITING_MSG3} stored with the Ack for resends. A repeated Setup (same msg1) re-sends
 * that Ack; a different msg1 (the initiator restarted, §10.15) replaces the attempt. On msg3 the initiator's key
 * must hash to the datagram's src_addr (§10.3) or the attempt is discarded; then the identity is registered.</li>
 * <li><b>simultaneous open</b>: the node with the smaller address stays initiator.</li>
 * <li><b>timers</b> ({@link #tick}): handshake resend at +1 s, then doubling, at most 5 times; handshakes idle for
 * more than 30 s are deleted with their queued packets; established sessions without a DataPacket for more than
 * 90 s are deleted.</li>
 * <li><b>rekey</b> (§5.7): see {@link #tick}, {@link #onPendingKeysAuthenticated}, {@link #onPreviousKeysUsed},
 * {@link #noteSendCounter}.</li>
 * </ul>
 *
 * <p>The jobs live in package-private parts that {@code Sessions} owns and wires together:
 * {@link SessionHandshakes} (the XK handshake), {@link SessionRekey} (§5.7), {@link PendingPackets} (the queue of
 * packets waiting for a session) and {@link SessionContext} (what they share: settings, the {@link FspSession}
 * table, counters, routing); this class keeps the public entry points, the timers, error signals and queries.
 * "Session" here always means an FSP end-to-end session; a link's Noise IK keys are its "key epochs"
 * ({@code net.fips.control.link}).
 *
 * <p>Per-packet encryption of established sessions is the data plane's: it gets the keys, seals and opens
 * DataPackets, and reports DataPacket activity ({@link #noteDataActivity}) and decrypted control messages
 * ({@link #onInnerMessage}). Single control thread; not thread-safe; starts no threads. Time is the caller's
 * {@code nowNanos}; ephemerals and rekey jitter come from the injected sources. Bad input is counted
 * ({@link SessionCounter}) and dropped, never thrown.
 *
 * <p>Deliberate differences from the reference (none changes a wire byte an honest Rust peer depends on):
 * <ul>
 * <li>A Noise read that fails (forged or stale Ack / msg3) leaves the entry as it was instead of deleting it,
 * because {@code HandshakeState} reads are all-or-nothing.</li>
 * <li>msg3 is re-sent on a repeated Ack (§10.2); the responder binds the msg3 key to src_addr (§10.3); a Setup
 * with a new msg1 replaces an {@code AWAITING_MSG3} attempt instead of getting the stale Ack (§10.15).</li>
 * <li>A repeat of the very Setup that created an established responder session is ignored (the reference would
 * treat it as a rekey or replace the session).</li>
 * <li>The initiator becomes established even when its msg3 could not be routed; the responder's Ack resends then
 * trigger msg3 resends.</li>
 * </ul>
 */
public final class Sessions {
    /**
     * A read-only view of one entry.
     *
     * @param remote         the peer's node_addr
     * @param state          the state
     * @param initiator      true when we initiated the current (or in-progress) handshake
     * @param warmupRemaining coordinate warm-up packets left
     * @param resendCount    handshake resends done (0 when established)
     * @param keyEpoch       the current K bit
     * @param rekeyInProgress a rekey handshake is running or a pending generation awaits cutover
     * @param queued         packets queued for this destination
     */
    public record SessionSnapshot(NodeAddr remote, SessionState state, boolean initiator, int warmupRemaining,
            int resendCount, boolean keyEpoch, boolean rekeyInProgress, int queued) {
    }

    private final SessionContext ctx;
    private final PendingPackets queue;
    private final SessionRekey rekey;
    private final SessionHandshakes handshakes;

    /**
     * @param config       settings ({@link SessionConfig#defaults()})
     * @param identity     our static identity (its secret is the Noise static)
     * @param startupEpoch our 8-byte startup epoch, sent encrypted in msg2 / msg3 (copied)
     * @param host         our address and coordinate, the coordinate cache and datagram routing
     * @param identities   the identity cache: read for initiation, written on msg3
     * @param listener     effects ({@link SessionListener#NONE} to ignore)
     * @param ephemerals   Noise ephemeral keys ({@link EphemeralSource#secureRandom()} in production)
     * @param random       rekey jitter
     */
    public Sessions(final SessionConfig config, final NodeIdentity identity, final byte[] startupEpoch,
            final SessionHost host, final IdentityCache identities, final SessionListener listener,
            final EphemeralSource ephemerals, final Random random) {
        this.ctx = new SessionContext(config, identity, startupEpoch, host, identities, listener, ephemerals,
                random);
        this.queue = new PendingPackets(ctx);
        this.rekey = new SessionRekey(ctx);
        this.handshakes = new SessionHandshakes(ctx, queue, rekey);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outbound

    /**
     * Offers an outbound packet (a service payload, e.g. a compressed IPv6 packet) for {@code dest}.
     *
     * @return {@link SendResult#ESTABLISHED} when the caller must send it through the data plane now; otherwise
     *     what happened to it (queued, initiated, lookup requested, no identity, dropped)
     */
    public SendResult send(final NodeAddr dest, final byte[] packet, final long nowNanos) {
        final FspSession e = ctx.session(dest);
        if (e != null) {
            if (e.state == SessionState.ESTABLISHED) {
                return SendResult.ESTABLISHED;
            }
            return queue.enqueue(dest, packet) ? SendResult.QUEUED : SendResult.DROPPED;
        }
        if (ctx.identities.lookup(dest, nowNanos) == null) {
            return SendResult.NO_IDENTITY;
        }
        final InitiateResult r = initiate(dest, nowNanos);
        if (r == InitiateResult.NO_IDENTITY || r == InitiateResult.FAILED) {
            return SendResult.NO_IDENTITY;
        }
        if (!queue.enqueue(dest, packet)) {
            return SendResult.DROPPED;
        }
        return r == InitiateResult.STARTED ? SendResult.INITIATED : SendResult.LOOKUP_REQUESTED;
    }

    /** Outcome of {@link #initiate}. */
    public enum InitiateResult {
        /** SessionSetup sent, entry stored as {@link SessionState#INITIATING}. */
        STARTED,
        /** An entry for the destination already exists; nothing done. */
        ALREADY_EXISTS,
        /** The destination's identity is not cached. */
        NO_IDENTITY,
        /** No route: nothing stored, a lookup was requested. */
        NO_ROUTE,
        /** The Noise initiator could not be built (invalid cached key). */
        FAILED
    }

    /**
     * Starts a session handshake to {@code dest} unless an entry exists (idempotent).
     *
     * @return what happened
     */
    public InitiateResult initiate(final NodeAddr dest, final long nowNanos) {
        return handshakes.initiate(dest, nowNanos);
    }

    /**
     * A verified LookupResponse arrived for {@code target}: retry the handshake when packets are queued and no entry
     * exists, and restart the coordinate warm-up of an established session.
     */
    public void onRouteFound(final NodeAddr target, final long nowNanos) {
        final FspSession e = ctx.session(target);
        if (e == null) {
            if (queue.has(target)) {
                initiate(target, nowNanos);
            }
        } else if (e.state == SessionState.ESTABLISHED) {
            e.warmup = ctx.config.warmupPackets();
            ctx.listener.onWarmupReset(target, e.warmup, nowNanos);
        }
    }

    /**
     * Discovery gave up on {@code target}: the queued packets are discarded (the caller answers them with ICMPv6
     * Destination Unreachable) unless a handshake is in progress.
     *
     * @return the discarded packets, oldest first (empty when none)
     */
    public List<byte[]> onUnreachable(final NodeAddr target, final long nowNanos) {
        if (ctx.hasSession(target)) {
            return List.of();
        }
        return queue.take(target);
    }

    /**
     * For the data plane's send path during warm-up: takes one unit of the coordinate warm-up counter.
     *
     * @return the coordinates to carry (ours ‖ the destination's cached one, or ours twice) or null when the
     *     counter is 0 or there is no established session
     */
    public FspCpCoords takeWarmupCoords(final NodeAddr remote) {
        final FspSession e = ctx.session(remote);
        if (e == null || e.state != SessionState.ESTABLISHED || e.warmup <= 0) {
            return null;
        }
        e.warmup--;
        return new FspCpCoords(ctx.host.selfCoords(), ctx.destCoords(remote));
    }

    /** A DataPacket was sent to or received from {@code remote}: the session is not idle. */
    public void noteDataActivity(final NodeAddr remote, final long nowNanos) {
        final FspSession e = ctx.session(remote);
        if (e != null && e.state == SessionState.ESTABLISHED) {
            e.lastData = nowNanos;
        }
    }

    /** The data plane's current send counter for {@code remote} (drives the message-count rekey trigger). */
    public void noteSendCounter(final NodeAddr remote, final long counter) {
        final FspSession e = ctx.session(remote);
        if (e != null && e.state == SessionState.ESTABLISHED) {
            e.sendCounter = counter;
        }
    }

    /**
     * Deletes the entry for {@code remote} and its queued packets (direct peer removed or restarted).
     *
     * @return true when an entry existed
     */
    public boolean remove(final NodeAddr remote, final long nowNanos) {
        final FspSession e = ctx.removeSession(remote);
        queue.discard(remote);
        if (e != null) {
            ctx.listener.onClosed(remote, CloseReason.REMOVED, nowNanos);
        }
        return e != null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Inbound

    /**
     * An FSP message (the payload of a SessionDatagram addressed to us) from {@code src}. Handshake carriers and
     * plaintext error signals are handled; encrypted phase-0 messages are counted and left to the data plane.
     *
     * @return true when the message was a handshake carrier or error signal (handled or dropped here)
     */
    public boolean onFspMessage(final NodeAddr src, final byte[] msg, final long nowNanos) {
        if (msg == null || msg.length < FspPrefix.SIZE) {
            ctx.count(SessionCounter.MALFORMED);
            return true;
        }
        try {
            return switch (msg[0] & 0x0F) {
                case FspPrefix.PHASE_MSG1 -> {
                    handshakes.onSetup(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_MSG2 -> {
                    handshakes.onAck(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_MSG3 -> {
                    handshakes.onMsg3(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_ESTABLISHED -> {
                    if ((msg[1] & FspFlags.U) != 0) {
                        onErrorSignal(msg, nowNanos);
                        yield true;
                    }
                    ctx.count(SessionCounter.ENCRYPTED_NOT_HANDLED);
                    yield false;
                }
                default -> {
                    ctx.count(SessionCounter.MALFORMED);
                    yield true;
                }
            };
        } catch (final RuntimeException ex) {
            // Defensive: codecs report errors as values; nothing here should throw on bad input.
            ctx.count(SessionCounter.INTERNAL_ERROR);
            return true;
        }
    }

    /**
     * A decrypted inner plaintext ({@code ts u32 ‖ msg_type ‖ inner_flags ‖ body}) of an established session that
     * the data plane passes up. DataPacket counts as activity; PathMtuNotification lowers the path MTU; CoordsWarmup
     * is ignored; MMP reports are not handled here (counted as ignored).
     */
    public void onInnerMessage(final NodeAddr remote, final byte[] plaintext, final long nowNanos) {
        ctx.count(SessionCounter.INNER_MESSAGES);
        try {
            innerMessage(remote, plaintext, nowNanos);
        } catch (final RuntimeException ex) {
            ctx.count(SessionCounter.INTERNAL_ERROR);
        }
    }

    private void innerMessage(final NodeAddr remote, final byte[] plaintext, final long nowNanos) {
        final FspInnerHeader h = new FspInnerHeader();
        if (plaintext == null || !(h.wrap(plaintext, 0, plaintext.length) instanceof WireResult.Ok)) {
            ctx.count(SessionCounter.MALFORMED);
            return;
        }
        final SessionMessageType t = SessionMessageType.fromCode(h.msgType());
        if (t == SessionMessageType.DATA_PACKET) {
            noteDataActivity(remote, nowNanos);
        } else if (t == SessionMessageType.PATH_MTU_NOTIFICATION) {
            final WireResult<PathMtuNotification> r = PathMtuNotification.decode(plaintext, (int) h.bodyOffset(),
                    (int) h.bodyLength());
            if (r instanceof WireResult.Ok<PathMtuNotification>(final PathMtuNotification n)) {
                if (ctx.hasSession(remote)) {
                    ctx.listener.onPathMtu(remote, n.pathMtu(), nowNanos);
                }
            } else {
                ctx.count(SessionCounter.MALFORMED);
            }
        } else if (t != SessionMessageType.COORDS_WARMUP) {
            ctx.count(SessionCounter.INNER_IGNORED);
        }
    }

    private void onErrorSignal(final byte[] msg, final long now) {
        ctx.count(SessionCounter.ERROR_SIGNALS);
        final WireResult<FspErrorSignal> r = FspErrorSignal.decode(MemorySegment.ofArray(msg), 0, msg.length);
        if (!(r instanceof WireResult.Ok<FspErrorSignal>(final FspErrorSignal sig))) {
            ctx.count(SessionCounter.MALFORMED);
            return;
        }
        switch (sig) {
            case CoordsRequired c -> {
                warmupReaction(c.destAddr(), now);
                if (ctx.identities.contains(c.destAddr())) {
                    ctx.listener.onLookupNeeded(c.destAddr(), now);
                }
                resetWarmup(c.destAddr(), now);
            }
            case PathBroken p -> {
                warmupReaction(p.destAddr(), now);
                ctx.host.forgetCoords(p.destAddr());
                if (ctx.identities.contains(p.destAddr())) {
                    ctx.listener.onLookupNeeded(p.destAddr(), now);
                }
                resetWarmup(p.destAddr(), now);
            }
            case MtuExceeded m -> ctx.listener.onPathMtu(m.destAddr(), m.mtu(), now);
        }
    }

    private void warmupReaction(final NodeAddr dest, final long now) {
        final FspSession e = ctx.session(dest);
        if (e == null || e.state != SessionState.ESTABLISHED) {
            return;
        }
        if (e.lastWarmupSent != Long.MIN_VALUE && now - e.lastWarmupSent < ctx.config.coordsResponseIntervalNanos()) {
            ctx.count(SessionCounter.WARMUPS_RATE_LIMITED);
            return;
        }
        e.lastWarmupSent = now;
        ctx.count(SessionCounter.WARMUPS_REQUESTED);
        ctx.listener.onCoordsWarmupNeeded(dest, now);
    }

    private void resetWarmup(final NodeAddr dest, final long now) {
        final FspSession e = ctx.session(dest);
        if (e != null && e.state == SessionState.ESTABLISHED) {
            e.warmup = ctx.config.warmupPackets();
            ctx.listener.onWarmupReset(dest, e.warmup, now);
        }
    }

    /**
     * The data plane authenticated an inbound frame from {@code remote} with the pending key generation: promote
     * it now (and stop re-sending the rekey msg3). Also call it for frames on the new current keys while a rekey
     * msg3 is still unconfirmed.
     */
    public void onPendingKeysAuthenticated(final NodeAddr remote, final long nowNanos) {
        final FspSession e = ctx.session(remote);
        if (e == null || e.state != SessionState.ESTABLISHED) {
            return;
        }
        rekey.onPendingKeysAuthenticated(e, nowNanos);
    }

    /** The data plane authenticated an inbound frame with the previous generation: extend its drain. */
    public void onPreviousKeysUsed(final NodeAddr remote, final long nowNanos) {
        final FspSession e = ctx.session(remote);
        if (e != null) {
            rekey.onPreviousKeysUsed(e, nowNanos);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Timers

    /** Runs resends, timeouts, idle expiry and rekey; call about once a second. */
    public void tick(final long nowNanos) {
        final Iterator<FspSession> it = ctx.sessionIterator();
        final List<NodeAddr> closedTimeout = new ArrayList<>();
        final List<NodeAddr> closedIdle = new ArrayList<>();
        while (it.hasNext()) {
            final FspSession e = it.next();
            if (e.state != SessionState.ESTABLISHED) {
                if (nowNanos - e.lastActivity > ctx.config.handshakeTimeoutNanos()) {
                    it.remove();
                    closedTimeout.add(e.remote);
                    ctx.count(SessionCounter.HANDSHAKE_TIMEOUTS);
                } else {
                    handshakes.tickResend(e, nowNanos);
                }
            } else if (ctx.config.idleTimeoutNanos() > 0 && nowNanos - e.lastData > ctx.config.idleTimeoutNanos()) {
                it.remove();
                closedIdle.add(e.remote);
                ctx.count(SessionCounter.IDLE_EXPIRED);
            } else if (ctx.config.rekeyEnabled()) {
                rekey.tick(e, nowNanos);
            }
        }
        for (final NodeAddr a : closedTimeout) {
            queue.discard(a);
            ctx.listener.onClosed(a, CloseReason.HANDSHAKE_TIMEOUT, nowNanos);
        }
        for (final NodeAddr a : closedIdle) {
            queue.discard(a);
            ctx.listener.onClosed(a, CloseReason.IDLE, nowNanos);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queries

    /** @return the state of the entry for {@code remote}, or null when there is none */
    public SessionState state(final NodeAddr remote) {
        final FspSession e = ctx.session(remote);
        return e == null ? null : e.state;
    }

    /** @return a view of the entry for {@code remote}, or null */
    public SessionSnapshot snapshot(final NodeAddr remote) {
        final FspSession e = ctx.session(remote);
        if (e == null) {
            return null;
        }
        return new SessionSnapshot(remote, e.state, e.initiator, e.warmup, e.resendCount, e.keyEpoch,
                e.rekeyInProgress(), queue.count(remote));
    }

    /** @return the remote addresses of every entry (any state), in no particular order */
    public List<NodeAddr> remotes() {
        return ctx.remotes();
    }

    /**
     * Facts show_sessions prints beyond {@link #snapshot}.
     *
     * @param sessionStartNanos when the current key generation started (0 while not established)
     * @param lastActivityNanos the last handshake activity or DataPacket
     * @param draining          a previous key generation is still accepted
     * @param npub              the remote's npub when its key is known, else null
     */
    public record SessionDetail(long sessionStartNanos, long lastActivityNanos, boolean draining, String npub) {
    }

    /** @return details of the entry for {@code remote}, or null */
    public SessionDetail detail(final NodeAddr remote) {
        final FspSession e = ctx.session(remote);
        if (e == null) {
            return null;
        }
        final long last = e.state == SessionState.ESTABLISHED ? Math.max(e.lastData, e.lastActivity) : e.lastActivity;
        return new SessionDetail(e.state == SessionState.ESTABLISHED ? e.sessionStart : 0, last,
                e.previousExpires != 0, e.peer == null ? null : e.peer.npub());
    }

    /** @return the number of established sessions */
    public int establishedCount() {
        int n = 0;
        for (final FspSession e : ctx.sessions()) {
            if (e.state == SessionState.ESTABLISHED) {
                n++;
            }
        }
        return n;
    }

    /** @return the number of session entries (any state) */
    public int sessionCount() {
        return ctx.sessionCount();
    }

    /** @return packets queued for {@code dest} */
    public int queuedCount(final NodeAddr dest) {
        return queue.count(dest);
    }

    /** @return destinations with queued packets */
    public int queuedDestinations() {
        return queue.destinations();
    }

    /** @return packets queued for all destinations together (waiting for a session or a lookup) */
    public long queuedPackets() {
        return queue.packets();
    }

    /** @return the value of one counter */
    public long counter(final SessionCounter c) {
        return ctx.counter(c);
    }

}
