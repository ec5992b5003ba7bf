package net.fips.control.nat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrFormatException;
import net.fips.control.nostr.PunchHint;
import net.fips.control.nostr.ReplayCache;
import net.fips.control.nostr.SignalValidation;
import net.fips.control.nostr.TraversalAddress;
import net.fips.control.nostr.TraversalAnswer;
import net.fips.control.nostr.TraversalOffer;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The offer/answer state machines of NAT traversal (discovery-gateway.md §1.11, failure map §2.7) as control logic:
 * every decision runs on the caller's thread in {@link #connect} and {@link #tick}, on the injected wall clock; the
 * blocking parts of an attempt (socket + STUN, the punch) run on the injected executor and report back through a
 * queue that the next {@link #tick} drains. Signals arrive through {@link Signalling} on any thread and wait in the
 * same queue.
 *
 * <p>Initiator: one attempt per npub; an npub in cooldown ({@link FailureState}) is refused without a packet; fresh
 * socket and STUN (a STUN failure is not fatal), offer, wait up to {@code signal_ttl_secs} for the answer, validate
 * it, punch with our own hint, adopt. Every failure is recorded in {@link FailureState} and reported to the
 * {@link Listener}; nothing here retries (the node schedules retries, at the earliest when the cooldown ends).
 * Responder: silent on every failure; admission ({@code max_concurrent_incoming_offers}, and master's
 * {@code max_concurrent_offers_per_npub} per sender, §1.14), validation, the
 * duplicate-session election, the replay check, then socket + STUN, answer, punch with the hint it sent, adopt.
 * The wraps are not deleted afterwards (NIP-09; ADR 0058). Host candidates ({@code share_local_candidates})
 * come from the {@link NatIo} attempt; both sides plan their targets from their own and the peer's lists (§2.4).
 */
public final class TraversalCoordinator {
    /** What happened to an attempt, for the node (on the {@link #tick} thread). */
    public interface Listener {
        /**
         * @param npub        the peer
         * @param transportId the adopted transport the link is being dialled on
         * @param remote      the peer's punched address
         * @param initiator   whether we sent the offer
         */
        void established(String npub, int transportId, InetSocketAddress remote, boolean initiator);

        /**
         * An initiator's failure (responders fail silently).
         *
         * @param npub     the peer
         * @param reason   the reference's reason ({@code SignalTimeout}, {@code PunchTimeout}, a rejection, ...)
         * @param decision what {@link FailureState} made of it (streak, cooldown), or null for an adoption error
         *                 (not counted, as in the reference)
         */
        void failed(String npub, String reason, FailureState.Decision decision);
    }

    /** The outcome of {@link #connect}. */
    public enum Start {
        /** An attempt began. */
        STARTED,
        /** One is already running for this npub (the request is ignored, as in the reference). */
        IN_FLIGHT,
        /** The npub is in its failure cooldown: nothing is sent. */
        COOLING_DOWN
    }

    /**
     * The settings ({@code node.discovery.nostr.*}).
     *
     * @param signalTtlMs         {@code signal_ttl_secs} in ms
     * @param attemptTimeoutMs    {@code attempt_timeout_secs} in ms
     * @param punchStartDelayMs   {@code punch_start_delay_ms}
     * @param punchIntervalMs     {@code punch_interval_ms}
     * @param punchDurationMs     {@code punch_duration_ms}
     * @param maxIncomingOffers   {@code max_concurrent_incoming_offers}
     * @param maxOffersPerNpub    {@code max_concurrent_offers_per_npub} (master, §1.14): one sender's share of them
     */
    public record Settings(long signalTtlMs, long attemptTimeoutMs, long punchStartDelayMs, long punchIntervalMs,
            long punchDurationMs, int maxIncomingOffers, int maxOffersPerNpub) {
        /**
         * @param c {@code node.discovery.nostr}
         * @return its traversal settings
         */
        public static Settings of(final NostrConfig c) {
            return new Settings(c.signalTtlSecs() * 1000, c.attemptTimeoutSecs() * 1000, c.punchStartDelayMs(),
                    c.punchIntervalMs(), c.punchDurationMs(), (int) Math.min(Integer.MAX_VALUE,
                    c.maxConcurrentIncomingOffers()), (int) Math.min(Integer.MAX_VALUE,
                    c.maxConcurrentOffersPerNpub()));
        }
    }

    private enum Phase { GATHERING, AWAITING, PUNCHING }

    /** One initiator attempt (touched on the tick thread only, except {@code cancelled}). */
    private static final class Outbound {
        final String npub;
        Phase phase = Phase.GATHERING;
        NatIo.Attempt io;
        TraversalOffer offer;
        long deadlineMs;
        volatile boolean cancelled;

        Outbound(final String npub) {
            this.npub = npub;
        }
    }

    private final Settings settings;
    private final String localNpub;
    private final NodeAddr localAddr;
    private final Signalling signalling;
    private final NatIo io;
    private final FailureState failures;
    private final ReplayCache replay;
    private final LongSupplier wallMs;
    private final PunchRunner runner;
    private final Executor executor;
    private final Listener listener;
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    private final Map<String, Outbound> outbound = new HashMap<>();
    private final Map<String, Outbound> byNonce = new HashMap<>();
    private int incomingInFlight;
    /** Offers being handled per sender (tick thread only); an entry goes when its count reaches 0. */
    private final Map<String, Integer> incomingBySender = new HashMap<>();
    private volatile boolean closed;
    private final AtomicLong signalsDropped = new AtomicLong();
    private final AtomicLong offersOverSenderAllowance = new AtomicLong();

    /**
     * @param settings   the timers and limits
     * @param localNpub  our npub
     * @param signalling the signal channel (our listener is registered here)
     * @param io         sockets and STUN
     * @param failures   the initiator failure state (shared with {@code show_peers})
     * @param replay     the responder's replay cache
     * @param nanoClock  monotonic ns (the punch's schedule)
     * @param wallMs     Unix ms (signals, hints, cooldowns)
     * @param executor   runs the blocking steps (one task per step; a thread per task is fine)
     * @param listener   the node's reactions
     */
    public TraversalCoordinator(final Settings settings, final String localNpub, final Signalling signalling,
            final NatIo io, final FailureState failures, final ReplayCache replay, final LongSupplier nanoClock,
            final LongSupplier wallMs, final Executor executor, final Listener listener) {
        this.settings = settings;
        this.localNpub = localNpub;
        try {
            this.localAddr = PeerIdentity.parse(localNpub).nodeAddr();
        } catch (final IdentityFormatException e) {
            throw new IllegalArgumentException("our npub " + localNpub + ": " + e.getMessage(), e);
        }
        this.signalling = signalling;
        this.io = io;
        this.failures = failures;
        this.replay = replay;
        this.wallMs = wallMs;
        this.runner = new PunchRunner(nanoClock, wallMs);
        this.executor = executor;
        this.listener = listener;
        signalling.onSignal((sender, payload) -> inbox.add(() -> onSignal(sender, payload)));
    }

    /**
     * Starts an initiator attempt towards {@code npub} (the node's hook when an advert needs traversal).
     *
     * @param npub the peer
     * @return whether it started
     */
    public Start connect(final String npub) {
        final long now = wallMs.getAsLong();
        if (failures.cooldownUntil(npub, now).isPresent()) {
            return Start.COOLING_DOWN;
        }
        if (outbound.containsKey(npub)) {
            return Start.IN_FLIGHT;
        }
        final Outbound o = new Outbound(npub);
        outbound.put(npub, o);
        executor.execute(() -> {
            try {
                final NatIo.Attempt a = io.open();
                if (closed) {
                    a.close();
                    return;
                }
                inbox.add(() -> onGathered(o, a));
            } catch (final IOException | RuntimeException e) {
                inbox.add(() -> fail(o, "socket-failed", String.valueOf(e.getMessage())));
            }
        });
        return Start.STARTED;
    }

    /** Runs what is due: reports of the blocking steps, received signals, answer deadlines. */
    public void tick() {
        if (closed) {
            return;
        }
        for (Runnable r = inbox.poll(); r != null; r = inbox.poll()) {
            r.run();
        }
        final long now = wallMs.getAsLong();
        for (final Outbound o : new ArrayList<>(outbound.values())) {
            if (o.phase == Phase.AWAITING && now - o.deadlineMs >= 0) {
                fail(o, "SignalTimeout", "no answer within " + settings.signalTtlMs() + " ms");
            }
        }
    }

    /**
     * Stops every initiator attempt (node shutdown): a punch in progress ends within {@link PunchRunner#MAX_WAIT_MS}
     * and closes its socket; sockets of attempts not punching are closed now; a responder's punch ends the same way.
     * Nothing is reported, and no new step starts (offers and answers still queued are dropped).
     */
    public void close() {
        closed = true;
        inbox.clear();
        for (final Outbound o : outbound.values()) {
            o.cancelled = true;
            if (o.io != null && o.phase != Phase.PUNCHING) {
                o.io.close();
            }
        }
        outbound.clear();
        byNonce.clear();
    }

    /** @return whether an initiator attempt towards {@code npub} runs */
    public boolean inFlight(final String npub) {
        return outbound.containsKey(npub);
    }

    /** @return signals that were neither a valid answer to one of our offers nor an acceptable offer */
    public long signalsDropped() {
        return signalsDropped.get();
    }

    /**
     * @return offers dropped because their sender already had {@code max_concurrent_offers_per_npub} being handled
     *         (also counted in {@link #signalsDropped})
     */
    public long offersOverSenderAllowance() {
        return offersOverSenderAllowance.get();
    }

    // ------------------------------------------------------------------ initiator

    private void onGathered(final Outbound o, final NatIo.Attempt a) {
        if (o.cancelled) {
            a.close();
            return;
        }
        o.io = a;
        final long now = wallMs.getAsLong();
        final String session = now + "-" + HexFormat.of().toHexDigits(random.nextLong());
        o.offer = new TraversalOffer(TraversalOffer.TYPE, session, now, now + settings.signalTtlMs(), session,
                localNpub, o.npub, address(a.reflexive()), addresses(a.locals()), a.stunServer());
        try {
            signalling.send(o.npub, o.offer.toJson());
        } catch (final IOException e) {
            fail(o, "send-failed", e.getMessage());
            return;
        }
        o.phase = Phase.AWAITING;
        o.deadlineMs = now + settings.signalTtlMs();
        byNonce.put(o.offer.nonce(), o);
    }

    private void onAnswer(final String sender, final TraversalAnswer answer) {
        final Outbound o = byNonce.get(answer.inReplyTo());
        if (o == null || o.phase != Phase.AWAITING) {
            signalsDropped.incrementAndGet();
            return;
        }
        final long now = wallMs.getAsLong();
        final OptionalLong skew = SignalValidation.estimateSkewMs(o.offer, answer, now);
        if (skew.isPresent()) {
            failures.noteObservedSkew(o.npub, skew.getAsLong(), now);
        }
        try {
            SignalValidation.validateAnswer(o.offer, answer, now, settings.signalTtlMs(), sender, localNpub);
        } catch (final SignalValidation.Rejected e) {
            fail(o, e.reason(), "answer from " + sender);
            return;
        }
        if (!answer.accepted()) {
            fail(o, answer.reason(), "the responder declined");
            return;
        }
        final List<InetSocketAddress> targets;
        try {
            targets = targets(o.io, o.offer.localAddresses(), answer.reflexiveAddress(), answer.localAddresses());
        } catch (final PunchFailure e) {
            fail(o, e.reason(), e.getMessage());
            return;
        }
        o.phase = Phase.PUNCHING;
        byNonce.remove(o.offer.nonce());
        // The initiator punches with its own hint; the answer's is the responder's (§1.11 step 9).
        final PunchHint hint = new PunchHint(now + settings.punchStartDelayMs(), settings.punchIntervalMs(),
                settings.punchDurationMs());
        punch(o.io, o.offer.sessionId(), targets, hint, () -> o.cancelled,
                remote -> adoptOutbound(o, remote), f -> fail(o, f.reason(), f.getMessage()));
    }

    private void adoptOutbound(final Outbound o, final InetSocketAddress remote) {
        try {
            final int id = o.io.adopt(o.npub, remote);
            finish(o);
            failures.recordSuccess(o.npub, wallMs.getAsLong());
            listener.established(o.npub, id, remote, true);
        } catch (final PunchFailure e) {
            finish(o);
            listener.failed(o.npub, e.reason(), null);
        }
    }

    private void fail(final Outbound o, final String reason, final String detail) {
        final boolean punching = o.phase == Phase.PUNCHING;
        o.cancelled = true;
        if (outbound.get(o.npub) != o) {
            return;
        }
        outbound.remove(o.npub);
        if (o.offer != null) {
            byNonce.remove(o.offer.nonce());
        }
        if (o.io != null && !punching) {
            o.io.close();   // a punching attempt's task closes its own socket
        }
        final FailureState.Decision d = failures.recordFailure(o.npub, wallMs.getAsLong());
        listener.failed(o.npub, reason, d);
    }

    private void finish(final Outbound o) {
        outbound.remove(o.npub);
        o.io.close();
    }

    // ------------------------------------------------------------------ responder

    private void onSignal(final String sender, final String payload) {
        try {
            final TraversalAnswer a = TraversalAnswer.parse(payload);
            if (TraversalAnswer.TYPE.equals(a.type()) && localNpub.equals(a.recipientNpub())) {
                onAnswer(sender, a);
                return;
            }
        } catch (final NostrFormatException | RuntimeException e) {
            // not an answer: an offer, perhaps
        }
        try {
            final TraversalOffer offer = TraversalOffer.parse(payload);
            if (TraversalOffer.TYPE.equals(offer.type()) && localNpub.equals(offer.recipientNpub())) {
                onOffer(sender, offer);
                return;
            }
        } catch (final NostrFormatException | RuntimeException e) {
            // neither: dropped below
        }
        signalsDropped.incrementAndGet();
    }

    private void onOffer(final String sender, final TraversalOffer offer) {
        final long received = wallMs.getAsLong();
        if (incomingInFlight >= settings.maxIncomingOffers()) {
            signalsDropped.incrementAndGet();   // the reference's "rate-limited inbound traversal offer"
            return;
        }
        if (incomingBySender.getOrDefault(sender, 0) >= settings.maxOffersPerNpub()) {
            // master's per-sender allowance (§1.14): one npub cannot take every responder slot
            signalsDropped.incrementAndGet();
            offersOverSenderAllowance.incrementAndGet();
            return;
        }
        try {
            SignalValidation.validateOffer(offer, received, settings.signalTtlMs(), sender, localNpub);
        } catch (final SignalValidation.Rejected e) {
            signalsDropped.incrementAndGet();
            return;
        }
        if (outbound.containsKey(sender) && yieldsTo(sender)) {
            signalsDropped.incrementAndGet();   // duplicate-session election: our own attempt proceeds
            return;
        }
        if (!replay.markSeen(offer.sessionId(), received)) {
            signalsDropped.incrementAndGet();
            return;
        }
        incomingInFlight++;
        incomingBySender.merge(sender, 1, Integer::sum);
        executor.execute(() -> {
            try {
                final NatIo.Attempt a = io.open();
                if (closed) {
                    a.close();
                    return;
                }
                inbox.add(() -> answer(sender, offer, a, received));
            } catch (final IOException | RuntimeException e) {
                inbox.add(() -> released(sender));
            }
        });
    }

    /** @return true when our node_addr is below the sender's: we do not answer (§1.11 responder step 3) */
    private boolean yieldsTo(final String sender) {
        try {
            return localAddr.compareTo(PeerIdentity.parse(sender).nodeAddr()) < 0;
        } catch (final IdentityFormatException e) {
            return false;
        }
    }

    private void answer(final String sender, final TraversalOffer offer, final NatIo.Attempt a, final long received) {
        final long now = wallMs.getAsLong();
        final boolean accepted = a.reflexive() != null || !a.locals().isEmpty();
        final PunchHint hint = accepted ? new PunchHint(now + settings.punchStartDelayMs(),
                settings.punchIntervalMs(), settings.punchDurationMs()) : null;
        final String nonce = now + "-" + HexFormat.of().toHexDigits(random.nextLong());
        final TraversalAnswer answer = new TraversalAnswer(TraversalAnswer.TYPE, offer.sessionId(), now,
                now + settings.signalTtlMs(), nonce, localNpub, sender, offer.nonce(), accepted,
                address(a.reflexive()), addresses(a.locals()), a.stunServer(), hint,
                accepted ? null : "no-usable-addresses", received);
        final List<InetSocketAddress> targets;
        try {
            signalling.send(sender, answer.toJson());
            if (!accepted) {
                throw new PunchFailure("no-usable-addresses", "declined");
            }
            targets = targets(a, answer.localAddresses(), offer.reflexiveAddress(), offer.localAddresses());
        } catch (final IOException | PunchFailure e) {
            a.close();
            released(sender);
            return;
        }
        punch(a, offer.sessionId(), targets, hint, () -> closed, remote -> {
            released(sender);
            try {
                final int id = a.adopt(sender, remote);
                listener.established(sender, id, remote, false);
            } catch (final PunchFailure f) {
                // silent, as every responder failure
            } finally {
                a.close();
            }
        }, f -> released(sender));
    }

    /** An offer of {@code sender} is done with (tick thread): its global and per-sender slots are free again. */
    private void released(final String sender) {
        incomingInFlight--;
        incomingBySender.computeIfPresent(sender, (k, n) -> n <= 1 ? null : n - 1);
    }

    // ------------------------------------------------------------------ shared

    /** Runs the punch on the executor; the outcome comes back through the inbox. */
    private void punch(final NatIo.Attempt a, final String session, final List<InetSocketAddress> targets,
            final PunchHint hint, final BooleanSupplier cancelled,
            final Consumer<InetSocketAddress> onSuccess,
            final Consumer<PunchFailure> onFailure) {
        executor.execute(() -> {
            try {
                final PunchRunner.Outcome out = runner.run(a.port(), session, targets, hint.startAtMs(),
                        hint.intervalMs(), hint.durationMs(),
                        TimeUnit.MILLISECONDS.toNanos(settings.attemptTimeoutMs()), cancelled);
                if (closed) {
                    a.close();
                    return;
                }
                inbox.add(() -> onSuccess.accept(out.remote()));
            } catch (final PunchFailure f) {
                a.close();
                inbox.add(() -> onFailure.accept(f));
            }
        });
    }

    /** Plans the targets (§2.4) from our side of the attempt against the peer's addresses. */
    private static List<InetSocketAddress> targets(final NatIo.Attempt ours, final List<TraversalAddress> ourLocals,
            final TraversalAddress theirReflexive, final List<TraversalAddress> theirLocals) throws PunchFailure {
        return PunchPlan.remotes(PunchPlan.plan(texts(ourLocals), text(address(ours.reflexive())),
                texts(theirLocals), text(theirReflexive)));
    }

    private static TraversalAddress address(final InetSocketAddress a) {
        return a == null ? null : new TraversalAddress("udp", LocalCandidates.text(a.getAddress()), a.getPort());
    }

    private static List<TraversalAddress> addresses(final List<InetSocketAddress> list) {
        return list.stream().map(TraversalCoordinator::address).toList();
    }

    private static String text(final TraversalAddress a) {
        if (a == null) {
            return null;
        }
        return a.ip().indexOf(':') >= 0 ? "[" + a.ip() + "]:" + a.port() : a.ip() + ":" + a.port();
    }

    private static List<String> texts(final List<TraversalAddress> list) {
        return list.stream().map(TraversalCoordinator::text).toList();
    }
}
