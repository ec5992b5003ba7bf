package net.fips.control.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.tree.TreeCoordinates;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.control.identity.TestIdentities;

/** The forwarding tables {@link MeshControl} publishes: peers, link costs, MTUs, and when a new one goes out. */
class MeshControlTableTest {
    private static final int LINK_MTU = 1400;

    private final NodeIdentity self = TestIdentities.filled((byte) 0x31);
    private final NodeIdentity peer = TestIdentities.filled((byte) 0x32);
    private final List<ForwardingTable> published = new ArrayList<>();
    private final MeshControl mesh = new MeshControl(self, MeshSettings.defaults(), (p, msg) -> true,
            published::add, new Random(3), () -> 1_784_470_000_000L, (k, d, sig) -> false, transport -> LINK_MTU, 0);

    @Test
    void anUnmeasuredPeerCostsTheReferencesDefaultAndAMeasuredOneItsSrttCost() {
        mesh.onPeerUp(peer.toPeer(), 7, 0, 1);
        mesh.flush();
        assertEquals(1, published.size(), "a new peer publishes a table");
        final ForwardingTable t = published.getLast();
        final int i = t.peerIndex(peer.nodeAddr());
        assertEquals(7, t.linkId(i));
        assertEquals(LINK_MTU, t.linkMtu(i));
        // The reference's link_cost() before any RTT sample.
        assertEquals(1.0, t.peer(i).linkCost());
        assertNull(t.peer(i).coords(), "no TreeAnnounce accepted yet");

        mesh.onRttSample(peer.toPeer(), 40_000, 1, 2);
        mesh.flush();
        final ForwardingTable t2 = published.getLast();
        assertEquals(TreeCoordinates.linkCost(1.0, 40.0), t2.peer(t2.peerIndex(peer.nodeAddr())).linkCost());

        final int before = published.size();
        mesh.flush();
        assertEquals(before, published.size(), "nothing changed, nothing published");
        assertSame(t2, mesh.table());

        // A measured ETX (lossy link) multiplies into the cost: ETX x (1 + SRTT/100).
        mesh.onEtx(peer.toPeer(), 2.5, 3);
        mesh.flush();
        final ForwardingTable t3 = published.getLast();
        assertEquals(TreeCoordinates.linkCost(2.5, 40.0), t3.peer(t3.peerIndex(peer.nodeAddr())).linkCost());

        mesh.onPeerDown(peer.toPeer(), 3);
        mesh.flush();
        assertTrue(published.getLast().peerIndex(peer.nodeAddr()) < 0, "the peer left the table");
    }

    /** Fast failover (ADR 0024): a suspect peer leaves the table and comes back as it was when it answers again. */
    @Test
    void aSuspectPeerLeavesTheTableAndComesBackWhenItAnswers() {
        mesh.onPeerUp(peer.toPeer(), 7, 0, 1);
        mesh.onRttSample(peer.toPeer(), 40_000, 1, 2);
        mesh.flush();
        assertTrue(published.getLast().peerIndex(peer.nodeAddr()) >= 0);
        mesh.onPeerSuspect(peer.toPeer(), true, 3);
        mesh.flush();
        assertTrue(published.getLast().peerIndex(peer.nodeAddr()) < 0, "no next hop over a suspect link");
        mesh.onPeerSuspect(peer.toPeer(), false, 4);
        mesh.flush();
        final ForwardingTable t = published.getLast();
        final int i = t.peerIndex(peer.nodeAddr());
        assertTrue(i >= 0, "back once it answers");
        assertEquals(TreeCoordinates.linkCost(1.0, 40.0), t.peer(i).linkCost(), "with its cost as before");

        // Suspect again, then promoted on another link (a cross-connection's winner): trusted on the new link.
        mesh.onPeerSuspect(peer.toPeer(), true, 5);
        mesh.flush();
        assertTrue(published.getLast().peerIndex(peer.nodeAddr()) < 0);
        mesh.onPeerUp(peer.toPeer(), 8, 0, 6);
        mesh.flush();
        final ForwardingTable t2 = published.getLast();
        assertEquals(8, t2.linkId(t2.peerIndex(peer.nodeAddr())), "a new link is fresh evidence");
    }
}
