package net.fips.control.node;

import static net.fips.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.config.NostrConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nostr.AdvertValidity;
import net.fips.control.nostr.Backoff;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.RelayPool;
import net.fips.control.nostr.RelayScheduler;
import net.fips.control.nostr.TestRelay;
import net.fips.control.nostr.TraversalAddress;
import net.fips.control.nostr.TraversalOffer;
import net.fips.testing.FreePorts;

/** The runtime's signals as the traversal coordinator's {@code Signalling}, between two runtimes over the relay. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NostrSignallingTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (final AutoCloseable c : closeables.reversed()) {
            c.close();
        }
        timers.shutdownNow();
        http.close();
    }

    private NostrRuntime runtime(final NodeIdentity id, final String relay) {
        final NostrConfig d = NostrConfig.DEFAULTS;
        final List<String> relays = List.of(relay);
        final NostrConfig cfg = new NostrConfig(true, false, relays, relays, d.stunServers(), false, d.app(), 120,
                d.policy(), 64, 16, 4, 2048, 2048, 10, 300, 2000, 200, 10_000, 3600, 1800, 5, 3600, 5, 1800, 300,
                4096, 86_400);
        final RelayPool pool = new RelayPool(relays, http, RelayScheduler.of(timers), System::currentTimeMillis,
                new Backoff(20, 200), Duration.ofSeconds(5));
        final NostrRuntime rt = new NostrRuntime(cfg, id, System::currentTimeMillis, RelayScheduler.of(timers), pool,
                AdvertValidity::isPubliclyUsable, new SecureRandom());
        closeables.add(rt);
        rt.start();
        return rt;
    }

    @Test
    void anOfferTravelsAsItsJsonWithTheSealSignerAsSender() throws Exception {
        final TestRelay relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        closeables.add(relay);
        final NodeIdentity x = NodeIdentity.generate();
        final NodeIdentity y = NodeIdentity.generate();
        final NostrRuntime rtX = runtime(x, relay.url().toString());
        final NostrRuntime rtY = runtime(y, relay.url().toString());
        final List<String[]> heard = new CopyOnWriteArrayList<>();
        new NostrSignalling(rtY).onSignal((sender, payload) -> heard.add(new String[] {sender, payload}));
        until(Duration.ofSeconds(10), () -> rtX.signalRelayConnected() && rtY.signalRelayConnected(),
                () -> "both connected");
        // Y's own subscription (p-tagged to Y) must be on the relay before X sends (kind 21059 is never stored);
        // X's subscription alone does not do.
        final String yHex = HexFormat.of().formatHex(y.publicKey());
        until(Duration.ofSeconds(10),
                () -> relay.received.stream().anyMatch(m -> m.startsWith("[\"REQ\"") && m.contains("21059")
                        && m.contains(yHex)),
                relay.received::toString);
        final long now = System.currentTimeMillis();
        final String session = now + "-0000000000000001";
        final String offer = new TraversalOffer("offer", session, now, now + 120_000, session, x.npub(), y.npub(),
                new TraversalAddress("udp", "198.18.0.5", 40000), List.of(), null).toJson();
        final NostrSignalling fromX = new NostrSignalling(rtX);
        fromX.send(y.npub(), offer);
        until(Duration.ofSeconds(10), () -> !heard.isEmpty(), rtY.counters()::toString);
        assertEquals(offer, heard.getFirst()[1]);
        assertEquals(x.npub(), heard.getFirst()[0]);
        assertEquals(TraversalOffer.parse(heard.getFirst()[1]).senderNpub(), x.npub());
        assertEquals(y.npub(), TraversalOffer.parse(heard.getFirst()[1]).recipientNpub());

        assertThrows(IOException.class, () -> fromX.send("npub1notakey", offer));
    }

    @Test
    void sendingWithoutAConnectedRelayFails() throws Exception {
        final int closed = FreePorts.tcp();
        final NostrRuntime rt = runtime(NodeIdentity.generate(), "ws://127.0.0.1:" + closed);
        final IOException e = assertThrows(IOException.class,
                () -> new NostrSignalling(rt).send(NodeIdentity.generate().npub(), "{}"));
        assertEquals("no dm relay connected", e.getMessage());
    }
}
