package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.SECOND;
import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.dataplane.engine.ThreadingMode;
import net.fips.control.ctl.ControlException;
import net.fips.control.ctl.NodeState;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkCounter;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.node.NodeTestSupport.Sender;
import net.fips.control.node.NodeTestSupport.SequenceCheck;
import net.fips.testing.FreePorts;

/** Two real nodes in one JVM over loopback UDP: link-up, liveness, traffic across rekeys, disconnect, restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeLoopbackTest {
    /**
     * Heartbeats every second so liveness is visible within a test; rekey after 2 s of session age. The losing
     * dial of the start-up cross-connection is given up after 1 s instead of 30 s, so its retransmissions cannot
     * reach the peer once the shortened minimum session age would make them look like a rekey.
     */
    private static final String FAST = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
              link_dead_timeout_secs: 6
              rekey:
                enabled: true
                after_secs: 2
                after_messages: 1000000
            """;
    private static final String NO_REKEY = """
              heartbeat_interval_secs: 1
              rate_limit:
                handshake_timeout_secs: 1
              link_dead_timeout_secs: 6
              rekey:
                enabled: false
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
        final Node n = Node.start(load(yaml), options.aclDirectory(dir.resolve("acl")));
        nodes.add(n);
        return n;
    }

    /** Both nodes configured with each other; both dial at start (a cross-connection). */
    private Node[] pair(final String nodeExtra, final boolean autoReconnect, final NodeOptions a, final NodeOptions b)
            throws Exception {
        final int pa = FreePorts.udp();
        final int pb = FreePorts.udp();
        final Node na = start(yaml(idA, pa, dir.resolve("a.sock"), nodeExtra, new Peer(idB, "b", pb, autoReconnect)),
                a);
        final Node nb = start(yaml(idB, pb, dir.resolve("b.sock"), nodeExtra, new Peer(idA, "a", pa, autoReconnect)),
                b);
        until(Duration.ofSeconds(5), () -> linked(na, nb), () -> "link up");
        // The crossing dials settle (one side may re-add its link under a new id) before anyone reads link ids.
        until(Duration.ofSeconds(5),
                () -> na.linkSnapshot().pendingOutbound() == 0 && nb.linkSnapshot().pendingOutbound() == 0,
                () -> "dials settled");
        return new Node[] {na, nb};
    }

    private static NodeOptions fastRekey(final ThreadingMode mode) {
        // The reference's fixed 30 s minimum session age and dampening would make two rekeys take over a minute.
        return new NodeOptions().threadingMode(mode).linkConfigTuner(c -> c.withRekeyTiming(2 * SECOND, 2 * SECOND,
                0));
    }

    /** With a thread per data-plane agent, and with every agent on the one compact thread. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "COMPACT"})
    void linkUpHeartbeatsMmpAndDatagramsSurviveRekeysWithoutLossOrReordering(final ThreadingMode mode)
            throws Exception {
        final SequenceCheck atB = new SequenceCheck();
        final Node[] n = pair(FAST, true, fastRekey(mode), fastRekey(mode).localDelivery(atB));
        final Node a = n[0];
        final Node b = n[1];
        assertEquals(NodeState.RUNNING, a.state());
        assertTrue(Files.exists(dir.resolve("a.sock")), "control socket bound");
        final PeerSnapshot ab = peerOf(a, b);
        assertEquals(peerOf(b, a).theirIndex(), ab.ourIndex(), "the two ends agree on the indices");

        final Sender sender = new Sender(a, b, atB);
        final long linkId = ab.linkId();
        // Traffic until each side has cut over twice (two full rekeys), well past the drain windows' start.
        final long sent = sender.run(linkId, 256, () -> a.linkSnapshot().counter(LinkCounter.CUTOVERS) < 2
                || b.linkSnapshot().counter(LinkCounter.CUTOVERS) < 2);
        until(Duration.ofSeconds(5), () -> atB.delivered() >= sent,
                () -> "delivered " + atB.delivered() + " of " + sent + "\n a: " + NodeTestSupport.describe(a)
                        + "\n b: " + NodeTestSupport.describe(b));
        assertNull(atB.problem(), "loss or reordering");
        assertEquals(sent, atB.delivered());
        assertTrue(sent > 1000, "continuous traffic: " + sent);
        assertEquals(linkId, peerOf(a, b).linkId(), "same link throughout: no re-establishment");
        assertTrue(peerOf(a, b).rekeys() >= 2 && peerOf(b, a).rekeys() >= 2);
        until(Duration.ofSeconds(3),
                () -> a.controlApi().showPeers().getFirst().rekeys() >= 2
                        && a.controlApi().showLinks().getFirst().rekeys() >= 2,
                () -> "show_peers/show_links rekeys: " + a.controlApi().showPeers());
        assertEquals(0L, a.controlApi().showPeers().getFirst().restarts());
        assertEquals(1, a.linkSnapshot().counter(LinkCounter.LINKS_ESTABLISHED), "one link on a");
        assertEquals(1, b.linkSnapshot().counter(LinkCounter.LINKS_ESTABLISHED), "one link on b");

        // Liveness and measurement traffic flowed both ways alongside.
        for (final Node x : n) {
            until(Duration.ofSeconds(3),
                    () -> x.linkSnapshot().counter(LinkCounter.HEARTBEATS_RECEIVED) >= 2
                            && x.linkSnapshot().counter(LinkCounter.MMP_REPORTS_RECEIVED) >= 1,
                    () -> "heartbeats and MMP");
            assertTrue(x.linkSnapshot().counter(LinkCounter.HEARTBEATS_SENT) >= 2);
            assertTrue(x.linkSnapshot().counter(LinkCounter.MMP_REPORTS_SENT) >= 1);
        }
        // Published snapshots are up to one tick old.
        until(Duration.ofSeconds(3), () -> peerOf(b, a).packetsIn() >= sent,
                () -> "b counted the frames: " + peerOf(b, a));
    }

    @Test
    void disconnectThroughTheControlApiRemovesStateOnBothSides() throws Exception {
        final Node[] n = pair(NO_REKEY, false, new NodeOptions(), new NodeOptions());
        final Node a = n[0];
        final Node b = n[1];
        assertTrue(a.dataPlane().registeredIndices() >= 1);

        assertEquals(b.identity().npub(), a.controlApi().disconnect(b.identity().npub()).npub());
        until(Duration.ofSeconds(3), () -> peerOf(a, b) == null && peerOf(b, a) == null,
                () -> "both sides forget the link");
        until(Duration.ofSeconds(3),
                () -> a.dataPlane().registeredIndices() == 0 && b.dataPlane().registeredIndices() == 0,
                () -> "indices freed");
        assertEquals(1, a.linkSnapshot().counter(LinkCounter.DISCONNECTS_SENT));
        until(Duration.ofSeconds(1), () -> b.linkSnapshot().counter(LinkCounter.DISCONNECTS_RECEIVED) == 1,
                () -> "b got Disconnect");
        assertTrue(a.controlApi().showPeers().isEmpty());
        assertTrue(a.controlApi().showLinks().isEmpty());

        final ControlException e = assertThrows(ControlException.class,
                () -> a.controlApi().disconnect(b.identity().npub()));
        assertEquals("peer not found: " + b.identity().npub(), e.getMessage());

        // An operator connect brings it back.
        a.controlApi().connect(b.identity().npub(), "127.0.0.1:" + b.transportAddresses().get(0).getPort(), "udp");
        until(Duration.ofSeconds(3), () -> linked(a, b), () -> "reconnected by connect");
    }

    @Test
    void closeSendsDisconnectSoThePeerDropsTheLinkAtOnce() throws Exception {
        final Node[] n = pair(NO_REKEY, false, new NodeOptions(), new NodeOptions());
        final Node a = n[0];
        final Node b = n[1];
        final long t0 = System.nanoTime();
        b.close();
        assertEquals(NodeState.STOPPED, b.state());
        assertFalse(Files.exists(dir.resolve("b.sock")), "socket file removed");
        // Link-dead would take 6 s; the Disconnect does it at once.
        until(Duration.ofSeconds(2), () -> peerOf(a, b) == null, () -> "a drops b");
        assertTrue(System.nanoTime() - t0 < 2 * SECOND);
        assertEquals(1, a.linkSnapshot().counter(LinkCounter.DISCONNECTS_RECEIVED));
    }

    @Test
    void restartedPeerWithANewEpochIsDetectedWithinTwoSeconds() throws Exception {
        final Node[] n = pair(NO_REKEY, true, new NodeOptions(), new NodeOptions());
        final Node a = n[0];
        final Node b = n[1];
        final long oldLink = peerOf(a, b).linkId();
        final int portB = b.transportAddresses().get(0).getPort();
        final byte[] oldEpoch = b.startupEpoch();

        b.closeSilently();   // a crash: no Disconnect, a keeps its state
        assertNotNull(peerOf(a, b));
        final long t0 = System.nanoTime();
        final Node b2 = start(yaml(idB, portB, dir.resolve("b2.sock"), NO_REKEY,
                new Peer(idA, "a", a.transportAddresses().get(0).getPort(), true)), new NodeOptions());
        assertFalse(Arrays.equals(oldEpoch, b2.startupEpoch()));
        until(Duration.ofSeconds(2),
                () -> a.linkSnapshot().counter(LinkCounter.RESTARTS_DETECTED) == 1 && peerOf(a, b2) != null
                        && peerOf(a, b2).linkId() != oldLink && peerOf(b2, a) != null,
                () -> "restart detected: " + NodeTestSupport.describe(a));
        assertTrue(System.nanoTime() - t0 < 2 * SECOND);
        assertNotEquals(oldLink, peerOf(a, b2).linkId());
        assertEquals(1, a.linkSnapshot().peers().size(), "the old link is gone");
        // The restart count is the peer's, so it survives the replaced link.
        assertEquals(1, peerOf(a, b2).restarts());
        until(Duration.ofSeconds(2), () -> Long.valueOf(1).equals(a.controlApi().showPeers().getFirst().restarts()),
                () -> "show_peers restarts: " + a.controlApi().showPeers());
    }
}
