package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.ReplayCache;
import net.fips.control.nostr.TraversalAddress;
import net.fips.control.nostr.TraversalOffer;
import net.fips.testing.Await;

/**
 * The offer/answer state machines (discovery-gateway.md §1.11, §2.7) over an in-memory signal hub and
 * {@link SimNet}'s routers, with the real STUN client and punch runner: two cone NATs connect; a peer that never
 * answers and two symmetric NATs both end in the failure state, then in the cooldown, after a bounded number of
 * datagrams, and a cooling-down peer costs no packet at all.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TraversalCoordinatorTest {
    private static final long TTL_MS = 120_000;
    private static final long ATTEMPT_MS = 1_500;
    private static final long INTERVAL_MS = 20;
    private static final TraversalCoordinator.Settings SETTINGS = new TraversalCoordinator.Settings(TTL_MS,
            ATTEMPT_MS, 100, INTERVAL_MS, 1_000, 16, 2);

    /** Signals between coordinators by npub; a payload to an npub nobody registered is lost. */
    private static final class Hub {
        final Map<String, Signalling.Listener> listeners = new ConcurrentHashMap<>();
        final AtomicLong sent = new AtomicLong();
        final List<String> payloads = new CopyOnWriteArrayList<>();
        volatile boolean twice;

        Signalling as(final String npub) {
            return new Signalling() {
                @Override
                public void send(final String recipientNpub, final String payload) throws IOException {
                    sent.incrementAndGet();
                    payloads.add(payload);
                    final Signalling.Listener l = listeners.get(recipientNpub);
                    if (l != null) {
                        l.onSignal(npub, payload);
                        if (twice) {
                            l.onSignal(npub, payload);   // a relay delivering it again: a replay
                        }
                    }
                }

                @Override
                public void onSignal(final Signalling.Listener listener) {
                    listeners.put(npub, listener);
                }
            };
        }
    }

    /** One side: identity, events, its coordinator. */
    private static final class Side implements TraversalCoordinator.Listener {
        final NodeIdentity id = NodeIdentity.generate();
        final List<String> established = new CopyOnWriteArrayList<>();
        final List<String> failed = new CopyOnWriteArrayList<>();
        final List<FailureState.Decision> decisions = new CopyOnWriteArrayList<>();
        final List<String> adopted = new CopyOnWriteArrayList<>();
        final FailureState failures = new FailureState(2, 3600, 1800, 100);
        TraversalCoordinator coordinator;

        @Override
        public void established(final String npub, final int transportId, final InetSocketAddress remote,
                final boolean initiator) {
            established.add(npub + "@" + remote + (initiator ? " out" : " in") + " t" + transportId);
        }

        @Override
        public void failed(final String npub, final String reason, final FailureState.Decision decision) {
            failed.add(reason);
            decisions.add(decision);
        }
    }

    private final Hub hub = new Hub();
    private final SimNet net = new SimNet();
    private final AtomicLong skewMs = new AtomicLong();

    private Side side(final SimNet.Host host) {
        return side(host, null);
    }

    private Side side(final SimNet.Host host, final LocalCandidates locals) {
        final Side s = new Side();
        s.coordinator = new TraversalCoordinator(SETTINGS, s.id.npub(), hub.as(s.id.npub()),
                net.io(host, s.adopted, locals),
                s.failures, new ReplayCache(100, 300_000), System::nanoTime,
                () -> System.currentTimeMillis() + skewMs.get(), r -> Thread.ofPlatform().daemon().start(r), s);
        return s;
    }

    /** Ticks every side until {@code done} holds (polling against a deadline). */
    private static void tickUntil(final BooleanSupplier done, final String what, final Side... sides) {
        Await.until(Duration.ofSeconds(20), Duration.ofMillis(2), () -> {
            if (done.getAsBoolean()) {
                return true;
            }
            for (final Side s : sides) {
                s.coordinator.tick();
            }
            return false;
        }, () -> what);
    }

    @Test
    void twoConeNatsPunchAndBothSidesAdopt() {
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.CONE));
        final Side b = side(net.host("198.18.0.3", SimNet.Nat.CONE));
        assertEquals(TraversalCoordinator.Start.STARTED, a.coordinator.connect(b.id.npub()));
        assertEquals(TraversalCoordinator.Start.IN_FLIGHT, a.coordinator.connect(b.id.npub()));
        tickUntil(() -> !a.established.isEmpty() && !b.established.isEmpty(), "both adopt", a, b);
        assertTrue(a.established.getFirst().startsWith(b.id.npub() + "@/198.18.0.3:"), a.established::toString);
        assertTrue(a.established.getFirst().endsWith(" out t7"));
        assertTrue(b.established.getFirst().startsWith(a.id.npub() + "@/198.18.0.2:"), b.established::toString);
        assertTrue(b.established.getFirst().endsWith(" in t7"));
        assertEquals(List.of(), a.failed);
        assertEquals(2, hub.sent.get(), "one offer, one answer");
        assertTrue(net.filtered() > 0, "the routers dropped the probes that came before their own went out");
        assertTrue(!a.coordinator.inFlight(b.id.npub()));
    }

    @Test
    void aPeerThatNeverAnswersEndsInFailureThenCooldownWithBoundedTraffic() {
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.CONE));
        final String silent = NodeIdentity.generate().npub();
        for (int attempt = 1; attempt <= 2; attempt++) {
            assertEquals(TraversalCoordinator.Start.STARTED, a.coordinator.connect(silent));
            final long offersBefore = hub.sent.get();
            tickUntil(() -> hub.sent.get() > offersBefore, "offer sent", a);
            a.coordinator.tick();
            assertEquals(attempt - 1, a.failed.size(), "no failure before the signal TTL");
            skewMs.addAndGet(TTL_MS);   // the injected wall clock passes signal_ttl_secs
            a.coordinator.tick();
            assertEquals(attempt, a.failed.size());
            assertEquals("SignalTimeout", a.failed.getLast());
        }
        assertEquals(2, a.decisions.getLast().consecutiveFailures());
        assertNotNull(a.decisions.getLast().cooldownUntilMs(), "threshold 2 reached: extended cooldown");
        assertNull(a.decisions.getFirst().cooldownUntilMs());
        final long sentBefore = net.sent();
        final long signalsBefore = hub.sent.get();
        assertEquals(2, sentBefore, "one STUN request per attempt, nothing else");
        assertEquals(TraversalCoordinator.Start.COOLING_DOWN, a.coordinator.connect(silent));
        a.coordinator.tick();
        assertEquals(sentBefore, net.sent(), "a peer in cooldown costs no datagram");
        assertEquals(signalsBefore, hub.sent.get(), "and no signal");
    }

    @Test
    void symmetricNatsFailThePunchThenCoolDownWithBoundedTraffic() {
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.SYMMETRIC));
        final Side b = side(net.host("198.18.0.3", SimNet.Nat.SYMMETRIC));
        for (int attempt = 1; attempt <= 2; attempt++) {
            final long sentBefore = net.sent();
            assertEquals(TraversalCoordinator.Start.STARTED, a.coordinator.connect(b.id.npub()));
            final int want = attempt;
            tickUntil(() -> a.failed.size() == want, "punch timeout " + attempt, a, b);
            assertEquals("PunchTimeout", a.failed.getLast());
            // Per side: one STUN request, then at most one probe round (one target) per interval over the attempt.
            final long perSide = 1 + ATTEMPT_MS / INTERVAL_MS + 1;
            final long sent = net.sent() - sentBefore;
            assertTrue(sent > 4 && sent <= 2 * perSide, sent + " datagrams for attempt " + attempt);
        }
        assertEquals(List.of(), a.established);
        assertEquals(List.of(), b.established, "the responder fails silently");
        assertEquals(List.of(), b.failed, "responder failures are not counted");
        assertNotNull(a.decisions.getLast().cooldownUntilMs());
        tickUntil(() -> !a.coordinator.inFlight(b.id.npub()), "attempt over", a, b);
        final long sentBefore = net.sent();
        assertEquals(TraversalCoordinator.Start.COOLING_DOWN, a.coordinator.connect(b.id.npub()));
        a.coordinator.tick();
        b.coordinator.tick();
        assertEquals(sentBefore, net.sent());
    }

    @Test
    void closeStopsAttemptsWithoutReportingThem() {
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.CONE));
        final String silent = NodeIdentity.generate().npub();
        assertEquals(TraversalCoordinator.Start.STARTED, a.coordinator.connect(silent));
        tickUntil(() -> hub.sent.get() == 1, "offer sent", a);
        a.coordinator.close();
        skewMs.addAndGet(TTL_MS);
        a.coordinator.tick();
        assertEquals(List.of(), a.failed, "a closed coordinator reports nothing");
        assertTrue(!a.coordinator.inFlight(silent));
    }

    /** A LAN host's view of itself: its address on an up interface among others that do not count. */
    private static LocalCandidates candidatesOf(final SimNet.Host host) {
        final InetAddress lanIp = host.privateIp();
        return new LocalCandidates(() -> List.of(
                new LocalCandidates.InterfaceAddress("lo", true, true, InetAddress.ofLiteral("127.0.0.1")),
                new LocalCandidates.InterfaceAddress("eth0", true, false, lanIp),
                new LocalCandidates.InterfaceAddress("eth0", true, false, InetAddress.ofLiteral("fe80::1")),
                new LocalCandidates.InterfaceAddress("wlan0", false, false, InetAddress.ofLiteral("192.168.9.9"))),
                to -> to.getAddress() instanceof Inet4Address ? lanIp : null);
    }

    @Test
    void twoHostsBehindOneRouterWithoutHairpinFailWithoutHostCandidates() {
        final Side a = side(net.lanHost("198.18.0.2", SimNet.Nat.CONE, "10.1.0.2"));
        final Side b = side(net.lanHost("198.18.0.2", SimNet.Nat.CONE, "10.1.0.3"));
        a.coordinator.connect(b.id.npub());
        tickUntil(() -> !a.failed.isEmpty(), "the punch fails", a, b);
        assertEquals(List.of("PunchTimeout"), a.failed, "probes to the shared router's address are not hairpinned");
        assertEquals(List.of(), b.established);
        assertTrue(hub.payloads.getFirst().contains("\"localAddresses\":[]"), hub.payloads::toString);
    }

    @Test
    void twoHostsBehindOneRouterMeetThroughTheirHostCandidates() {
        final SimNet.Host ha = net.lanHost("198.18.0.2", SimNet.Nat.CONE, "10.1.0.2");
        final SimNet.Host hb = net.lanHost("198.18.0.2", SimNet.Nat.CONE, "10.1.0.3");
        final Side a = side(ha, candidatesOf(ha));
        final Side b = side(hb, candidatesOf(hb));
        a.coordinator.connect(b.id.npub());
        tickUntil(() -> !a.established.isEmpty() && !b.established.isEmpty(), "both adopt", a, b);
        assertTrue(a.established.getFirst().startsWith(b.id.npub() + "@/10.1.0.3:"), a.established::toString);
        assertTrue(b.established.getFirst().startsWith(a.id.npub() + "@/10.1.0.2:"), b.established::toString);
        assertEquals(List.of(), a.failed);
        // The offer and the answer carry exactly the LAN address (once, loopback, link-local and the down interface
        // left out), with the attempt socket's port; the reflexive addresses are the shared router's.
        final String offer = hub.payloads.get(0);
        final String answer = hub.payloads.get(1);
        assertTrue(offer.matches(".*\"localAddresses\":\\[\\{\"protocol\":\"udp\",\"ip\":\"10\\.1\\.0\\.2\","
                + "\"port\":5\\d{4}}].*"), offer);
        assertTrue(answer.matches(".*\"localAddresses\":\\[\\{\"protocol\":\"udp\",\"ip\":\"10\\.1\\.0\\.3\","
                + "\"port\":5\\d{4}}].*"), answer);
        assertTrue(offer.contains("\"ip\":\"198.18.0.2\""), offer);
    }

    @Test
    void settingsComeFromTheNostrConfig() {
        assertEquals(new TraversalCoordinator.Settings(120_000, 10_000, 2_000, 200, 10_000, 16, 4),
                TraversalCoordinator.Settings.of(NostrConfig.DEFAULTS));
    }

    /** An offer from {@code from} to {@code to}, valid now, punching towards an address nobody answers on. */
    private String offer(final String from, final String to, final int n) {
        final long now = System.currentTimeMillis() + skewMs.get();
        final String session = now + "-" + String.format("%016x", n);
        return new TraversalOffer(TraversalOffer.TYPE, session, now, now + TTL_MS, session, from, to,
                new TraversalAddress("udp", "198.18.0.99", 4000 + n), List.of(), null).toJson();
    }

    /**
     * master's {@code max_concurrent_offers_per_npub} (§1.14): with an allowance of 2, a sender's third offer
     * while two are being handled is dropped and counted; another sender's offer still gets a slot, and once the
     * first sender's attempts are over its next offer is handled again.
     */
    @Test
    void oneSenderGetsAtMostItsAllowanceOfResponderSlots() {
        final Side b = side(net.host("198.18.0.3", SimNet.Nat.CONE));
        final String x = NodeIdentity.generate().npub();
        final String y = NodeIdentity.generate().npub();
        final Signalling.Listener toB = hub.listeners.get(b.id.npub());
        for (int i = 0; i < 3; i++) {
            toB.onSignal(x, offer(x, b.id.npub(), i));
        }
        toB.onSignal(y, offer(y, b.id.npub(), 3));
        b.coordinator.tick();
        assertEquals(1, b.coordinator.offersOverSenderAllowance(), "x's third offer");
        assertEquals(1, b.coordinator.signalsDropped());
        // b answers the three it took (x twice, y once); the punches towards nobody then time out silently.
        tickUntil(() -> hub.sent.get() == 3, "three answers", b);
        tickUntil(() -> {
            toB.onSignal(x, offer(x, b.id.npub(), 10 + (int) hub.sent.get()));
            return hub.sent.get() > 3;
        }, "x is answered again once its attempts ended", b);
        assertEquals(List.of(), b.failed, "responder failures are silent");
    }

    @Test
    void aReplayedOfferIsAnsweredOnce() {
        hub.twice = true;
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.CONE));
        final Side b = side(net.host("198.18.0.3", SimNet.Nat.CONE));
        a.coordinator.connect(b.id.npub());
        tickUntil(() -> !a.established.isEmpty() && !b.established.isEmpty(), "both adopt", a, b);
        assertEquals(2, hub.sent.get(), "one offer, one answer: the replayed offer got none");
        assertEquals(1, b.established.size());
        assertTrue(b.coordinator.signalsDropped() >= 1, "the replay was dropped");
        assertTrue(a.coordinator.signalsDropped() >= 1, "the answer's second copy found no waiting attempt");
    }

    @Test
    void simultaneousOffersLeaveOneSessionTheLowerNodeAddrsOffer() {
        final Side a = side(net.host("198.18.0.2", SimNet.Nat.CONE));
        final Side b = side(net.host("198.18.0.3", SimNet.Nat.CONE));
        final boolean aLower = a.id.nodeAddr().compareTo(b.id.nodeAddr()) < 0;
        final Side lower = aLower ? a : b;
        final Side higher = aLower ? b : a;
        a.coordinator.connect(b.id.npub());
        b.coordinator.connect(a.id.npub());
        tickUntil(() -> !lower.established.isEmpty() && !higher.established.isEmpty(), "one session", a, b);
        assertTrue(lower.established.getFirst().endsWith(" out t7"), "the lower node_addr's offer was answered");
        assertTrue(higher.established.getFirst().endsWith(" in t7"));
        assertEquals(3, hub.sent.get(), "two offers, one answer: the lower side did not answer");
        assertTrue(higher.coordinator.inFlight(lower.id.npub()), "the higher side's own attempt still waits");
        skewMs.addAndGet(TTL_MS);
        higher.coordinator.tick();
        assertEquals(List.of("SignalTimeout"), higher.failed, "and times out, as in the reference");
        assertEquals(List.of(), lower.failed);
    }
}
