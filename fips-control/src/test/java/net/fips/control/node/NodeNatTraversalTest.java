package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.nat.TestStunResponder;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.TestRelay;

/**
 * NAT traversal in the running node (discovery-gateway.md §1.10-§1.11, §2): two real nodes, the in-test relay and
 * a test STUN responder on loopback; each node knows only the other's npub with the address {@code udp nat} and
 * advertises its UDP transport as {@code nat}. They exchange a gift-wrapped offer and answer through the relay,
 * punch from fresh sockets, adopt the punched sockets into {@code nostr-nat} slots and link over them. A node whose
 * peer never answers records each failure, stops in cooldown, and sends no more offers. Stopping the nodes leaves
 * no {@code fips-nat} thread.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeNatTraversalTest {
    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private TestRelay relay;
    private TestStunResponder stun;

    @AfterEach
    void closeAll() throws Exception {
        nodes.forEach(Node::close);
        if (relay != null) {
            relay.close();
        }
        if (stun != null) {
            stun.close();
        }
    }

    private String yaml(final NodeIdentity self, final String name, final NodeIdentity peer, final String extra) {
        final StringBuilder sb = new StringBuilder();
        sb.append("node:\n  identity:\n    nsec: \"").append(self.nsec()).append("\"\n");
        sb.append("  control:\n    enabled: true\n    socket_path: \"").append(dir.resolve(name + ".sock"))
                .append("\"\n");
        sb.append("  rate_limit:\n    handshake_timeout_secs: 2\n");
        sb.append("  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n");
        sb.append("  discovery:\n    nostr:\n      enabled: true\n");
        sb.append("      advert_relays: [\"").append(relay.url()).append("\"]\n");
        sb.append("      dm_relays: [\"").append(relay.url()).append("\"]\n");
        sb.append("      stun_servers: [\"stun:127.0.0.1:").append(stun.address().getPort()).append("\"]\n");
        sb.append("      punch_start_delay_ms: 300\n      punch_interval_ms: 50\n      punch_duration_ms: 3000\n");
        sb.append(extra);
        sb.append("dns:\n  enabled: false\n");
        sb.append("transports:\n  udp:\n    bind_addr: \"127.0.0.1:0\"\n    advertise_on_nostr: true\n");
        sb.append("peers:\n  - npub: \"").append(peer.npub()).append("\"\n    alias: \"peer\"\n");
        sb.append("    addresses: [{transport: udp, addr: nat}]\n");
        return sb.toString();
    }

    private Node start(final String yaml) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve(nodes.size() + "-acl"))
                .nostrLoopbackEndpoints(true).ipv6Sink(new NodeTestSupport.Collector()::sink));
        nodes.add(n);
        return n;
    }

    private void startRelayAndStun() throws Exception {
        relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        stun = new TestStunResponder(new InetSocketAddress("127.0.0.1", 0), 0, false);
    }

    private static JsonNode traversalOf(final Node n) {
        final JsonNode t = n.controlApi().showNostr().get("traversals");
        return t.isEmpty() ? null : t.get(0);
    }

    private static long natThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("fips-nat-")).count();
    }

    @Test
    void twoNodesKnowingOnlyEachOthersNpubPunchAndLink() throws Exception {
        startRelayAndStun();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final Node a = start(yaml(idA, "a", idB, ""));
        final Node b = start(yaml(idB, "b", idA, ""));
        assertTrue(a.config().warnings().stream().noneMatch(w -> w.contains("nat") || w.contains("punch")),
                a.config().warnings()::toString);

        until(Duration.ofMillis(60_000), () -> linked(a, b), () -> "A and B link over punched sockets: A "
                + describe(a) + " "
                + a.controlApi().showNostr() + " B " + describe(b) + " " + b.controlApi().showNostr());

        // Each advertised only the nat endpoint, so nothing but a traversal could have linked them.
        assertTrue(relay.stored().stream().filter(e -> e.kind() == OverlayAdvert.KIND)
                .allMatch(e -> e.content().contains("\"addr\":\"nat\"")
                        && e.content().contains("\"stunServers\":[\"stun:127.0.0.1:")), () -> relay.stored()
                .toString());
        assertTrue(wraps() >= 2, "offer and answer wraps went through the relay");
        // The wraps are not deleted after the link (ADR 0058): no kind-5 event reached the relay.
        assertEquals(0, relay.received.stream().filter(m -> m.startsWith("[\"EVENT\"")
                && m.contains("\"kind\":5,")).count(), () -> relay.received.toString());
        assertTrue(stun.requests() >= 2, "both sides asked STUN for their reflexive address");
        // The link runs on an adopted nostr-nat slot on both sides, not on the configured UDP transport (id 0).
        final int tidA = peerOf(a, b).transportId();
        final int tidB = peerOf(b, a).transportId();
        assertTrue(tidA > 0 && tidB > 0, () -> "A on " + tidA + ", B on " + tidB);
        assertTrue(a.controlApi().showTransports().stream().anyMatch(t -> "nostr-nat".equals(t.name())),
                () -> a.controlApi().showTransports().toString());

        // show_nostr: one side won its own traversal (the other answered), both show it established.
        until(Duration.ofMillis(5_000), () -> traversalOf(a) != null && traversalOf(b) != null
                && "established".equals(traversalOf(a).get("last_outcome").asText())
                && "established".equals(traversalOf(b).get("last_outcome").asText()),
                () -> "A " + a.controlApi().showNostr().get("traversals") + " B "
                        + b.controlApi().showNostr().get("traversals"));
        // show_peers[].nostr_traversal (§1.12): the side whose offer won noted the answer's clock skew, so its
        // entry for the other is a record with no failures, no cooldown and a skew; a peer without one shows null.
        final List<JsonNode> records = new ArrayList<>();
        for (final Node n : List.of(a, b)) {
            final JsonNode p = NodeTestSupport.ask(n, "show_peers").get("peers").get(0);
            assertTrue(p.has("nostr_traversal"), p::toString);
            if (!p.get("nostr_traversal").isNull()) {
                records.add(p.get("nostr_traversal"));
            }
        }
        assertFalse(records.isEmpty(), "the initiator's record is shown");
        for (final JsonNode t : records) {
            assertEquals(0, t.get("consecutive_failures").asLong(), t::toString);
            assertFalse(t.get("in_cooldown").asBoolean(), t::toString);
            assertTrue(t.get("cooldown_until_ms").isNull(), t::toString);
        }
        assertTrue(records.stream().anyMatch(t -> t.get("last_observed_skew_ms").isIntegralNumber()),
                records::toString);
        final JsonNode ta = traversalOf(a);
        assertEquals(List.of("npub", "in_flight", "initiated", "answered", "established", "failed",
                "last_outcome", "last_reason", "last_remote", "last_at_ms"), iterable(ta));
        assertEquals(idB.npub(), ta.get("npub").asText());
        assertTrue(ta.get("last_remote").asText().startsWith("127.0.0.1:"), ta::toString);
        assertTrue(traversalOf(a).get("answered").asLong() + traversalOf(b).get("answered").asLong() >= 1,
                () -> "one side answered the other's offer: A " + traversalOf(a) + " B " + traversalOf(b));

        for (final Node n : nodes) {
            n.close();
        }
        nodes.clear();
        until(Duration.ofMillis(10_000), () -> natThreads() == 0,
                () -> "fips-nat threads still alive: " + natThreads());
    }

    @Test
    void anUnansweredPeerEndsInCooldownWithoutFurtherOffers() throws Exception {
        startRelayAndStun();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        // B publishes its nat advert and leaves: its advert stays on the relay, nobody answers A's offers.
        final Node b = start(yaml(idB, "b", idA, ""));
        until(Duration.ofMillis(20_000),
                () -> relay.stored().stream().anyMatch(e -> e.kind() == OverlayAdvert.KIND),
                () -> "B's advert on the relay");
        b.close();
        nodes.clear();
        final Node a = start(yaml(idA, "a", idB, "      signal_ttl_secs: 2\n      failure_streak_threshold: 2\n"));

        until(Duration.ofMillis(60_000), () -> {
            final JsonNode p = a.controlApi().showNostr().get("dials");
            return !p.isEmpty() && "cooldown".equals(p.get(0).get("outcome").asText());
        }, () -> "A cools down after two unanswered offers: " + a.controlApi().showNostr());
        final JsonNode t = traversalOf(a);
        assertNotNull(t);
        assertEquals(2, t.get("failed").asLong(), t::toString);
        assertEquals("SignalTimeout", t.get("last_reason").asText());
        final JsonNode dial = a.controlApi().showNostr().get("dials").get(0);
        assertEquals(2, dial.get("consecutive_failures").asLong(), dial::toString);
        assertTrue(dial.get("cooldown_until_ms").asLong() > System.currentTimeMillis() + 1_000_000L,
                dial::toString);

        // In cooldown nothing more is sent: the relay's count of A's wraps stays still over several ticks.
        assertEquals(2, wraps(), "two offers, nothing else (B is gone)");
        final long wraps = wraps();
        final long firstTick = a.linkSnapshot().takenAtNanos();
        until(Duration.ofMillis(10_000), () -> a.linkSnapshot().takenAtNanos() - firstTick > 4_000_000_000L,
                () -> "four more ticks");
        assertEquals(wraps, wraps());
        assertEquals(2, traversalOf(a).get("initiated").asLong(), () -> traversalOf(a).toString());
    }

    /** @return gift wraps (kind 21059: offers and answers) the relay received */
    private long wraps() {
        return relay.received.stream().filter(m -> m.startsWith("[\"EVENT\"") && m.contains("\"kind\":21059"))
                .count();
    }

    private static List<String> iterable(final JsonNode n) {
        final List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
