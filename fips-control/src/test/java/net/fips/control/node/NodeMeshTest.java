package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.ask;
import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.TreeSet;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.node.NodeTestSupport.Sender;
import net.fips.control.node.NodeTestSupport.SequenceCheck;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.testing.FreePorts;

/**
 * Three real nodes in a chain over loopback UDP, A - B - C, with A and C linked only to B: the spanning tree
 * converges to the smallest address, B relays A's discovery of C (request out, signed response back), and B
 * forwards A's SessionDatagrams for C in its data plane (TTL decremented, content and order intact).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeMeshTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
              rekey:
                enabled: false
            """;

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node start(final String yaml, final NodeOptions options) throws Exception {
        final Node n = Node.start(load(yaml), options.aclDirectory(dir.resolve("acl")));
        nodes.add(n);
        return n;
    }

    /** A delivery hook that also remembers the TTL of the last datagram. */
    private static final class TtlAndSequence implements LocalDelivery {
        final SequenceCheck seq = new SequenceCheck();
        final AtomicInteger lastTtl = new AtomicInteger(-1);

        @Override
        public void deliver(final long linkId, final MemorySegment segment, final long offset, final int length) {
            if (length >= SessionDatagramHeader.SIZE) {
                lastTtl.set(segment.get(ValueLayout.JAVA_BYTE, offset + SessionDatagramHeader.TTL_OFFSET) & 0xFF);
            }
            seq.deliver(linkId, segment, offset, length);
        }
    }

    @Test
    void aMiddleNodeJoinsTheTreeRelaysDiscoveryAndForwardsDatagrams() throws Exception {
        final List<NodeIdentity> ids = new ArrayList<>(List.of(NodeIdentity.generate(), NodeIdentity.generate(),
                NodeIdentity.generate()));
        final NodeIdentity idA = ids.get(0);
        final NodeIdentity idB = ids.get(1);
        final NodeIdentity idC = ids.get(2);
        final NodeAddr minAddr = ids.stream().map(NodeIdentity::nodeAddr).min(Comparator.naturalOrder()).orElseThrow();
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final int pc = FreePorts.udp();
        final TtlAndSequence atC = new TtlAndSequence();
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE), new NodeOptions());
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE, new Peer(idB, "b", pb, true)),
                new NodeOptions());
        final Node c = start(yaml(idC, pc, dir.resolve("c.sock"), NODE, new Peer(idB, "b", pb, true)),
                new NodeOptions().localDelivery(atC));
        until(Duration.ofSeconds(10), () -> linked(a, b) && linked(c, b), () -> "links up");
        // An operator connect to a peer that is already linked says so and dials nothing.
        assertEquals(Boolean.TRUE, a.controlApi().connect(idB.npub(), "127.0.0.1:" + pb, "udp").alreadyConnected());
        assertEquals(0, a.linkSnapshot().pendingOutbound());

        // The tree: everyone ends with the smallest address as root; B is in the middle, so depths add up.
        until(Duration.ofSeconds(10),
                () -> nodes.stream().allMatch(n -> n.meshSnapshot().root().equals(minAddr.toString())),
                () -> "one root: " + nodes.stream().map(n -> n.meshSnapshot().root()).toList());
        // show_tree is rendered once per tick: B's own view may be a tick behind the others' agreement on the root.
        until(Duration.ofSeconds(5), () -> ask(b, "show_tree").get("peer_tree_count").asInt() == 2,
                () -> "B holds both peers' declarations: " + ask(b, "show_tree"));
        final JsonNode treeB = ask(b, "show_tree");
        assertEquals(minAddr.toString(), treeB.get("root").asText());
        assertEquals(idB.nodeAddr().equals(minAddr), treeB.get("is_root").asBoolean());
        assertEquals(treeB.get("my_coords").size() - 1, treeB.get("depth").asInt(), "depth = coordinate length - 1");
        assertEquals(2, treeB.get("peer_tree_count").asInt(), "B holds both peers' declarations");
        final long roots = nodes.stream().filter(n -> n.meshSnapshot().isRoot()).count();
        assertEquals(1, roots, "exactly one root");
        // show_peers carries the real tree roles: in a chain every link is a tree edge, so B has its parent
        // (unless it is the root) and its children among its two peers; wait for the children's announces.
        final int wantParents = idB.nodeAddr().equals(minAddr) ? 0 : 1;
        // show_peers, like show_tree, is a per-tick rendering: wait until one also carries depths that agree with B's.
        until(Duration.ofSeconds(10),
                () -> roles(ask(b, "show_peers"))[0] == wantParents
                        && roles(ask(b, "show_peers"))[1] == 2 - wantParents
                        && depthsAgree(ask(b, "show_peers"), treeB.get("depth").asInt()),
                () -> "tree roles and depths at B: " + ask(b, "show_peers"));
        for (final JsonNode p : ask(b, "show_peers").get("peers")) {
            assertTrue(p.get("has_tree_position").asBoolean());
            // Loss, ETX, goodput and the delivery ratios are present, as in the reference, and null until two
            // ReceiverReports arrived, then measured (checked below).
            for (final String k : List.of("loss_rate", "etx", "goodput_bps", "delivery_ratio_forward",
                    "delivery_ratio_reverse")) {
                assertTrue(p.get("mmp").has(k), () -> k + " in " + p);
            }
            assertEquals(p.get("is_parent").asBoolean() ? treeB.get("depth").asInt() - 1
                    : treeB.get("depth").asInt() + 1, p.get("tree_depth").asInt(), p::toString);
        }

        // Link MMP from the ReceiverReports: a lossless loopback link measures loss 0, delivery 1 and ETX 1.
        until(Duration.ofSeconds(10), () -> {
            final JsonNode m = ask(b, "show_peers").get("peers").get(0).get("mmp");
            return m.get("loss_rate").isNumber() && m.get("etx").isNumber();
        }, () -> "link loss and ETX measured: " + ask(b, "show_peers"));
        final JsonNode lm = ask(b, "show_peers").get("peers").get(0).get("mmp");
        assertEquals(0.0, lm.get("loss_rate").asDouble(), 0.02, lm::toString);
        assertEquals(1.0, lm.get("etx").asDouble(), 0.05, lm::toString);
        // Every ReceiverReport follows new frames, so the bytes the peer got from us between two reports are > 0.
        assertTrue(lm.get("goodput_bps").isNumber() && lm.get("goodput_bps").asDouble() > 0, lm::toString);

        // Discovery: A knows C's key (as DNS would tell it), looks C up; only B can relay it.
        until(Duration.ofSeconds(10),
                () -> ask(a, "show_bloom").get("peer_filters").get(0).get("has_filter").asBoolean(),
                () -> "A has B's filter");
        assertTrue(a.learnIdentity(idC.toPeer()));
        assertTrue(a.lookup(idC.nodeAddr()));
        until(Duration.ofSeconds(5), () -> {
            final JsonNode known = ask(a, "show_identity_cache");
            boolean hasC = false;
            for (final JsonNode e : known.get("entries")) {
                hasC |= e.get("npub").asText().equals(idC.npub());
                assertEquals(Set.of("node_addr", "npub", "display_name", "ipv6_addr", "last_seen_ms", "age_ms"),
                        fields(e));
            }
            return hasC && known.get("count").asInt() == 2;
        }, () -> "A knows B (peer) and C (learnt): " + ask(a, "show_identity_cache"));
        until(Duration.ofSeconds(10), () -> cacheHas(a, idC.nodeAddr()),
                () -> "A cached C's coordinates: " + ask(a, "show_routing"));
        // The routing snapshots are rendered once per tick, so B's counters may trail A's cache by a tick.
        until(Duration.ofSeconds(5), () -> {
            final JsonNode d = ask(b, "show_routing").get("discovery");
            return d.get("req_forwarded").asLong() >= 1 && d.get("resp_forwarded").asLong() >= 1;
        }, () -> "B relayed the request and the response: " + ask(b, "show_routing").get("discovery"));
        until(Duration.ofSeconds(5),
                () -> ask(a, "show_routing").get("discovery").get("resp_accepted").asLong() == 1
                        && ask(a, "show_routing").get("pending_lookups").isEmpty(),
                () -> "A accepted one response: " + ask(a, "show_routing"));
        until(Duration.ofSeconds(5),
                () -> ask(c, "show_routing").get("discovery").get("req_target_is_us").asLong() == 1,
                () -> "C answered as the target: " + ask(c, "show_routing").get("discovery"));

        final JsonNode routingB = ask(b, "show_routing");
        for (final String k : List.of("coord_cache_entries", "identity_cache_entries", "pending_lookups",
                "pending_tun_destinations", "pending_tun_packets", "recent_requests", "retries", "forwarding",
                "discovery", "error_signals", "congestion")) {
            assertTrue(routingB.has(k), () -> "show_routing lacks " + k + ": " + routingB);
        }
        assertEquals(24, routingB.get("forwarding").size());

        // Transit: A sends C's datagrams to B; B's data plane forwards them, TTL 64 -> 63.
        final Sender sender = new Sender(a, c, atC.seq);
        final long linkAB = peerOf(a, b).linkId();
        final long sent = sender.run(linkAB, 64, () -> sender.sent() < 2000);
        until(Duration.ofSeconds(10), () -> atC.seq.delivered() >= sent,
                () -> "C got " + atC.seq.delivered() + " of " + sent);
        assertNull(atC.seq.problem(), "no loss, no reordering through the transit");
        assertEquals(63, atC.lastTtl.get(), "one hop decremented the TTL");
        assertTrue(b.dataPlane().counter(DataPlaneCounter.FORWARDED) >= sent, "B forwarded them");
        assertEquals(0, b.dataPlane().counter(DataPlaneCounter.DATAGRAMS_DELIVERED), "none was for B");
        assertTrue(ask(b, "show_status").get("forwarding").get("forwarded_packets").asLong() >= sent);
        assertFalse(ask(b, "show_status").get("is_root").asBoolean() && !idB.nodeAddr().equals(minAddr));
    }

    private static Set<String> fields(final JsonNode o) {
        final Set<String> s = new TreeSet<>();
        o.fieldNames().forEachRemaining(s::add);
        return s;
    }

    /** @return {parents, children} among the peers of a show_peers answer */
    private static int[] roles(final JsonNode showPeers) {
        final int[] r = new int[2];
        for (final JsonNode p : showPeers.get("peers")) {
            r[0] += p.get("is_parent").asBoolean() ? 1 : 0;
            r[1] += p.get("is_child").asBoolean() ? 1 : 0;
        }
        return r;
    }

    private static boolean cacheHas(final Node n, final NodeAddr target) {
        for (final JsonNode e : ask(n, "show_cache").get("entries")) {
            if (e.get("node_addr").asText().equals(target.toString())) {
                return true;
            }
        }
        return false;
    }

    /** @return whether every peer's tree_depth is one less (a parent) or one more (a child) than {@code depth} */
    private static boolean depthsAgree(final JsonNode peers, final int depth) {
        for (final JsonNode p : peers.get("peers")) {
            final int want = p.get("is_parent").asBoolean() ? depth - 1 : depth + 1;
            if (p.get("tree_depth").asInt() != want) {
                return false;
            }
        }
        return true;
    }
}
