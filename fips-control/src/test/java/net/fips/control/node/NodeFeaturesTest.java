package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.ControlException;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkCounter;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.node.NodeTestSupport.Sender;
import net.fips.control.node.NodeTestSupport.SequenceCheck;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.testing.FreePorts;

/** Node wiring beyond the link: the peer ACL files with reload, SHARED threading, key files, start failures. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeFeaturesTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
            """;

    @TempDir
    Path dir;

    private final NodeIdentity idA = NodeIdentity.generate();
    private final NodeIdentity idB = NodeIdentity.generate();
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private Node start(final String yaml, final NodeOptions options) throws Exception {
        final Node n = Node.start(load(yaml), options);
        nodes.add(n);
        return n;
    }

    @Test
    void denyFileRefusesThePeerUntilItIsEditedAndReloaded() throws Exception {
        final Path acl = Files.createDirectories(dir.resolve("acl"));
        final Path deny = acl.resolve("peers.deny");
        Files.writeString(deny, "# keep b out\n" + idB.npub() + "\n");
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE), new NodeOptions().aclDirectory(acl));
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE, new Peer(idA, "a", pa, true)),
                new NodeOptions().aclDirectory(dir.resolve("none")));
        assertEquals("denylist", a.controlApi().showAcl().effectiveMode());
        assertEquals(List.of(idB.npub()), a.controlApi().showAcl().denyEntries());

        until(Duration.ofSeconds(3), () -> a.linkSnapshot().counter(LinkCounter.ACL_REJECTED) >= 1,
                () -> "a refuses b's msg1");
        assertNull(peerOf(a, b));
        final ControlException refused = assertThrows(ControlException.class,
                () -> a.controlApi().connect(idB.npub(), "127.0.0.1:" + pb, "udp"));
        assertTrue(refused.getMessage().contains("ACL"), refused.getMessage());

        Files.writeString(deny, "# nobody\n");
        until(Duration.ofSeconds(5), () -> "default_open".equals(a.acl().current().effectiveMode()),
                () -> "ACL reloaded");
        a.controlApi().connect(idB.npub(), "127.0.0.1:" + pb, "udp");
        until(Duration.ofSeconds(3), () -> linked(a, b), () -> "linked after the reload");
    }

    @Test
    void sharedThreadingModeRunsTheDataPlaneOnTheControlThread() throws Exception {
        final SequenceCheck atB = new SequenceCheck();
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final NodeOptions shared = new NodeOptions().threadingMode(ThreadingMode.SHARED)
                .aclDirectory(dir.resolve("none"));
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE, new Peer(idB, "b", pb, true)), shared);
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE, new Peer(idA, "a", pa, true)),
                new NodeOptions().threadingMode(ThreadingMode.SHARED).aclDirectory(dir.resolve("none"))
                        .localDelivery(atB));
        until(Duration.ofSeconds(5), () -> linked(a, b), () -> "link up");
        until(Duration.ofSeconds(5),
                () -> a.linkSnapshot().pendingOutbound() == 0 && b.linkSnapshot().pendingOutbound() == 0,
                () -> "dials settled");
        final Sender sender = new Sender(a, b, atB);
        final long sent = sender.run(peerOf(a, b).linkId(), 64, () -> sender.sent() < 500);
        until(Duration.ofSeconds(5), () -> atB.delivered() == sent,
                () -> "delivered " + atB.delivered() + " of " + sent);
        assertNull(atB.problem());
    }

    @Test
    void persistentIdentityIsSavedAndReusedAcrossRestartsWithANewEpoch() throws Exception {
        final Path keys = dir.resolve("keys");
        final String yaml = "node:\n  identity:\n    persistent: true\n  control:\n    enabled: false\n"
                + "transports:\n  udp:\n    bind_addr: \"127.0.0.1:0\"\n";
        final NodeOptions opts = new NodeOptions().keyDirectory(keys).aclDirectory(dir.resolve("none"));
        final Node first = start(yaml, opts);
        assertEquals(KeyFiles.Source.GENERATED, first.identitySource());
        assertTrue(first.controlSocketPath().isEmpty(), "node.control.enabled: false");
        final String npub = first.identity().npub();
        final byte[] epoch = first.startupEpoch();
        first.close();
        assertEquals(npub, Files.readString(keys.resolve(KeyFiles.PUB_FILE_NAME)).trim());

        final Node second = start(yaml, opts);
        assertEquals(KeyFiles.Source.KEY_FILE, second.identitySource());
        assertEquals(npub, second.identity().npub());
        assertFalse(Arrays.equals(epoch, second.startupEpoch()), "a fresh epoch every start");
        assertTrue(second.transportAddresses().get(0).getPort() > 0, "port 0 resolved");
    }

    @Test
    void startFailuresNameTheCauseAndCloseWhatWasOpened() throws Exception {
        final int port = FreePorts.udp();
        final Node a = start(yaml(idA, port, dir.resolve("a.sock"), NODE), new NodeOptions()
                .aclDirectory(dir.resolve("none")));
        // Same control socket: refused, and the transport the second node had opened is closed again.
        final int secondPort = FreePorts.udp();
        final NodeStartException busy = assertThrows(NodeStartException.class, () -> start(
                yaml(idB, secondPort, dir.resolve("a.sock"), NODE), new NodeOptions()
                        .aclDirectory(dir.resolve("none"))));
        assertFalse(busy.isConfigProblem());
        assertTrue(busy.getMessage().contains("a.sock"), busy.getMessage());
        assertTrue(Files.exists(dir.resolve("a.sock")), "the running node's socket is untouched");
        try (DatagramChannel probe = DatagramChannel.open()) {
            // Binds only if the failed node's transport (SO_REUSEPORT) was closed again.
            probe.bind(new InetSocketAddress("127.0.0.1", secondPort));
        }

        final Path corrupt = Files.createDirectories(dir.resolve("corrupt"));
        Files.writeString(corrupt.resolve(KeyFiles.KEY_FILE_NAME), "not a key\n");
        final NodeStartException badKey = assertThrows(NodeStartException.class, () -> start(
                "node:\n  identity:\n    persistent: true\n  control:\n    enabled: false\n"
                        + "transports:\n  udp:\n    bind_addr: \"127.0.0.1:0\"\n",
                new NodeOptions().keyDirectory(corrupt)));
        assertTrue(badKey.isConfigProblem());
        assertTrue(badKey.getMessage().contains("fips.key"), badKey.getMessage());
        assertEquals(1, nodes.size());
        assertTrue(a.linkSnapshot().peers().isEmpty());
    }
}
