package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static net.fips.testing.Await.until;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;

/** The relay client against the in-test relay on loopback (discovery-gateway.md §1.6, §7.7). */
class RelayClientTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final long WAIT_MS = 10_000;
    private static final Duration WAIT = Duration.ofMillis(WAIT_MS);

    private final HttpClient http = HttpClient.newHttpClient();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestRelay relay;
    /** What a timed-out wait reports besides its condition: the last connected client's counters and the relay. */
    private Supplier<String> diagnostics = () -> "";

    @BeforeEach
    void startRelay() throws IOException {
        relay = new TestRelay(() -> NOW_MS / 1000);
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

    private RelayClient client(final URI url, final RelayScheduler scheduler, final Backoff backoff) {
        final RelayClient c = new RelayClient(url, http, scheduler, () -> NOW_MS, backoff, Duration.ofSeconds(5));
        closeables.add(c);
        return c;
    }

    private RelayClient connected() {
        final RelayClient c = client(relay.url(), RelayScheduler.of(timers), new Backoff(20, 200));
        diagnostics = () -> " (client " + c.stats() + ", relay connections " + relay.connections() + ", received "
                + relay.received + ")";
        c.start();
        until(WAIT, c::isConnected, () -> "client connected" + diagnostics.get());
        return c;
    }

    private static NostrEvent advert(final byte[] sk, final long createdAt) {
        return NostrEvent.sign(sk, createdAt, OverlayAdvert.KIND, List.of(List.of("d", "fips-overlay-v1"),
                List.of("protocol", "fips-overlay-v1")), "{}");
    }

    @Test
    void publishIsAcknowledgedAndABadEventRefused() throws Exception {
        final RelayClient c = connected();
        final NostrEvent e = advert(NostrEventTest.SK1, NOW_MS / 1000);
        final RelayClient.PublishResult ok = c.publish(e, WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertTrue(ok.accepted(), ok.message());
        assertEquals(List.of(e), relay.stored());
        final NostrEvent forged = new NostrEvent(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), "{\"x\":1}",
                e.sig());
        final RelayClient.PublishResult bad = c.publish(forged, WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertFalse(bad.accepted());
        assertTrue(bad.message().startsWith("invalid"), bad.message());
    }

    @Test
    void subscriptionGetsStoredThenLiveEventsAndFetchEndsAtEose() throws Exception {
        final RelayClient alice = connected();
        final RelayClient bob = connected();
        final NostrEvent old = advert(NostrEventTest.SK1, NOW_MS / 1000 - 10);
        assertTrue(alice.publish(old, WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS).accepted());

        final BlockingQueue<NostrEvent> got = new LinkedBlockingQueue<>();
        bob.subscribe(List.of(Filter.all().kinds(OverlayAdvert.KIND).tag('d', "fips-overlay-v1")), got::add);
        assertEquals(old, got.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        final NostrEvent fresh = advert(NostrEventTest.SK2, NOW_MS / 1000);
        assertTrue(alice.publish(fresh, WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS).accepted());
        assertEquals(fresh, got.poll(WAIT_MS, TimeUnit.MILLISECONDS));

        final String aliceHex = HEX.formatHex(Secp256k1.xOnly(NostrEventTest.SK1));
        final List<NostrEvent> fetched = bob.fetch(List.of(Filter.all().authors(aliceHex)
                .kinds(OverlayAdvert.KIND).tag('d', "fips-overlay-v1")), WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(List.of(old), fetched);
        assertTrue(bob.fetch(List.of(Filter.all().authors("00".repeat(32))), WAIT_MS)
                .get(WAIT_MS, TimeUnit.MILLISECONDS).isEmpty());
        // The fetch closed its REQ: the relay saw a CLOSE for it.
        until(WAIT, () -> relay.received.stream().anyMatch(m -> m.startsWith("[\"CLOSE\",\"fetch-")),
                () -> "CLOSE sent" + diagnostics.get());
    }

    @Test
    void fetchWithoutEoseEndsAtItsTimeoutWithWhatArrived() throws Exception {
        final RelayClient c = connected();
        relay.silent = true;
        final List<NostrEvent> none = c.fetch(List.of(Filter.all()), 100).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertTrue(none.isEmpty());
    }

    @Test
    void invalidExpiredAndMalformedRelayInputIsCountedAndDropped() throws Exception {
        final RelayClient c = connected();
        final List<NostrEvent> got = new CopyOnWriteArrayList<>();
        final String sub = c.subscribe(List.of(Filter.all()), got::add);
        until(WAIT, () -> relay.received.stream().anyMatch(m -> m.contains(sub)),
                () -> "REQ at relay" + diagnostics.get());
        final NostrEvent good = advert(NostrEventTest.SK1, 1);
        final NostrEvent expired = NostrEvent.sign(NostrEventTest.SK1, 1, 1,
                List.of(List.of("expiration", Long.toString(NOW_MS / 1000))), "old");
        final String badSig = good.toJson().replace(good.sig(), "00".repeat(64));
        relay.sendRaw("[\"EVENT\",\"" + sub + "\"," + badSig + "]");
        relay.sendRaw("[\"EVENT\",\"" + sub + "\"," + expired.toJson() + "]");
        relay.sendRaw("not json");
        relay.sendRaw("[\"EVENT\"]");
        relay.sendRaw("{\"EVENT\":1}");
        relay.sendRaw("[\"EVENT\",\"other-sub\"," + good.toJson() + "]");
        relay.sendRaw("[\"NOTICE\",\"hello\"]");
        relay.sendRaw("[\"EVENT\",\"" + sub + "\"," + good.toJson() + "]");
        until(WAIT, () -> got.size() == 1, () -> "the one good event" + diagnostics.get());
        assertEquals(List.of(good), got);
        final RelayClient.Stats s = c.stats();
        assertEquals(1, s.eventsInvalid());
        assertEquals(1, s.eventsExpired());
        assertEquals(4, s.malformedMessages());
        assertEquals(1, s.notices());
        assertEquals(1, s.eventsDelivered());
        assertTrue(c.isConnected());
    }

    @Test
    void reconnectsAndResendsSubscriptionsAfterTheRelayDropsIt() throws Exception {
        final RelayClient c = connected();
        final BlockingQueue<NostrEvent> got = new LinkedBlockingQueue<>();
        final String sub = c.subscribe(List.of(Filter.all().kinds(OverlayAdvert.KIND)), got::add);
        until(WAIT, () -> relay.received.stream().filter(m -> m.contains(sub)).count() == 1,
                () -> "first REQ" + diagnostics.get());
        relay.dropConnections();
        until(WAIT, () -> c.stats().disconnects() == 1, () -> "disconnect noticed" + diagnostics.get());
        until(WAIT, () -> relay.received.stream().filter(m -> m.contains(sub)).count() == 2,
                () -> "REQ re-sent" + diagnostics.get());
        assertEquals(2, c.stats().connects());
        final RelayClient other = connected();
        final NostrEvent e = advert(NostrEventTest.SK2, NOW_MS / 1000);
        assertTrue(other.publish(e, WAIT_MS).get(WAIT_MS, TimeUnit.MILLISECONDS).accepted());
        assertEquals(e, got.poll(WAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void unreachableRelayIsRetriedWithExponentialBackoff() throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            port = s.getLocalPort();
        }
        final List<Long> delays = new CopyOnWriteArrayList<>();
        final List<Runnable> due = new CopyOnWriteArrayList<>();
        final RelayScheduler manual = (task, delayMs) -> {
            delays.add(delayMs);
            due.add(task);
            return () -> { };
        };
        final RelayClient c = client(URI.create("ws://127.0.0.1:" + port), manual, new Backoff(2_000, 10_000));
        final RelayClient.PublishResult r = c.publish(advert(NostrEventTest.SK1, 1), 1000).get();
        assertEquals(new RelayClient.PublishResult(false, "not connected"), r);
        c.start();
        for (int attempt = 1; attempt <= 5; attempt++) {
            final int n = attempt;
            until(WAIT, () -> delays.size() == n, () -> "retry " + n + " scheduled" + diagnostics.get());
            due.get(n - 1).run();
        }
        until(WAIT, () -> delays.size() == 6, () -> "retry 6 scheduled" + diagnostics.get());
        assertEquals(List.of(2_000L, 4_000L, 8_000L, 10_000L, 10_000L, 10_000L), delays);
        assertEquals(6, c.stats().connectFailures());
        assertFalse(c.isConnected());
    }

    @Test
    void backoffDoublesToItsCap() {
        assertEquals(List.of(2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 60_000L, 60_000L),
                List.of(0, 1, 2, 3, 4, 5, 40).stream().map(Backoff.RELAY_DEFAULT::delayMs).toList());
    }
}
