package net.fips.control.session;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.Coords;
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
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionMessageType;
import net.fips.dataplane.wire.SessionMsg3;
import net.fips.dataplane.wire.SessionSetup;
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
    private static final int PATH_MTU_START = 0xFFFF;
    private static final long NANOS_PER_SEC = 1_000_000_000L;

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

    private static final class Entry {
        final NodeAddr remote;
        SessionState state;
        boolean initiator;
        HandshakeState hs;
        PeerIdentity peer;
        // handshake resend
        byte[] payload;
        int resendCount;
        long nextResend;
        long lastActivity;
        // the msg1 that created a responder entry; the msg2 / msg3 of an initiator entry (msg3 loss recovery)
        byte[] msg1;
        byte[] ackHs;
        byte[] msg3;
        // established
        int warmup;
        long lastData;
        long lastWarmupSent = Long.MIN_VALUE;
        boolean keyEpoch;
        long sessionStart;
        long rekeyDue;
        long sendCounter;
        // rekey as initiator
        HandshakeState rekeyHs;
        byte[] rekeySetup;
        long rekeyStarted;
        int rekeyResends;
        long rekeyNextResend;
        // rekey as responder
        HandshakeState rekeyRespHs;
        byte[] rekeyMsg1;
        byte[] rekeyAck;
        long peerRekeyAt = Long.MIN_VALUE;
        // pending generation
        boolean pending;
        long cutoverAt = Long.MAX_VALUE;
        byte[] pendingAckHs;
        byte[] pendingMsg3;
        boolean pendingConfirmed;
        int msg3Resends;
        long msg3NextResend;
        long previousExpires;

        Entry(final NodeAddr remote) {
            this.remote = remote;
        }
    }

    private final SessionConfig config;
    private final NodeIdentity identity;
    private final byte[] startupEpoch;
    private final SessionHost host;
    private final IdentityCache identities;
    private final SessionListener listener;
    private final EphemeralSource ephemerals;
    private final Random random;

    private final long[] counters = new long[SessionCounter.values().length];
    private final HashMap<NodeAddr, Entry> sessions = new HashMap<>();
    private final LinkedHashMap<NodeAddr, ArrayDeque<byte[]>> queued = new LinkedHashMap<>();

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
        this.config = Objects.requireNonNull(config, "config");
        this.identity = Objects.requireNonNull(identity, "identity");
        if (startupEpoch == null || startupEpoch.length != HandshakeState.EPOCH_BYTES) {
            throw new IllegalArgumentException("startup epoch must be 8 bytes");
        }
        this.startupEpoch = startupEpoch.clone();
        this.host = Objects.requireNonNull(host, "host");
        this.identities = Objects.requireNonNull(identities, "identities");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.ephemerals = Objects.requireNonNull(ephemerals, "ephemerals");
        this.random = Objects.requireNonNull(random, "random");
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
        final Entry e = sessions.get(dest);
        if (e != null) {
            if (e.state == SessionState.ESTABLISHED) {
                return SendResult.ESTABLISHED;
            }
            return enqueue(dest, packet) ? SendResult.QUEUED : SendResult.DROPPED;
        }
        if (identities.lookup(dest, nowNanos) == null) {
            return SendResult.NO_IDENTITY;
        }
        final InitiateResult r = initiate(dest, nowNanos);
        if (r == InitiateResult.NO_IDENTITY || r == InitiateResult.FAILED) {
            return SendResult.NO_IDENTITY;
        }
        if (!enqueue(dest, packet)) {
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
        if (sessions.containsKey(dest)) {
            return InitiateResult.ALREADY_EXISTS;
        }
        final IdentityCache.Entry id = identities.lookup(dest, nowNanos);
        if (id == null) {
            return InitiateResult.NO_IDENTITY;
        }
        final HandshakeState hs;
        final byte[] setup;
        try {
            hs = HandshakeState.initiator(HandshakeState.Pattern.XK, identity.secretKey(),
                    id.identity().compressedPublicKey(), startupEpoch, ephemerals);
            setup = new SessionSetup(0, host.selfCoords(), destCoords(dest), hs.writeMessage1()).encode();
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return InitiateResult.FAILED;
        }
        if (!route(dest, setup)) {
            listener.onLookupNeeded(dest, nowNanos);
            return InitiateResult.NO_ROUTE;
        }
        count(SessionCounter.SETUPS_SENT);
        final Entry e = new Entry(dest);
        e.state = SessionState.INITIATING;
        e.initiator = true;
        e.hs = hs;
        e.peer = id.identity();
        startResend(e, setup, nowNanos);
        sessions.put(dest, e);
        return InitiateResult.STARTED;
    }

    /**
     * A verified LookupResponse arrived for {@code target}: retry the handshake when packets are queued and no entry
     * exists, and restart the coordinate warm-up of an established session.
     */
    public void onRouteFound(final NodeAddr target, final long nowNanos) {
        final Entry e = sessions.get(target);
        if (e == null) {
            if (queued.containsKey(target)) {
                initiate(target, nowNanos);
            }
        } else if (e.state == SessionState.ESTABLISHED) {
            e.warmup = config.warmupPackets();
            listener.onWarmupReset(target, e.warmup, nowNanos);
        }
    }

    /**
     * Discovery gave up on {@code target}: the queued packets are discarded (the caller answers them with ICMPv6
     * Destination Unreachable) unless a handshake is in progress.
     *
     * @return the discarded packets, oldest first (empty when none)
     */
    public List<byte[]> onUnreachable(final NodeAddr target, final long nowNanos) {
        if (sessions.containsKey(target)) {
            return List.of();
        }
        final ArrayDeque<byte[]> q = queued.remove(target);
        return q == null ? List.of() : new ArrayList<>(q);
    }

    /**
     * For the data plane's send path during warm-up: takes one unit of the coordinate warm-up counter.
     *
     * @return the coordinates to carry (ours ‖ the destination's cached one, or ours twice) or null when the
     *     counter is 0 or there is no established session
     */
    public FspCpCoords takeWarmupCoords(final NodeAddr remote) {
        final Entry e = sessions.get(remote);
        if (e == null || e.state != SessionState.ESTABLISHED || e.warmup <= 0) {
            return null;
        }
        e.warmup--;
        return new FspCpCoords(host.selfCoords(), destCoords(remote));
    }

    /** A DataPacket was sent to or received from {@code remote}: the session is not idle. */
    public void noteDataActivity(final NodeAddr remote, final long nowNanos) {
        final Entry e = sessions.get(remote);
        if (e != null && e.state == SessionState.ESTABLISHED) {
            e.lastData = nowNanos;
        }
    }

    /** The data plane's current send counter for {@code remote} (drives the message-count rekey trigger). */
    public void noteSendCounter(final NodeAddr remote, final long counter) {
        final Entry e = sessions.get(remote);
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
        final Entry e = sessions.remove(remote);
        discardQueue(remote);
        if (e != null) {
            listener.onClosed(remote, CloseReason.REMOVED, nowNanos);
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
            count(SessionCounter.MALFORMED);
            return true;
        }
        try {
            return switch (msg[0] & 0x0F) {
                case FspPrefix.PHASE_MSG1 -> {
                    onSetup(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_MSG2 -> {
                    onAck(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_MSG3 -> {
                    onMsg3(src, msg, nowNanos);
                    yield true;
                }
                case FspPrefix.PHASE_ESTABLISHED -> {
                    if ((msg[1] & FspFlags.U) != 0) {
                        onErrorSignal(msg, nowNanos);
                        yield true;
                    }
                    count(SessionCounter.ENCRYPTED_NOT_HANDLED);
                    yield false;
                }
                default -> {
                    count(SessionCounter.MALFORMED);
                    yield true;
                }
            };
        } catch (final RuntimeException ex) {
            // Defensive: codecs report errors as values; nothing here should throw on bad input.
            count(SessionCounter.INTERNAL_ERROR);
            return true;
        }
    }

    /**
     * A decrypted inner plaintext ({@code ts u32 ‖ msg_type ‖ inner_flags ‖ body}) of an established session that
     * the data plane passes up. DataPacket counts as activity; PathMtuNotification lowers the path MTU; CoordsWarmup
     * is ignored; MMP reports are not handled here (counted as ignored).
     */
    public void onInnerMessage(final NodeAddr remote, final byte[] plaintext, final long nowNanos) {
        count(SessionCounter.INNER_MESSAGES);
        try {
            innerMessage(remote, plaintext, nowNanos);
        } catch (final RuntimeException ex) {
            count(SessionCounter.INTERNAL_ERROR);
        }
    }

    private void innerMessage(final NodeAddr remote, final byte[] plaintext, final long nowNanos) {
        final FspInnerHeader h = new FspInnerHeader();
        if (plaintext == null || !(h.wrap(plaintext, 0, plaintext.length) instanceof WireResult.Ok)) {
            count(SessionCounter.MALFORMED);
            return;
        }
        final SessionMessageType t = SessionMessageType.fromCode(h.msgType());
        if (t == SessionMessageType.DATA_PACKET) {
            noteDataActivity(remote, nowNanos);
        } else if (t == SessionMessageType.PATH_MTU_NOTIFICATION) {
            final WireResult<PathMtuNotification> r = PathMtuNotification.decode(plaintext, (int) h.bodyOffset(),
                    (int) h.bodyLength());
            if (r instanceof WireResult.Ok<PathMtuNotification>(final PathMtuNotification n)) {
                if (sessions.containsKey(remote)) {
                    listener.onPathMtu(remote, n.pathMtu(), nowNanos);
                }
            } else {
                count(SessionCounter.MALFORMED);
            }
        } else if (t != SessionMessageType.COORDS_WARMUP) {
            count(SessionCounter.INNER_IGNORED);
        }
    }

    private void onSetup(final NodeAddr src, final byte[] msg, final long now) {
        count(SessionCounter.SETUPS_RECEIVED);
        if (!(SessionSetup.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionSetup>(final SessionSetup s))) {
            count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg1 = s.handshake();
        if (msg1.length != SessionSetup.XK_SIZE) {
            count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final Entry existing = sessions.get(src);
        if (existing != null) {
            switch (existing.state) {
                case INITIATING -> {
                    if (host.self().compareTo(src) < 0) {
                        count(SessionCounter.SIMULTANEOUS_KEPT_INITIATOR);
                        return;
                    }
                }
                case AWAITING_MSG3 -> {
                    if (Arrays.equals(msg1, existing.msg1)) {
                        count(SessionCounter.DUPLICATE_SETUP_ACK_RESENT);
                        route(src, existing.payload);
                        return;
                    }
                }
                case ESTABLISHED -> {
                    if (existing.msg1 != null && Arrays.equals(msg1, existing.msg1)) {
                        count(SessionCounter.DUPLICATE_SETUP_IGNORED);
                        return;
                    }
                    if (config.rekeyEnabled()) {
                        rekeyRespond(existing, src, s, msg1, now);
                        return;
                    }
                }
            }
        }
        final Answer answer = answerSetup(src, s, msg1);
        if (answer == null) {
            return;
        }
        final HandshakeState hs = answer.hs();
        final byte[] ack = answer.ack();
        count(SessionCounter.ACKS_SENT);
        host.cacheCoords(src, s.srcCoords());
        if (existing != null) {
            sessions.remove(src);
            if (existing.state == SessionState.INITIATING) {
                count(SessionCounter.SIMULTANEOUS_BECAME_RESPONDER);
                listener.onClosed(src, CloseReason.SIMULTANEOUS_OPEN, now);
            } else {
                listener.onClosed(src, CloseReason.REPLACED, now);
            }
        }
        final Entry e = new Entry(src);
        e.state = SessionState.AWAITING_MSG3;
        e.hs = hs;
        e.msg1 = msg1;
        startResend(e, ack, now);
        sessions.put(src, e);
    }

    private void onAck(final NodeAddr src, final byte[] msg, final long now) {
        count(SessionCounter.ACKS_RECEIVED);
        if (!(SessionAck.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionAck>(final SessionAck a))) {
            count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg2 = a.handshake();
        if (msg2.length != SessionAck.XK_SIZE) {
            count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final Entry e = sessions.get(src);
        if (e == null) {
            count(SessionCounter.ACK_UNKNOWN_SESSION);
            return;
        }
        if (e.state == SessionState.ESTABLISHED) {
            if (e.rekeyHs != null && rekeyAck(e, src, msg2, now)) {
                return;
            }
            if (e.msg3 != null && Arrays.equals(msg2, e.ackHs)) {
                count(SessionCounter.MSG3_RESENT);
                route(src, e.msg3);
                return;
            }
            if (e.pendingMsg3 != null && Arrays.equals(msg2, e.pendingAckHs)) {
                count(SessionCounter.MSG3_RESENT);
                route(src, e.pendingMsg3);
                return;
            }
            count(SessionCounter.BAD_STATE);
            return;
        }
        if (e.state != SessionState.INITIATING) {
            count(SessionCounter.BAD_STATE);
            return;
        }
        final byte[] msg3;
        final HandshakeResult result;
        try {
            e.hs.readMessage2(msg2);
            msg3 = new SessionMsg3(0, e.hs.writeMessage3()).encode();
            result = e.hs.finish();
        } catch (final NoiseException | RuntimeException ex) {
            // The read is all-or-nothing, so a forged or stale Ack leaves the attempt intact (the reference
            // discards it; §10.15).
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        if (route(src, msg3)) {
            count(SessionCounter.MSG3_SENT);
        }
        e.hs = null;
        e.ackHs = msg2;
        e.msg3 = msg3;
        host.cacheCoords(src, a.srcCoords());
        establish(e, result, now);
    }

    private void onMsg3(final NodeAddr src, final byte[] msg, final long now) {
        count(SessionCounter.MSG3_RECEIVED);
        if (!(SessionMsg3.decode(msg, 0, msg.length) instanceof WireResult.Ok<SessionMsg3>(final SessionMsg3 m))) {
            count(SessionCounter.MALFORMED);
            return;
        }
        final byte[] msg3 = m.handshake();
        if (msg3.length != SessionMsg3.XK_SIZE) {
            count(SessionCounter.BAD_HANDSHAKE_LENGTH);
            return;
        }
        final Entry e = sessions.get(src);
        if (e == null) {
            count(SessionCounter.MSG3_UNKNOWN_SESSION);
            return;
        }
        if (e.state == SessionState.ESTABLISHED && e.rekeyRespHs != null) {
            rekeyMsg3(e, src, msg3, now);
            return;
        }
        if (e.state != SessionState.AWAITING_MSG3) {
            count(SessionCounter.BAD_STATE);
            return;
        }
        try {
            e.hs.readMessage3(msg3);
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        final PeerIdentity peer = boundIdentity(e.hs.remoteStatic(), src);
        final HandshakeResult result;
        try {
            result = peer == null ? null : e.hs.finish();
        } catch (final NoiseException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        if (peer == null) {
            sessions.remove(src);
            discardQueue(src);
            listener.onClosed(src, CloseReason.IDENTITY_MISMATCH, now);
            return;
        }
        identities.register(src, peer, now);
        e.peer = peer;
        e.hs = null;
        establish(e, result, now);
    }

    /** §10.3: the key the initiator proved must be the one its src_addr is derived from. */
    private PeerIdentity boundIdentity(final byte[] remoteStatic, final NodeAddr src) {
        try {
            final PeerIdentity p = PeerIdentity.fromCompressed(remoteStatic);
            if (p.nodeAddr().equals(src)) {
                return p;
            }
        } catch (final IdentityFormatException ex) {
            // counted below
        }
        count(SessionCounter.IDENTITY_MISMATCH);
        return null;
    }

    private void establish(final Entry e, final HandshakeResult r, final long now) {
        e.state = SessionState.ESTABLISHED;
        e.initiator = r.role() == HandshakeState.Role.INITIATOR;
        e.payload = null;
        e.resendCount = 0;
        e.warmup = config.warmupPackets();
        e.lastData = now;
        e.lastActivity = now;
        e.keyEpoch = false;
        e.sessionStart = now;
        e.rekeyDue = now + rekeyInterval();
        e.sendCounter = 0;
        count(SessionCounter.ESTABLISHED);
        listener.onEstablished(new SessionKeys(e.remote, r.remoteStatic(), e.initiator, r.sendKey(), r.recvKey(),
                false, r.remoteEpoch()), now);
        final ArrayDeque<byte[]> q = queued.remove(e.remote);
        if (q != null && !q.isEmpty()) {
            listener.onFlush(e.remote, new ArrayList<>(q), now);
        }
    }

    private void onErrorSignal(final byte[] msg, final long now) {
        count(SessionCounter.ERROR_SIGNALS);
        final WireResult<FspErrorSignal> r = FspErrorSignal.decode(MemorySegment.ofArray(msg), 0, msg.length);
        if (!(r instanceof WireResult.Ok<FspErrorSignal>(final FspErrorSignal sig))) {
            count(SessionCounter.MALFORMED);
            return;
        }
        switch (sig) {
            case CoordsRequired c -> {
                warmupReaction(c.destAddr(), now);
                if (identities.contains(c.destAddr())) {
                    listener.onLookupNeeded(c.destAddr(), now);
                }
                resetWarmup(c.destAddr(), now);
            }
            case PathBroken p -> {
                warmupReaction(p.destAddr(), now);
                host.forgetCoords(p.destAddr());
                if (identities.contains(p.destAddr())) {
                    listener.onLookupNeeded(p.destAddr(), now);
                }
                resetWarmup(p.destAddr(), now);
            }
            case MtuExceeded m -> listener.onPathMtu(m.destAddr(), m.mtu(), now);
        }
    }

    private void warmupReaction(final NodeAddr dest, final long now) {
        final Entry e = sessions.get(dest);
        if (e == null || e.state != SessionState.ESTABLISHED) {
            return;
        }
        if (e.lastWarmupSent != Long.MIN_VALUE && now - e.lastWarmupSent < config.coordsResponseIntervalNanos()) {
            count(SessionCounter.WARMUPS_RATE_LIMITED);
            return;
        }
        e.lastWarmupSent = now;
        count(SessionCounter.WARMUPS_REQUESTED);
        listener.onCoordsWarmupNeeded(dest, now);
    }

    private void resetWarmup(final NodeAddr dest, final long now) {
        final Entry e = sessions.get(dest);
        if (e != null && e.state == SessionState.ESTABLISHED) {
            e.warmup = config.warmupPackets();
            listener.onWarmupReset(dest, e.warmup, now);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Rekey (§5.7)

    private long rekeyInterval() {
        // whole seconds, uniform in [-j, +j], as the reference draws it
        final int j = (int) (config.rekeyJitterNanos() / NANOS_PER_SEC);
        final long jitterSecs = j == 0 ? 0 : random.nextInt(2 * j + 1) - j;
        return config.rekeyAfterNanos() + jitterSecs * NANOS_PER_SEC;
    }

    private void rekeyStart(final Entry e, final long now) {
        if (e.peer == null) {
            return;
        }
        final HandshakeState hs;
        final byte[] setup;
        try {
            hs = HandshakeState.initiator(HandshakeState.Pattern.XK, identity.secretKey(),
                    e.peer.compressedPublicKey(), startupEpoch, ephemerals);
            setup = new SessionSetup(0, host.selfCoords(), destCoords(e.remote), hs.writeMessage1()).encode();
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        if (!route(e.remote, setup)) {
            return;
        }
        count(SessionCounter.REKEYS_STARTED);
        count(SessionCounter.SETUPS_SENT);
        e.rekeyHs = hs;
        e.rekeySetup = setup;
        e.rekeyStarted = now;
        e.rekeyResends = 0;
        e.rekeyNextResend = now + config.resendBaseNanos();
    }

    private void rekeyRespond(final Entry e, final NodeAddr src, final SessionSetup s, final byte[] msg1,
            final long now) {
        if (e.rekeyRespHs != null && Arrays.equals(msg1, e.rekeyMsg1)) {
            count(SessionCounter.DUPLICATE_SETUP_ACK_RESENT);
            route(src, e.rekeyAck);
            return;
        }
        if (e.rekeyHs != null) {
            if (host.self().compareTo(src) < 0) {
                count(SessionCounter.SIMULTANEOUS_KEPT_INITIATOR);
                return;
            }
            e.rekeyHs = null;
            e.rekeySetup = null;
            count(SessionCounter.SIMULTANEOUS_BECAME_RESPONDER);
        }
        if (e.pending) {
            count(SessionCounter.BAD_STATE);
            return;
        }
        final Answer answer = answerSetup(src, s, msg1);
        if (answer == null) {
            return;
        }
        final HandshakeState hs = answer.hs();
        final byte[] ack = answer.ack();
        count(SessionCounter.REKEYS_ANSWERED);
        count(SessionCounter.ACKS_SENT);
        e.rekeyRespHs = hs;
        e.rekeyMsg1 = msg1;
        e.rekeyAck = ack;
        e.peerRekeyAt = now;
    }

    /** @return true when the Ack completed our rekey handshake */
    private boolean rekeyAck(final Entry e, final NodeAddr src, final byte[] msg2, final long now) {
        final byte[] msg3;
        final HandshakeResult r;
        try {
            e.rekeyHs.readMessage2(msg2);
            msg3 = new SessionMsg3(0, e.rekeyHs.writeMessage3()).encode();
            r = e.rekeyHs.finish();
        } catch (final NoiseException | RuntimeException ex) {
            return false;
        }
        if (route(src, msg3)) {
            count(SessionCounter.MSG3_SENT);
        }
        e.rekeyHs = null;
        e.rekeySetup = null;
        e.pendingAckHs = msg2;
        e.pendingMsg3 = msg3;
        e.pendingConfirmed = false;
        e.msg3Resends = 0;
        e.msg3NextResend = now + config.resendBaseNanos();
        e.cutoverAt = now + config.rekeyCutoverNanos();
        setPending(e, r, now);
        return true;
    }

    private void rekeyMsg3(final Entry e, final NodeAddr src, final byte[] msg3, final long now) {
        try {
            e.rekeyRespHs.readMessage3(msg3);
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        final PeerIdentity peer = boundIdentity(e.rekeyRespHs.remoteStatic(), src);
        final HandshakeResult r;
        try {
            r = peer == null ? null : e.rekeyRespHs.finish();
        } catch (final NoiseException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return;
        }
        e.rekeyRespHs = null;
        e.rekeyAck = null;
        if (peer == null) {
            return;
        }
        e.rekeyMsg1 = null;
        e.cutoverAt = Long.MAX_VALUE;
        e.pendingConfirmed = true;
        setPending(e, r, now);
    }

    private void setPending(final Entry e, final HandshakeResult r, final long now) {
        e.pending = true;
        count(SessionCounter.REKEYS_COMPLETED);
        listener.onRekeyPending(new SessionKeys(e.remote, r.remoteStatic(), r.role() == HandshakeState.Role.INITIATOR,
                r.sendKey(), r.recvKey(), !e.keyEpoch, r.remoteEpoch()), now);
    }

    /**
     * The data plane authenticated an inbound frame from {@code remote} with the pending key generation: promote
     * it now (and stop re-sending the rekey msg3). Also call it for frames on the new current keys while a rekey
     * msg3 is still unconfirmed.
     */
    public void onPendingKeysAuthenticated(final NodeAddr remote, final long nowNanos) {
        final Entry e = sessions.get(remote);
        if (e == null || e.state != SessionState.ESTABLISHED) {
            return;
        }
        e.pendingConfirmed = true;
        e.pendingMsg3 = null;
        if (e.pending) {
            cutover(e, nowNanos);
        }
    }

    /** The data plane authenticated an inbound frame with the previous generation: extend its drain. */
    public void onPreviousKeysUsed(final NodeAddr remote, final long nowNanos) {
        final Entry e = sessions.get(remote);
        if (e != null && e.previousExpires != 0) {
            e.previousExpires = Math.max(e.previousExpires, nowNanos + config.rekeyDrainNanos());
        }
    }

    private void cutover(final Entry e, final long now) {
        e.pending = false;
        e.cutoverAt = Long.MAX_VALUE;
        e.keyEpoch = !e.keyEpoch;
        e.sessionStart = now;
        e.rekeyDue = now + rekeyInterval();
        e.sendCounter = 0;
        e.previousExpires = now + config.rekeyDrainNanos();
        count(SessionCounter.REKEY_CUTOVERS);
        listener.onRekeyCutover(e.remote, now);
    }

    private void rekeyTick(final Entry e, final long now) {
        if (e.previousExpires != 0 && now >= e.previousExpires) {
            e.previousExpires = 0;
            listener.onPreviousKeysExpired(e.remote, now);
        }
        if (e.pending && now >= e.cutoverAt) {
            cutover(e, now);
        }
        if (e.pendingMsg3 != null && !e.pendingConfirmed && now >= e.msg3NextResend) {
            if (e.msg3Resends >= config.maxResends()) {
                e.pendingMsg3 = null;
                count(SessionCounter.REKEYS_ABANDONED);
            } else if (route(e.remote, e.pendingMsg3)) {
                e.msg3Resends++;
                e.msg3NextResend = now + (config.resendBaseNanos() << e.msg3Resends);
                count(SessionCounter.HANDSHAKE_RESENDS);
            }
        }
        if (e.rekeyHs != null) {
            if (now - e.rekeyStarted > config.handshakeTimeoutNanos()) {
                e.rekeyHs = null;
                e.rekeySetup = null;
                count(SessionCounter.REKEYS_ABANDONED);
            } else if (e.rekeyResends < config.maxResends() && now >= e.rekeyNextResend
                    && route(e.remote, e.rekeySetup)) {
                e.rekeyResends++;
                e.rekeyNextResend = now + (config.resendBaseNanos() << e.rekeyResends);
                count(SessionCounter.HANDSHAKE_RESENDS);
            }
        }
        if (e.rekeyRespHs != null && now - e.peerRekeyAt > config.handshakeTimeoutNanos()) {
            e.rekeyRespHs = null;
            e.rekeyAck = null;
            e.rekeyMsg1 = null;
            count(SessionCounter.REKEYS_ABANDONED);
        }
        final boolean busy = e.rekeyHs != null || e.rekeyRespHs != null || e.pending
                || (e.pendingMsg3 != null && !e.pendingConfirmed);
        final boolean dampened = e.peerRekeyAt != Long.MIN_VALUE && now - e.peerRekeyAt < config.rekeyDampeningNanos();
        if (!busy && !dampened && (now >= e.rekeyDue || e.sendCounter >= config.rekeyAfterMessages())) {
            rekeyStart(e, now);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Timers

    /** Runs resends, timeouts, idle expiry and rekey; call about once a second. */
    public void tick(final long nowNanos) {
        final Iterator<Map.Entry<NodeAddr, Entry>> it = sessions.entrySet().iterator();
        final List<NodeAddr> closedTimeout = new ArrayList<>();
        final List<NodeAddr> closedIdle = new ArrayList<>();
        while (it.hasNext()) {
            final Entry e = it.next().getValue();
            if (e.state != SessionState.ESTABLISHED) {
                if (nowNanos - e.lastActivity > config.handshakeTimeoutNanos()) {
                    it.remove();
                    closedTimeout.add(e.remote);
                    count(SessionCounter.HANDSHAKE_TIMEOUTS);
                } else if (e.payload != null && e.resendCount < config.maxResends() && nowNanos >= e.nextResend
                        && route(e.remote, e.payload)) {
                    e.resendCount++;
                    e.nextResend = nowNanos + (config.resendBaseNanos() << e.resendCount);
                    count(SessionCounter.HANDSHAKE_RESENDS);
                }
            } else if (config.idleTimeoutNanos() > 0 && nowNanos - e.lastData > config.idleTimeoutNanos()) {
                it.remove();
                closedIdle.add(e.remote);
                count(SessionCounter.IDLE_EXPIRED);
            } else if (config.rekeyEnabled()) {
                rekeyTick(e, nowNanos);
            }
        }
        for (final NodeAddr a : closedTimeout) {
            discardQueue(a);
            listener.onClosed(a, CloseReason.HANDSHAKE_TIMEOUT, nowNanos);
        }
        for (final NodeAddr a : closedIdle) {
            discardQueue(a);
            listener.onClosed(a, CloseReason.IDLE, nowNanos);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queries

    /** @return the state of the entry for {@code remote}, or null when there is none */
    public SessionState state(final NodeAddr remote) {
        final Entry e = sessions.get(remote);
        return e == null ? null : e.state;
    }

    /** @return a view of the entry for {@code remote}, or null */
    public SessionSnapshot snapshot(final NodeAddr remote) {
        final Entry e = sessions.get(remote);
        if (e == null) {
            return null;
        }
        final ArrayDeque<byte[]> q = queued.get(remote);
        return new SessionSnapshot(remote, e.state, e.initiator, e.warmup, e.resendCount, e.keyEpoch,
                e.rekeyHs != null || e.rekeyRespHs != null || e.pending, q == null ? 0 : q.size());
    }

    /** @return the remote addresses of every entry (any state), in no particular order */
    public List<NodeAddr> remotes() {
        return List.copyOf(sessions.keySet());
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
        final Entry e = sessions.get(remote);
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
        for (final Entry e : sessions.values()) {
            if (e.state == SessionState.ESTABLISHED) {
                n++;
            }
        }
        return n;
    }

    /** @return the number of session entries (any state) */
    public int sessionCount() {
        return sessions.size();
    }

    /** @return packets queued for {@code dest} */
    public int queuedCount(final NodeAddr dest) {
        final ArrayDeque<byte[]> q = queued.get(dest);
        return q == null ? 0 : q.size();
    }

    /** @return destinations with queued packets */
    public int queuedDestinations() {
        return queued.size();
    }

    /** @return packets queued for all destinations together (waiting for a session or a lookup) */
    public long queuedPackets() {
        long n = 0;
        for (final ArrayDeque<byte[]> q : queued.values()) {
            n += q.size();
        }
        return n;
    }

    /** @return the value of one counter */
    public long counter(final SessionCounter c) {
        return counters[c.ordinal()];
    }

    // ---------------------------------------------------------------------------------------------------------
    // Helpers

    private Coords destCoords(final NodeAddr dest) {
        final Coords c = host.coordsOf(dest);
        return c == null || c.isEmpty() ? host.selfCoords() : c;
    }

    /** A responder's reading of msg1 and the SessionAck that answers it. */
    private record Answer(HandshakeState hs, byte[] ack) {
    }

    /**
     * Reads a SessionSetup's msg1 as XK responder, writes msg2 into a SessionAck (our coordinates, the initiator's
     * copied back) and routes it to {@code src}; shared by a new session and a rekey.
     *
     * @return the handshake and the ack sent, or null when the handshake failed (counted) or the ack had no route
     */
    private Answer answerSetup(final NodeAddr src, final SessionSetup setup, final byte[] msg1) {
        final HandshakeState hs;
        final byte[] ack;
        try {
            hs = HandshakeState.responder(HandshakeState.Pattern.XK, identity.secretKey(), startupEpoch, ephemerals);
            hs.readMessage1(msg1);
            ack = new SessionAck(0, host.selfCoords(), setup.srcCoords(), hs.writeMessage2()).encode();
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return null;
        }
        return route(src, ack) ? new Answer(hs, ack) : null;
    }

    private boolean route(final NodeAddr dest, final byte[] fsp) {
        final boolean ok = host.route(new SessionDatagram(config.datagramTtl(), PATH_MTU_START, host.self(), dest,
                fsp));
        if (!ok) {
            count(SessionCounter.NO_ROUTE);
        }
        return ok;
    }

    private void startResend(final Entry e, final byte[] payload, final long now) {
        e.payload = payload;
        e.resendCount = 0;
        e.nextResend = now + config.resendBaseNanos();
        e.lastActivity = now;
    }

    private boolean enqueue(final NodeAddr dest, final byte[] packet) {
        ArrayDeque<byte[]> q = queued.get(dest);
        if (q == null) {
            if (queued.size() >= config.maxQueuedDestinations()) {
                count(SessionCounter.QUEUE_DESTINATIONS_FULL);
                return false;
            }
            q = new ArrayDeque<>();
            queued.put(dest, q);
        }
        if (q.size() >= config.queuePerDestination()) {
            q.pollFirst();
            count(SessionCounter.QUEUE_OVERFLOW);
        }
        q.addLast(packet);
        count(SessionCounter.PACKETS_QUEUED);
        return true;
    }

    private void discardQueue(final NodeAddr dest) {
        final ArrayDeque<byte[]> q = queued.remove(dest);
        if (q != null) {
            counters[SessionCounter.QUEUE_DISCARDED.ordinal()] += q.size();
        }
    }

    private void count(final SessionCounter c) {
        counters[c.ordinal()]++;
    }
}
