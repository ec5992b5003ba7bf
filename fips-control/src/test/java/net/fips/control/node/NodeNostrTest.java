package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.NodeState;
import net.fips.control.identity.Nip19;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkCounter;
import net.fips.control.link.LogCapture;
import net.fips.control.nostr.Backoff;
import net.fips.control.nostr.DiscoveryEvents;
import net.fips.control.nostr.FailureState;
import net.fips.control.nostr.NostrEvent;
import net.fips.control.nostr.NostrFormatException;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.RelayClient;
import net.fips.control.nostr.RelayScheduler;
import net.fips.control.nostr.TestRelay;
import net.fips.dataplane.udp.TraversalSocket;
import net.fips.testing.FreePorts;

/**
 * Issue 20: "A node configured with a peer's npub and no address reaches it through the peer's advert". Two real
 * nodes and the in-test relay on loopback: B advertises its UDP endpoint (kind 37195), A knows only B's npub
 * ({@code via_nostr: true}, no address), finds B's advert through the relay and links to it through the normal
 * configured-peer dial. Loopback endpoints are kept by {@link NodeOptions#nostrLoopbackEndpoints} (the reference's
 * public filter drops 127.0.0.1). After both stop, no Nostr thread is left.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeNostrTest {
    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private TestRelay relay;

    @AfterEach
    void closeAll() throws Exception {
        nodes.forEach(Node::close);
        if (relay != null) {
            relay.close();
        }
    }

    private static String yaml(final NodeIdentity self, final int port, final Path socket, final String relayUrl,
            final boolean advertise, final NodeIdentity npubOnlyPeer) {
        return yaml(self, port, socket, relayUrl, advertise, npubOnlyPeer, "");
    }

    private static String yaml(final NodeIdentity self, final int port, final Path socket, final String relayUrl,
            final boolean advertise, final NodeIdentity npubOnlyPeer, final String nostrExtra) {
        final StringBuilder sb = new StringBuilder();
        sb.append("node:\n  identity:\n    nsec: \"").append(self.nsec()).append("\"\n");
        sb.append("  control:\n    enabled: true\n    socket_path: \"").append(socket).append("\"\n");
        sb.append("  rate_limit:\n    handshake_timeout_secs: 2\n");
        sb.append("  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n");
        sb.append("  discovery:\n    nostr:\n      enabled: true\n      advertise: ").append(advertise).append('\n');
        sb.append("      advert_relays: [\"").append(relayUrl).append("\"]\n");
        sb.append("      dm_relays: [\"").append(relayUrl).append("\"]\n");
        sb.append(nostrExtra);
        sb.append("dns:\n  enabled: false\n");
        sb.append("transports:\n  udp:\n    bind_addr: \"127.0.0.1:").append(port).append("\"\n");
        if (advertise) {
            sb.append("    advertise_on_nostr: true\n    public: true\n");
        }
        if (npubOnlyPeer == null) {
            sb.append("peers: []\n");
        } else {
            sb.append("peers:\n  - npub: \"").append(npubOnlyPeer.npub()).append("\"\n");
            sb.append("    alias: \"b\"\n    via_nostr: true\n");
        }
        return sb.toString();
    }

    private Node start(final String yaml) throws Exception {
        return start(yaml, System::currentTimeMillis);
    }

    private Node start(final String yaml, final LongSupplier wallMs) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .nostrLoopbackEndpoints(true).ipv6Sink(new NodeTestSupport.Collector()::sink)
                .nostrWallClock(wallMs));
        nodes.add(n);
        return n;
    }

    @Test
    void npubOnlyPeerIsReachedThroughItsAdvert() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.udp();
        final Node b = start(yaml(idB, portB, dir.resolve("b.sock"), url, true, null));
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), url, false, idB));
        assertTrue(a.config().warnings().stream().noneMatch(w -> w.contains("via_nostr")),
                a.config().warnings()::toString);

        until(Duration.ofSeconds(30), () -> linked(a, b),
                () -> "A links to B through B's advert: A " + describe(a) + " " + a.controlApi().showNostr() + " B "
                        + b.controlApi().showNostr());

        // B's advert is on the relay with its UDP endpoint, as §1.8 builds it, and its relay list (kind 10050).
        final List<NostrEvent> stored = relay.stored();
        final NostrEvent advert = stored.stream().filter(e -> e.kind() == OverlayAdvert.KIND).findFirst()
                .orElseThrow();
        assertEquals(idB.npub(), Nip19.encodeNpub(advert.pubkeyBytes()));
        assertEquals("{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":[{\"transport\":\"udp\","
                + "\"addr\":\"127.0.0.1:" + portB + "\"}]}", advert.content());
        assertTrue(stored.stream().anyMatch(e -> e.kind() == 10050), stored::toString);
        assertTrue(stored.stream().noneMatch(e -> e.kind() == OverlayAdvert.KIND
                && e.pubkey().equals(HexFormat.of().formatHex(idA.publicKey()))),
                "A has advertise: false and publishes no advert");

        // The operator surface: A saw B's advert and dialled it; B published and knows when.
        until(Duration.ofSeconds(5),
                () -> "linked".equals(a.controlApi().showNostr().get("dials").get(0).get("outcome").asText()),
                () -> a.controlApi().showNostr().toString());
        final JsonNode na = a.controlApi().showNostr();
        assertEquals(List.of("enabled", "npub", "app", "policy", "advertise", "relays", "our_advert", "adverts",
                "dials", "traversals", "open_discovery", "counters"), iterable(na.fieldNames()));
        assertEquals(List.of("url", "state", "advert_relay", "dm_relay", "connects", "connect_failures", "disconnects",
                "events_delivered", "events_invalid", "events_expired", "malformed_messages"),
                iterable(na.get("relays").get(0).fieldNames()));
        assertEquals(List.of("endpoints", "last_publish_ms", "event_id", "expires_at_ms", "accepted_by",
                "relay_list_published_ms"), iterable(na.get("our_advert").fieldNames()));
        assertEquals(List.of("npub", "display_name", "configured", "endpoint", "outcome", "outcome_at_ms", "dials",
                "consecutive_failures", "cooldown_until_ms"), iterable(na.get("dials").get(0).fieldNames()));
        assertEquals("connected", na.get("relays").get(0).get("state").asText(), na::toString);
        final JsonNode dial = na.get("dials").get(0);
        assertEquals(idB.npub(), dial.get("npub").asText());
        assertEquals("udp 127.0.0.1:" + portB, dial.get("endpoint").asText());
        assertEquals(0, dial.get("consecutive_failures").asLong());
        assertEquals(idB.npub(), na.get("adverts").get(0).get("npub").asText());
        assertTrue(na.get("our_advert").get("last_publish_ms").isNull(), na::toString);
        final JsonNode nb = b.controlApi().showNostr();
        assertFalse(nb.get("our_advert").get("last_publish_ms").isNull(), nb::toString);
        assertEquals(advert.id(), nb.get("our_advert").get("event_id").asText());
        assertEquals(url, nb.get("our_advert").get("accepted_by").get(0).asText());
        final JsonNode peers = NodeTestSupport.ask(a, "show_nostr");
        assertEquals(idB.npub(), peers.get("dials").get(0).get("npub").asText());

        // Stop: both nodes' Nostr threads end (the timer and the WebSocket client's).
        nodes.forEach(Node::close);
        until(Duration.ofSeconds(10), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("fips-nostr")),
                () -> "Nostr threads still alive: " + Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("fips-nostr")).map(Thread::getName).toList());
        until(Duration.ofSeconds(10), () -> relay.connections() == 0,
                () -> "relay connections after stop: " + relay.connections());
    }

    @Test
    void failedDialsFromAnAdvertEndInCooldownAndStopDialling() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        // B is not running: its advert (signed with its key) points at a port nobody answers on.
        final int deadPort = FreePorts.udp();
        publish(DiscoveryEvents.advert(idB.secretKey(), new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1,
                List.of(new OverlayAdvert.Endpoint("udp", "127.0.0.1:" + deadPort)), null, null),
                "fips-overlay-v1", System.currentTimeMillis(), 3600));
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), url, false, idB,
                "      failure_streak_threshold: 2\n      extended_cooldown_secs: 3600\n"));

        until(Duration.ofSeconds(30), () -> "cooldown".equals(dialOf(a).get("outcome").asText()),
                () -> "cooldown after two failed" + " dials: " + a.controlApi().showNostr() + " " + describe(a));
        final JsonNode d = dialOf(a);
        assertEquals("udp 127.0.0.1:" + deadPort, d.get("endpoint").asText());
        assertEquals(2, d.get("consecutive_failures").asLong(), d::toString);
        final long until = d.get("cooldown_until_ms").asLong();
        assertTrue(until > System.currentTimeMillis() + 3_500_000L, d::toString);
        // In cooldown the link layer neither dials nor schedules a redial of B, for several ticks.
        final long retries = a.linkSnapshot().counter(LinkCounter.RETRIES_STARTED);
        final long firstTick = a.linkSnapshot().takenAtNanos();
        until(Duration.ofSeconds(10), () -> a.linkSnapshot().takenAtNanos() - firstTick > 3_000_000_000L,
                () -> "three more ticks");
        assertEquals(retries, a.linkSnapshot().counter(LinkCounter.RETRIES_STARTED), () -> describe(a));
        assertTrue(a.linkSnapshot().dials().isEmpty() && a.linkSnapshot().retries().isEmpty(), () -> describe(a));
        assertEquals("cooldown", dialOf(a).get("outcome").asText());
    }

    @Test
    void aDeadFirstEndpointIsFollowedByTheNext() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.udp();
        final int deadPort = FreePorts.udp();
        // B runs but does not advertise; its advert (signed with its key) lists a dead endpoint first.
        final Node b = start(yaml(idB, portB, dir.resolve("b.sock"), url, false, null));
        publish(DiscoveryEvents.advert(idB.secretKey(), new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1,
                List.of(new OverlayAdvert.Endpoint("udp", "127.0.0.1:" + deadPort),
                        new OverlayAdvert.Endpoint("udp", "127.0.0.1:" + portB)), null, null),
                "fips-overlay-v1", System.currentTimeMillis(), 3600));
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), url, false, idB));
        until(Duration.ofSeconds(30), () -> linked(a, b),
                () -> "A reaches B at its second endpoint: " + a.controlApi().showNostr() + " " + describe(a));
        until(Duration.ofSeconds(5), () -> "linked".equals(dialOf(a).get("outcome").asText()),
                () -> a.controlApi().showNostr().toString());
        final JsonNode d = dialOf(a);
        assertEquals("udp 127.0.0.1:" + portB, d.get("endpoint").asText());
        assertEquals(2, d.get("dials").asLong(), d::toString);
        assertEquals(0, d.get("consecutive_failures").asLong(), "the link cleared the streak");
        assertEquals(NullNode.getInstance(), d.get("cooldown_until_ms"));
    }

    @Test
    void openPolicyDialsStrangersFromTheirAdverts() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final Node b = start(yaml(idB, FreePorts.udp(), dir.resolve("b.sock"), url, true, null));
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), url, false, null,
                "      policy: open\n"));
        until(Duration.ofSeconds(30), () -> linked(a, b), () -> "open discovery: " + a.controlApi().showNostr());
        until(Duration.ofSeconds(5), () -> "linked".equals(dialOf(a).get("outcome").asText()),
                () -> a.controlApi().showNostr().toString());
        assertFalse(dialOf(a).get("configured").asBoolean());
        assertEquals(idB.npub(), dialOf(a).get("npub").asText());
    }

    /**
     * Policy open, §1.10: the per-tick sweep dials both cached strangers at once; the startup sweep runs once,
     * {@code startup_sweep_delay_secs} after start on Nostr's (injected) wall clock, skips the advert older than
     * {@code startup_sweep_max_age_secs} first of all, and counts the other as already pending.
     */
    @Test
    void startupSweepRunsOnceAfterItsDelayAndSkipsOldAdverts() throws Exception {
        final AtomicLong wall = new AtomicLong(System.currentTimeMillis());
        relay = new TestRelay(() -> wall.get() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idOld = NodeIdentity.generate();
        final NodeIdentity idNew = NodeIdentity.generate();
        // Neither runs: their adverts point at ports nobody answers on.
        publish(DiscoveryEvents.advert(idOld.secretKey(), new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1,
                List.of(new OverlayAdvert.Endpoint("udp", "127.0.0.1:" + FreePorts.udp())), null, null),
                "fips-overlay-v1", wall.get() - 2_000_000L, 3600));
        publish(DiscoveryEvents.advert(idNew.secretKey(), new OverlayAdvert(OverlayAdvert.IDENTIFIER, 1,
                List.of(new OverlayAdvert.Endpoint("udp", "127.0.0.1:" + FreePorts.udp())), null, null),
                "fips-overlay-v1", wall.get(), 3600));
        final Node a = start(yaml(NodeIdentity.generate(), FreePorts.udp(), dir.resolve("a.sock"), url, false, null,
                "      policy: open\n      startup_sweep_delay_secs: 5\n      startup_sweep_max_age_secs: 1000\n"),
                wall::get);
        until(Duration.ofSeconds(30), () -> a.controlApi().showNostr().get("dials").size() == 2,
                () -> "the per-tick sweep dials both strangers: " + a.controlApi().showNostr());
        assertTrue(sweeps(a).get("last_sweep").get("queued").asInt() >= 1, () -> sweeps(a).toString());
        final long tick = a.linkSnapshot().takenAtNanos();
        until(Duration.ofSeconds(10), () -> a.linkSnapshot().takenAtNanos() - tick > 2_000_000_000L,
                () -> "two more ticks");
        assertFalse(sweeps(a).get("startup_sweep_done").asBoolean(), "the wall clock has not moved: not due yet");
        assertTrue(sweeps(a).get("startup_sweep").isNull());

        wall.addAndGet(5_000);
        until(Duration.ofSeconds(10), () -> sweeps(a).get("startup_sweep_done").asBoolean(),
                () -> "startup sweep due: " + sweeps(a));
        final JsonNode first = sweeps(a).get("startup_sweep");
        assertEquals(wall.get(), first.get("at_ms").asLong(), first::toString);
        assertEquals(2, first.get("cached").asInt(), first::toString);
        assertEquals(0, first.get("queued").asInt(), first::toString);
        assertEquals(1, first.get("skipped_age").asInt(), first::toString);
        assertEquals(1, first.get("skipped_retry_pending").asInt() + first.get("skipped_connecting").asInt(),
                first::toString);
        assertEquals(2, first.get("skipped_total").asInt(), first::toString);

        wall.addAndGet(10_000);
        final long later = a.linkSnapshot().takenAtNanos();
        until(Duration.ofSeconds(10), () -> a.linkSnapshot().takenAtNanos() - later > 2_000_000_000L,
                () -> "two more ticks");
        assertEquals(first, sweeps(a).get("startup_sweep"), "the startup sweep runs once");
    }

    /**
     * §1.12 record_protocol_mismatch: a packet of another FMP version on a socket adopted for a peer puts that peer
     * into {@code protocol_mismatch_cooldown_secs} (streak at the threshold), with one WARN per fresh cooldown; a
     * repeat inside half of the window stays quiet, one after that warns again.
     */
    @Test
    void aForeignVersionOnAnAdoptedSocketStartsTheMismatchCooldown() throws Exception {
        final AtomicLong wall = new AtomicLong(System.currentTimeMillis());
        relay = new TestRelay(() -> wall.get() / 1000);
        final Node a = start(yaml(NodeIdentity.generate(), FreePorts.udp(), dir.resolve("a.sock"),
                relay.url().toString(), false, null, "      protocol_mismatch_cooldown_secs: 600\n"), wall::get);
        final NodeIdentity idB = NodeIdentity.generate();
        final InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
        try (LogCapture log = LogCapture.attach(NostrDiscovery.class.getName());
                TraversalSocket remote = TraversalSocket.open(loopback)) {
            final TraversalSocket punched = TraversalSocket.open(loopback);
            final InetSocketAddress adoptedPort = punched.localAddress();
            final int tid = a.natAdopter().orElseThrow().adopt(idB.npub(), punched, remote.localAddress());
            punched.close();
            assertEquals(Optional.of(idB.npub()), a.natAdopter().orElseThrow().peerOn(tid));
            final byte[] v1 = {0x10, 0, 0, 0, 0, 0, 0, 0};
            until(Duration.ofSeconds(10), () -> {
                remote.send(v1, v1.length, adoptedPort);
                return mismatches(a) >= 1;
            }, () -> "mismatch seen: " + a.controlApi().showNostr());
            final FailureState.View v = a.nostr().failureOf(idB.npub());
            assertEquals(5, v.consecutiveFailures(), "the streak is raised to failure_streak_threshold");
            assertEquals(wall.get() + 600_000, v.cooldownUntilMs());
            assertEquals(1, log.lines("WARNING", "speaks FMP version 1").size());

            // Again inside half the window (the data plane reports at most once a second): counted, no WARN.
            wall.addAndGet(60_000);
            until(Duration.ofSeconds(10), () -> {
                remote.send(v1, v1.length, adoptedPort);
                return mismatches(a) >= 2;
            }, () -> "second report");
            assertEquals(wall.get() + 600_000, a.nostr().failureOf(idB.npub()).cooldownUntilMs());
            assertEquals(1, log.lines("WARNING", "speaks FMP version 1").size());

            // Less than half of the window left: a fresh cooldown, warned again.
            wall.addAndGet(400_000);
            until(Duration.ofSeconds(10), () -> {
                remote.send(v1, v1.length, adoptedPort);
                return mismatches(a) >= 3;
            }, () -> "third report");
            assertEquals(2, log.lines("WARNING", "speaks FMP version 1").size());
        }
    }

    /**
     * §1.8: with {@code advertise} off, the advert this process published is deleted (NIP-09 kind 5 naming its
     * id, to {@code advert_relays}); here a reload switches it off (ADR 0058), and back on publishes again.
     */
    @Test
    void switchingAdvertiseOffDeletesThePublishedAdvert() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        final String url = relay.url().toString();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.udp();
        final Path sock = dir.resolve("b.sock");
        final Node b = start(yaml(idB, portB, sock, url, true, null));
        until(Duration.ofSeconds(20), () -> !b.controlApi().showNostr().get("our_advert").get("event_id").isNull(),
                () -> "B published: " + b.controlApi().showNostr());
        final String published = b.controlApi().showNostr().get("our_advert").get("event_id").asText();
        assertTrue(relay.stored().stream().anyMatch(e -> e.id().equals(published)));
        assertEquals(0, deletions().size(), "no deletion while advertising");

        final Node.Reload off = b.reload(load(yaml(idB, portB, sock, url, true, null)
                .replace("advertise: true", "advertise: false")), l -> "log level " + l);
        assertTrue(off.reloaded().contains("node.discovery.nostr.advertise true -> false (our advert deleted from"
                + " the relays)"), off::summary);
        assertTrue(off.restartNeeded().isEmpty(), off::summary);
        until(Duration.ofSeconds(20), () -> deletions().size() == 1, () -> "deletion sent: " + relay.received);
        final NostrEvent d = deletions().getFirst();
        assertEquals(HexFormat.of().formatHex(idB.publicKey()), d.pubkey());
        assertEquals(List.of(List.of("e", published)), d.tags());
        assertEquals("", d.content());
        until(Duration.ofSeconds(5), () -> relay.stored().stream().noneMatch(e -> e.kind() == OverlayAdvert.KIND),
                () -> "the relay deleted the advert: " + relay.stored());
        until(Duration.ofSeconds(5), () -> b.controlApi().showNostr().get("our_advert").get("event_id").isNull(),
                () -> b.controlApi().showNostr().toString());
        final JsonNode n = b.controlApi().showNostr();
        assertFalse(n.get("advertise").asBoolean());
        assertEquals(1, n.get("counters").get("advert_deletions").asLong(), n::toString);

        // Back on: published again (a new id), nothing more deleted.
        b.reload(load(yaml(idB, portB, sock, url, true, null)), l -> "log level " + l);
        until(Duration.ofSeconds(20), () -> relay.stored().stream().anyMatch(e -> e.kind() == OverlayAdvert.KIND),
                () -> "published again: " + b.controlApi().showNostr());
        assertEquals(1, deletions().size());
    }

    /** @return the kind-5 events the relay received */
    private List<NostrEvent> deletions() {
        final List<NostrEvent> out = new ArrayList<>();
        for (final String m : relay.received) {
            if (m.startsWith("[\"EVENT\"") && m.contains("\"kind\":5,")) {
                try {
                    out.add(NostrEvent.parse(new ObjectMapper().readTree(m).get(1).toString()));
                } catch (final IOException | NostrFormatException e) {
                    throw new AssertionError("the relay got a malformed kind 5: " + m, e);
                }
            }
        }
        return out;
    }

    private static long mismatches(final Node n) {
        return n.controlApi().showNostr().get("counters").get("protocol_mismatches").asLong();
    }

    private static JsonNode sweeps(final Node n) {
        return n.controlApi().showNostr().get("open_discovery");
    }

    private static JsonNode dialOf(final Node n) {
        final JsonNode dials = n.controlApi().showNostr().get("dials");
        return dials.isEmpty() ? NullNode.getInstance() : dials.get(0);
    }

    private void publish(final NostrEvent e) throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (RelayClient c = new RelayClient(relay.url(), http, RelayScheduler.of(timers),
                System::currentTimeMillis, Backoff.RELAY_DEFAULT, Duration.ofSeconds(5))) {
            c.start();
            until(Duration.ofSeconds(10), c::isConnected, () -> "test publisher connected");
            assertTrue(c.publish(e, 5_000).get(10, TimeUnit.SECONDS).accepted());
        } finally {
            timers.shutdownNow();
            http.close();
        }
    }

    private static List<String> iterable(final Iterator<String> names) {
        final List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }

    @Test
    void anUnreachableRelayDoesNotHoldTheNodeAndStopLeavesNoThread() throws Exception {
        final int closedPort = FreePorts.tcp();
        final NodeIdentity idA = NodeIdentity.generate();
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), "ws://127.0.0.1:" + closedPort, true,
                null));
        assertEquals(NodeState.RUNNING, a.state());
        until(Duration.ofSeconds(10),
                () -> a.controlApi().showNostr().get("relays").get(0).get("connect_failures").asLong() >= 1,
                () -> a.controlApi().showNostr().toString());
        final JsonNode n = a.controlApi().showNostr();
        assertEquals("disconnected", n.get("relays").get(0).get("state").asText());
        assertTrue(n.get("our_advert").get("last_publish_ms").isNull(), n::toString);
        a.close();
        until(Duration.ofSeconds(10), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("fips-nostr")),
                () -> "Nostr threads still alive after stop");
    }
}
