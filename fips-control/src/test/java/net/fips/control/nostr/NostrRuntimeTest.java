package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static net.fips.testing.Await.until;

import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.NodeIdentity;

/**
 * The runtime against the in-test relay (discovery-gateway.md §1.6-§1.8, §1.11-§1.12), its own timers on a manual
 * scheduler and its wall clock injected: what our advert event carries (tags, NIP-40 expiry from the injected
 * clock), that it is published on a change and not for an unchanged advert, republished when
 * {@code advert_refresh_secs} passes on the manual clock, never deleted on close; the kind-10050 list; signals
 * between two runtimes, with the replay cache and offer validation applied before the listener.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NostrRuntimeTest {
    private static final long WAIT_MS = 10_000;
    private static final Duration WAIT = Duration.ofMillis(WAIT_MS);

    private final AtomicLong wall = new AtomicLong(System.currentTimeMillis());
    private final HttpClient http = HttpClient.newHttpClient();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final Manual manual = new Manual();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestRelay relay;

    /** The runtime's timers: run only when the test advances them. */
    private static final class Manual implements RelayScheduler {
        private record Due(long at, Runnable task, boolean[] cancelled) {
        }

        private final List<Due> due = new CopyOnWriteArrayList<>();
        private long now;

        @Override
        public Task schedule(final Runnable task, final long delayMs) {
            final boolean[] cancelled = new boolean[1];
            due.add(new Due(now + delayMs, task, cancelled));
            return () -> cancelled[0] = true;
        }

        /** Advances by {@code ms}, running what falls due, in time order. */
        void advance(final long ms) {
            final long until = now + ms;
            while (true) {
                final Due next = due.stream().filter(d -> d.at() <= until).min(Comparator.comparingLong(Due::at))
                        .orElse(null);
                if (next == null) {
                    break;
                }
                due.remove(next);
                now = Math.max(now, next.at());
                if (!next.cancelled()[0]) {
                    next.task().run();
                }
            }
            now = until;
        }
    }

    @BeforeEach
    void startRelay() throws Exception {
        relay = new TestRelay(() -> wall.get() / 1000);
        closeables.add(relay);
    }

    @AfterEach
    void stop() throws Exception {
        for (final AutoCloseable c : closeables.reversed()) {
            c.close();
        }
        timers.shutdownNow();
        http.close();
    }

    private NostrConfig config() {
        final NostrConfig d = NostrConfig.DEFAULTS;
        final List<String> relays = List.of(relay.url().toString());
        return new NostrConfig(true, true, relays, relays, d.stunServers(), false, d.app(), d.signalTtlSecs(),
                d.policy(), 64, 16, 4, 2048, 2048, 10, 300, 2000, 200, 10_000, 3600, 1800, 5, 3600, 5, 1800, 300,
                4096, 86_400);
    }

    private NostrRuntime runtime(final NodeIdentity id) {
        final NostrConfig cfg = config();
        final RelayPool pool = new RelayPool(List.of(relay.url().toString()), http, RelayScheduler.of(timers),
                wall::get, new Backoff(20, 200), Duration.ofSeconds(5));
        final NostrRuntime rt = new NostrRuntime(cfg, id, wall::get, manual, pool, AdvertValidity::isPubliclyUsable,
                new SecureRandom());
        closeables.add(rt);
        rt.start();
        until(WAIT, () -> rt.relays().getFirst().connected(), () -> "connected");
        return rt;
    }

    private long advertEventsReceived() {
        return relay.received.stream().filter(m -> m.startsWith("[\"EVENT\"") && m.contains("\"kind\":37195"))
                .count();
    }

    private static OverlayAdvert udp(final String addr) {
        return new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1, List.of(new OverlayAdvert.Endpoint("udp", addr)),
                null, null);
    }

    @Test
    void advertPublishedOnChangeAndRefreshWithExpiryFromTheClockAndNeverDeleted() throws Exception {
        final NodeIdentity id = NodeIdentity.generate();
        final NostrRuntime rt = runtime(id);
        final String hex = HexFormat.of().formatHex(id.publicKey());

        // The relay list: once a relay is connected (the runtime looks every 500 ms on its own timer).
        manual.advance(NostrRuntime.WAIT_FOR_RELAY_MS);
        until(WAIT, () -> relay.stored().stream().anyMatch(e -> e.kind() == DiscoveryEvents.RELAY_LIST_KIND),
                relay.received::toString);
        final NostrEvent list = relay.stored().stream().filter(e -> e.kind() == DiscoveryEvents.RELAY_LIST_KIND)
                .findFirst().orElseThrow();
        assertEquals(List.of(List.of("r", relay.url().toString()), List.of("relay", relay.url().toString())),
                list.tags());

        // A new advert is published at once, expiring advert_ttl_secs after the injected clock.
        final long t0 = wall.get();
        rt.setLocalAdvert(udp("198.18.0.2:2121"));
        until(WAIT,
                () -> rt.lastPublished() != null
                        && relay.stored().stream().anyMatch(e -> e.kind() == OverlayAdvert.KIND),
                () -> "first publish");
        final NostrEvent first = storedAdvert(hex);
        assertEquals(rt.lastPublished().eventId(), first.id());
        assertEquals(t0 / 1000, first.createdAt());
        assertEquals(List.of(List.of("d", "fips-overlay-v1"), List.of("protocol", "fips-overlay-v1"),
                List.of("version", "1"), List.of("expiration", Long.toString(t0 / 1000 + 3600))), first.tags());
        assertEquals("{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":[{\"transport\":\"udp\","
                + "\"addr\":\"198.18.0.2:2121\"}]}", first.content());
        assertEquals((t0 / 1000 + 3600) * 1000, rt.lastPublished().expiresAtMs());

        // The same advert again: nothing sent. A changed one: published (so exactly two EVENTs arrive in order).
        rt.setLocalAdvert(udp("198.18.0.2:2121"));
        wall.addAndGet(1_000);
        rt.setLocalAdvert(udp("198.18.0.3:2121"));
        until(WAIT,
                () -> storedAdvert(hex).content().contains("198.18.0.3")
                        && rt.lastPublished().advert().equals(udp("198.18.0.3:2121")),
                relay.received::toString);
        assertEquals(2, advertEventsReceived(), relay.received::toString);

        // advert_refresh_secs later (1800 s on the runtime's timer and the wall clock): republished, same content.
        wall.addAndGet(1_800_000);
        final String before = rt.lastPublished().eventId();
        manual.advance(1_800_000);
        until(WAIT, () -> !rt.lastPublished().eventId().equals(before), () -> "refresh publish");
        // The relay answers OK before it stores: wait for the stored copy.
        until(WAIT, () -> storedAdvert(hex).createdAt() == wall.get() / 1000, relay.received::toString);
        final NostrEvent refreshed = storedAdvert(hex);
        until(WAIT, () -> rt.lastPublished().eventId().equals(refreshed.id()), relay.received::toString);
        assertTrue(refreshed.content().contains("198.18.0.3:2121"));
        assertEquals(3, advertEventsReceived());

        // An advert whose only endpoint the public filter drops is not published (the last one expires).
        rt.setLocalAdvert(udp("10.0.0.1:2121"));
        assertEquals(3, advertEventsReceived());

        // Close: no deletion (§1.8), and the timers do nothing afterwards.
        rt.close();
        manual.advance(3_600_000);
        assertTrue(relay.received.stream().noneMatch(m -> m.contains("\"kind\":5,")), relay.received::toString);
        assertEquals(3, advertEventsReceived());
    }

    private NostrEvent storedAdvert(final String hex) {
        return relay.stored().stream().filter(e -> e.kind() == OverlayAdvert.KIND && e.pubkey().equals(hex))
                .findFirst().orElseThrow();
    }

    @Test
    void advertsOfOthersAreCachedAndFetched() throws Exception {
        final NodeIdentity a = NodeIdentity.generate();
        final NodeIdentity b = NodeIdentity.generate();
        final NostrRuntime rtB = runtime(b);
        rtB.setLocalAdvert(udp("198.18.0.9:2121"));
        until(WAIT, () -> rtB.lastPublished() != null, () -> "B published");
        final NostrRuntime rtA = runtime(a);
        // The live subscription replays stored adverts: B's arrives in A's cache.
        until(WAIT, () -> rtA.advert(b.npub()).isPresent(), () -> rtA.counters().toString());
        assertEquals("198.18.0.9:2121", rtA.advert(b.npub()).orElseThrow().advert().endpoints().getFirst().addr());
        // Our own advert echoes back but is never cached as a candidate.
        assertTrue(rtB.adverts().isEmpty(), rtB.adverts()::toString);
        // A fetch by author finds it too; the stale re-check sees the same advert.
        assertEquals(NostrRuntime.Recheck.SAME_ADVERT, rtA.recheck(b.npub()).get(5, TimeUnit.SECONDS));
        // An author with no advert: the re-check evicts nothing and reports it.
        final String nobody = NodeIdentity.generate().npub();
        assertTrue(rtA.fetchAdvert(nobody).get(5, TimeUnit.SECONDS).isEmpty());
        assertEquals(NostrRuntime.Recheck.EVICTED, rtA.recheck(nobody).get(5, TimeUnit.SECONDS));
    }

    @Test
    void signalsReachTheListenerOnceAndInvalidOffersAreCounted() throws Exception {
        final NodeIdentity x = NodeIdentity.generate();
        final NodeIdentity y = NodeIdentity.generate();
        final NostrRuntime rtY = runtime(y);
        final List<TraversalOffer> offers = new CopyOnWriteArrayList<>();
        final List<TraversalAnswer> answers = new CopyOnWriteArrayList<>();
        final List<String> senders = new CopyOnWriteArrayList<>();
        rtY.onSignal(new SignalChannel.Listener() {
            @Override
            public void onOffer(final String senderNpub, final TraversalOffer offer,
                    final SignalValidation.Freshness freshness, final long receivedMs) {
                senders.add(senderNpub);
                offers.add(offer);
            }

            @Override
            public void onAnswer(final String senderNpub, final TraversalAnswer answer, final long receivedMs) {
                senders.add(senderNpub);
                answers.add(answer);
            }
        });
        until(WAIT, () -> relay.received.stream().anyMatch(m -> m.startsWith("[\"REQ\"") && m.contains("21059")),
                relay.received::toString);
        final NostrRuntime rtX = runtime(x);
        final long now = wall.get();
        final String session = now + "-00000000000000ff";
        final TraversalOffer offer = new TraversalOffer("offer", session, now, now + 120_000, session, x.npub(),
                y.npub(), new TraversalAddress("udp", "198.18.0.5", 40000), List.of(), null);
        final SignalChannel.Sent sent = rtX.send(y.publicKey(), offer.toJson(), List.of()).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(relay.url().toString()), sent.acceptedBy());
        until(WAIT, () -> offers.size() == 1, rtY.counters()::toString);
        assertEquals(offer, offers.getFirst());
        assertEquals(x.npub(), senders.getFirst());

        // The same session again (a new wrap): the replay cache drops it.
        rtX.send(y.publicKey(), offer.toJson(), List.of()).get(5, TimeUnit.SECONDS);
        until(WAIT, () -> rtY.counters().get("signals_replayed") == 1, rtY.counters()::toString);
        // An offer claiming another sender: identity-mismatch, counted, not passed on.
        final String s2 = now + "-0000000000000100";
        rtX.send(y.publicKey(), new TraversalOffer("offer", s2, now, now + 120_000, s2, y.npub(), y.npub(), null,
                List.of(), null).toJson(), List.of()).get(5, TimeUnit.SECONDS);
        until(WAIT, () -> rtY.counters().get("signals_rejected") == 1, rtY.counters()::toString);
        // An answer addressed to Y reaches the listener.
        final TraversalAnswer answer = new TraversalAnswer("answer", session, now, now + 120_000, now + "-1", x.npub(),
                y.npub(), session, false, null, List.of(), null, null, "no-usable-addresses", now);
        rtX.send(y.publicKey(), answer.toJson(), List.of()).get(5, TimeUnit.SECONDS);
        until(WAIT, () -> answers.size() == 1, rtY.counters()::toString);
        assertEquals(answer, answers.getFirst());
        assertEquals(1, offers.size());
        assertEquals(4L, rtY.counters().get("signals_received"));
        assertNull(rtX.lastPublished());
    }

    @Test
    void malformedAdvertsAreCountedAndDropped() throws Exception {
        final NodeIdentity a = NodeIdentity.generate();
        final NostrRuntime rt = runtime(a);
        final long now = wall.get() / 1000;
        final List<List<String>> tags = List.of(List.of("d", "fips-overlay-v1"), List.of("protocol", "fips-overlay-v1"),
                List.of("version", "1"), List.of("expiration", Long.toString(now + 3600)));
        // Garbage content signed by a fresh key (the reference's relay test), a wrong protocol tag, and an advert
        // whose only endpoint is private: none is cached, each is counted as invalid.
        publishRaw(NostrEvent.sign(NodeIdentity.generate().secretKey(), now,
                OverlayAdvert.KIND, tags, "{not json"));
        publishRaw(NostrEvent.sign(NodeIdentity.generate().secretKey(), now,
                OverlayAdvert.KIND, List.of(List.of("d", "fips-overlay-v1"), List.of("protocol", "other-app")),
                udp("198.18.0.1:1").toJson()));
        publishRaw(NostrEvent.sign(NodeIdentity.generate().secretKey(), now,
                OverlayAdvert.KIND, tags, udp("192.168.1.1:2121").toJson()));
        until(WAIT, () -> rt.counters().get("adverts_invalid") == 3, rt.counters()::toString);
        assertTrue(rt.adverts().isEmpty());
        assertEquals(0L, rt.counters().get("adverts_stored"));
    }

    /** Sends a ready-made event through a plain relay client. */
    private void publishRaw(final NostrEvent e) throws Exception {
        try (RelayClient c = new RelayClient(relay.url(), http, RelayScheduler.of(timers), wall::get,
                new Backoff(20, 200), Duration.ofSeconds(5))) {
            c.start();
            until(WAIT, c::isConnected, () -> "publisher connected");
            assertTrue(c.publish(e, 5_000).get(10, TimeUnit.SECONDS).accepted());
        }
    }
}
