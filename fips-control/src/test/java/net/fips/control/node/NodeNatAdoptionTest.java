package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import net.fips.control.ctl.TransportSnapshot;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nat.DatagramPort;
import net.fips.control.nat.NatAdopter;
import net.fips.control.nat.PunchFailure;
import net.fips.control.nat.PunchPacket;
import net.fips.control.nat.PunchRunner;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.TraversalSocket;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.testing.FreePorts;

/**
 * Adoption of punched sockets by real nodes on loopback (discovery-gateway.md §2.6, ADR 0046): two sockets punch
 * each other, each node adopts its socket into a {@code nostr-nat} slot and the Noise handshake runs over the
 * punched ports; late punch packets on the adopted socket are dropped and counted; a third node handshakes
 * through the adopted socket; a connected peer's adoption is refused; the slot is vacated once its link is gone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeNatAdoptionTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              link_dead_timeout_secs: 30
              rate_limit:
                handshake_timeout_secs: 2
              rekey:
                enabled: false
              discovery:
                nostr:
                  enabled: true
            dns:
              enabled: false
            """;
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node start(final NodeIdentity id, final String name, final ThreadingMode mode) throws Exception {
        return start(id, name, mode, FreePorts.udp(), NODE);
    }

    private Node start(final NodeIdentity id, final String name, final ThreadingMode mode, final int port,
            final String node) throws Exception {
        final Node n = Node.start(load(yaml(id, port, dir.resolve(name + ".sock"), node)),
                new NodeOptions().aclDirectory(dir.resolve("acl")).threadingMode(mode));
        nodes.add(n);
        return n;
    }

    private static CompletableFuture<InetSocketAddress> punch(final TraversalSocket s, final InetSocketAddress to) {
        final CompletableFuture<InetSocketAddress> f = new CompletableFuture<>();
        final long start = System.currentTimeMillis() + 50;
        Thread.ofPlatform().daemon().start(() -> {
            try {
                f.complete(new PunchRunner(System::nanoTime, System::currentTimeMillis).run(DatagramPort.of(s),
                        "sess-node",
                        List.of(to), start, 20, 3_000, TimeUnit.SECONDS.toNanos(10), () -> false).remote());
            } catch (final PunchFailure e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    private static int slotOf(final Node n, final int id) {
        return id - (n.transports().size() - NatAdoptionFactory.SLOTS);
    }

    /** Each threading mode: the slot's descriptor sits in a dedicated poll, the compact thread's set, or none. */
    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    void punchedSocketsCarryTheHandshakeAndThenTheLink(final ThreadingMode mode) throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final NodeIdentity idC = NodeIdentity.generate();
        final Node a = start(idA, "a", mode);
        final Node b = start(idB, "b", mode);
        final NatAdopter adoptA = a.natAdopter().orElseThrow();
        final NatAdopter adoptB = b.natAdopter().orElseThrow();
        assertEquals(1 + NatAdoptionFactory.SLOTS, a.transports().size(), "one UDP transport, then the slots");
        assertEquals(1, a.controlApi().showTransports().size(), "vacant slots are not shown");

        final TraversalSocket sa = TraversalSocket.open(LOOPBACK);
        final TraversalSocket sb = TraversalSocket.open(LOOPBACK);
        final var ra = punch(sa, sb.localAddress());
        final var rb = punch(sb, sa.localAddress());
        final InetSocketAddress remoteOfA = ra.get(20, TimeUnit.SECONDS);
        final InetSocketAddress remoteOfB = rb.get(20, TimeUnit.SECONDS);
        final InetSocketAddress portA = sa.localAddress();
        final int tidA = adoptA.adopt(idB.npub(), sa, remoteOfA);
        final int tidB = adoptB.adopt(idA.npub(), sb, remoteOfB);
        sa.close();
        sb.close();
        assertEquals(1, tidA, "the first slot takes the id after the configured transport");

        until(Duration.ofSeconds(20), () -> linked(a, b),
                () -> "link over the punched sockets: A " + describe(a) + " B " + describe(b));
        assertEquals(tidA, peerOf(a, b).transportId());
        assertEquals(tidB, peerOf(b, a).transportId());
        final UdpTransport slotA = UdpTransport.agentDriven(a.transports().get(tidA));
        assertEquals(portA, slotA.localAddress());
        final TransportSnapshot shown = a.controlApi().showTransports().stream()
                .filter(t -> "nostr-nat".equals(t.name())).findFirst().orElseThrow();
        assertEquals("udp", shown.type());
        assertEquals(portA.toString().replace("/", ""), shown.localAddr());

        // A late probe to the adopted port is dropped in the UDP receive path and counted; the link stays.
        final long before = slotA.counters().punchDropped();
        try (TraversalSocket late = TraversalSocket.open(LOOPBACK)) {
            final byte[] probe = new PunchPacket(false, 99, PunchPacket.sessionHash("sess-node")).encode();
            late.send(probe, probe.length, portA);
            until(Duration.ofSeconds(5), () -> slotA.counters().punchDropped() == before + 1, () -> "probe counted");
        }
        assertTrue(linked(a, b));

        // Already connected: the next adoption for B is refused, and the socket stays the caller's.
        try (TraversalSocket again = TraversalSocket.open(LOOPBACK)) {
            final PunchFailure f = assertThrows(PunchFailure.class,
                    () -> adoptA.adopt(idB.npub(), again, remoteOfA));
            assertEquals("adoption-refused", f.reason());
            assertFalse(again.isClosed());
        }

        // A third node handshakes through A's adopted socket (an ordinary listener too).
        final Node c = start(idC, "c", mode);
        c.controlApi().connect(idA.npub(), "127.0.0.1:" + portA.getPort(), "udp");
        until(Duration.ofSeconds(20), () -> linked(a, c), () -> "C through A's adopted socket: A " + describe(a));
        assertEquals(tidA, peerOf(a, c).transportId());

        // Once no link uses it, the slot is vacated (its socket closed) and can take the next punched socket. B and
        // C stop first: a peer left running would dial A's adopted port again (its retry), as in the reference.
        b.close();
        c.close();
        until(Duration.ofSeconds(30), () -> a.linkSnapshot().peers().isEmpty(), () -> "B and C gone: A " + describe(a));
        until(Duration.ofSeconds(30), slotA::isVacant, () -> "slot " + slotOf(a, tidA) + " vacated: A " + describe(a));
        assertEquals(1, a.controlApi().showTransports().size());
    }

    @Test
    void aNodeAtMaxPeersRefusesTheAdoption() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idC = NodeIdentity.generate();
        final int portA = FreePorts.udp();
        final Node a = start(idA, "a", ThreadingMode.DEDICATED, portA,
                NODE.replace("  rekey:\n", "  limits:\n    max_peers: 1\n  rekey:\n"));
        final Node c = start(idC, "c", ThreadingMode.DEDICATED);
        c.controlApi().connect(idA.npub(), "127.0.0.1:" + portA, "udp");
        until(Duration.ofSeconds(20), () -> linked(a, c), () -> "C to A: A " + describe(a));
        try (TraversalSocket s = TraversalSocket.open(LOOPBACK)) {
            final PunchFailure f = assertThrows(PunchFailure.class, () -> a.natAdopter().orElseThrow()
                    .adopt(NodeIdentity.generate().npub(), s, new InetSocketAddress("127.0.0.1", 9)));
            assertEquals("adoption-refused", f.reason());
            assertTrue(f.getMessage().contains("max_peers 1"), f.getMessage());
        }
        assertTrue(a.transports().stream().filter(t -> t.bootstrapOnly())
                .allMatch(t -> UdpTransport.agentDriven(t).isVacant()), "no slot was taken");
    }
}
