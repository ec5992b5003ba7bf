package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.NodeState;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.ctl.ControlClient;
import net.fips.testing.FreePorts;

/**
 * One node per config: a second node with the same control socket path or the same UDP bind address refuses to
 * start, naming what is in use, before it opens a transport or sends anything; the running node keeps its links.
 * A stale socket file (nobody listening) is replaced.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneNodePerConfigTest {
    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private final NodeIdentity idA = NodeIdentity.generate();
    private final NodeIdentity idB = NodeIdentity.generate();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node start(final String yaml) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl")));
        nodes.add(n);
        return n;
    }

    /** A running node a linked to b; returns a. */
    private Node runningPair(final int pa, final Path socketA) throws Exception {
        final int pb = FreePorts.udp();
        final Node a = start(yaml(idA, pa, socketA, "", new Peer(idB, "b", pb, true)));
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), "", new Peer(idA, "a", pa, true)));
        until(Duration.ofSeconds(20), () -> linked(a, b), () -> "a and b to link");
        return a;
    }

    @Test
    void aLiveControlSocketRefusesTheSecondNodeBeforeItSendsAnything() throws Exception {
        final Path socket = dir.resolve("a.sock");
        final Node a = runningPair(FreePorts.udp(), socket);
        try (DatagramChannel witness = DatagramChannel.open()) {
            // The second node is configured to dial this witness: had it started its data plane, its msg1 would
            // be addressed here.
            witness.bind(new InetSocketAddress("127.0.0.1", 0)).configureBlocking(false);
            final int witnessPort = ((InetSocketAddress) witness.getLocalAddress()).getPort();
            final int secondPort = FreePorts.udp();
            final NodeStartException e = assertThrows(NodeStartException.class, () -> start(yaml(
                    NodeIdentity.generate(), secondPort, socket, "", new Peer(idB, "w", witnessPort, true))));
            assertFalse(e.isConfigProblem(), "a start failure (exit 1), not a config error");
            assertTrue(e.getMessage().startsWith("control socket " + socket + " is already in use by a running"
                    + " daemon"), e.getMessage());
            assertNull(witness.receive(ByteBuffer.allocate(2048)), "nothing was sent");
            // Its UDP port was never bound: it is free for anyone now.
            try (DatagramChannel probe = DatagramChannel.open()) {
                probe.bind(new InetSocketAddress("127.0.0.1", secondPort));
            }
        }
        assertEquals(NodeState.RUNNING, a.state());
        assertEquals(1, a.linkSnapshot().peers().size(), "the running node keeps its link");
        assertTrue(Files.exists(socket), "and its control socket");
        // ... which still answers over the socket.
        assertEquals("ok", new ControlClient(socket, Duration.ofSeconds(5))
                .send("show_status", null).path("status").asText());
    }

    @Test
    void aBoundUdpAddressRefusesTheSecondNodeNamingTheAddress() throws Exception {
        final int pa = FreePorts.udp();
        final Node a = runningPair(pa, dir.resolve("a.sock"));
        final Path secondSocket = dir.resolve("second.sock");
        final NodeStartException e = assertThrows(NodeStartException.class,
                () -> start(yaml(NodeIdentity.generate(), pa, secondSocket, "")));
        assertFalse(e.isConfigProblem());
        assertEquals("UDP address 127.0.0.1:" + pa + " of transports.udp is already in use (one node per config:"
                + " another fips daemon or program is bound to it)", e.getMessage());
        assertFalse(Files.exists(secondSocket), "no control socket was created");
        assertEquals(1, a.linkSnapshot().peers().size(), "the running node keeps its link");
    }

    @Test
    void aStaleSocketFileIsReplaced() throws Exception {
        final Path socket = dir.resolve("stale.sock");
        try (ServerSocketChannel leftover = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            leftover.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket), "closing a bound Unix socket leaves its file behind, as a crash would");
        final Node n = start(yaml(idA, FreePorts.udp(), socket, ""));
        assertEquals(NodeState.RUNNING, n.state());
        assertEquals(socket, n.controlSocketPath().orElseThrow());
    }
}
