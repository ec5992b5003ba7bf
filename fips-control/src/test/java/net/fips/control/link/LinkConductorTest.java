package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.SECOND;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkConductor.ConnectResult;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.link.LinkFixture.Node;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.MmpReceiverReport;

/** Link establishment, cross-connections, heartbeats, liveness, restart, disconnect, tampering and the ACL. */
class LinkConductorTest {
    private final LinkFixture fx = new LinkFixture();

    @Test
    void linkUpOutboundAndInbound() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        assertEquals(ConnectResult.STARTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        assertEquals(ConnectResult.IN_PROGRESS, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
        assertEquals("outbound", a.peer(b).direction());
        assertEquals("inbound", b.peer(a).direction());
        assertEquals(ConnectResult.ALREADY_CONNECTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.advance(SECOND);
        final PeerSnapshot ab = a.peer(b);
        assertEquals(b.id.nodeAddr().toString(), ab.nodeAddr());
        assertEquals(0, ab.kBit());
        assertEquals(b.side.address.toString(), ab.address(),
                "ip:port as the reference prints it");
        fx.assertTraffic(a, b, 50);

        // And the other way round between two fresh nodes.
        final Node c = fx.node("c", 3, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        assertEquals(ConnectResult.STARTED, c.conductor.connect(a.peer, TRANSPORT, a.side.address));
        fx.net.deliverAll();
        assertEquals(2, a.peers());
        assertEquals("inbound", a.peer(c).direction());
        assertEquals(a.peer(c).ourIndex(), c.peer(a).theirIndex());
    }

    @Test
    void aTransportThatAdmitsNoStrangersDropsTheirMsg1ButNotAnEstablishedPeers() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        b.conductor.setAdmission(id -> false);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(0, b.peers(), "b admits no stranger");
        assertEquals(1, b.conductor.snapshot().counter(LinkCounter.MSG1_NOT_ADMITTED));

        // b still dials out: the answer (msg2) is not a stranger's msg1.
        final Node c = fx.node("c", 3, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        b.conductor.connect(c.peer, TRANSPORT, c.side.address);
        fx.net.deliverAll();
        LinkFixture.assertLinked(b, c);
        assertEquals(1, b.conductor.snapshot().counter(LinkCounter.MSG1_NOT_ADMITTED));
    }

    @Test
    void aTransportThatRefusesStrangersDropsTheirMsg1ButDialsOut() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        // b's transport does not accept connections (Ethernet's default): a's dial is dropped before any crypto.
        b.conductor.setAdmission(id -> id != TRANSPORT);
        assertEquals(ConnectResult.STARTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.deliverAll();
        assertEquals(1, b.count(LinkCounter.MSG1_NOT_ADMITTED));
        assertEquals(0, b.peers());
        assertEquals(0, b.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED), "refused before the handshake ran");
        // b may still dial out on it, and the link then works both ways.
        fx.net.advance(SECOND);
        assertEquals(ConnectResult.STARTED, b.conductor.connect(a.peer, TRANSPORT, a.side.address));
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
    }

    /** Both nodes dial each other at once; returns {smaller, larger} by node_addr once linked. */
    private Node[] crossDial() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        b.conductor.connect(a.peer, TRANSPORT, a.side.address);
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
        assertEquals(1, a.count(LinkCounter.CROSS_CONNECTIONS));
        assertEquals(1, b.count(LinkCounter.CROSS_CONNECTIONS));
        return a.id.nodeAddr().compareTo(b.id.nodeAddr()) < 0 ? new Node[] {a, b} : new Node[] {b, a};
    }

    @Test
    void crossConnectionEndsWithOneLinkOnMatchingSessions() {
        final Node[] n = crossDial();
        final Node smaller = n[0];
        final Node larger = n[1];
        final Node a = smaller;
        final Node b = larger;
        // The smaller node's dial won on both sides.
        assertEquals("outbound", smaller.peer(larger).direction());
        assertEquals("inbound", larger.peer(smaller).direction());
        assertEquals(0, a.snap().pendingOutbound());
        assertEquals(0, b.snap().pendingOutbound());
        fx.assertTraffic(a, b, 20);
        fx.net.run(40_000, 500);
        LinkFixture.assertLinked(a, b);
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        fx.assertTraffic(a, b, 20);
    }

    /**
     * The same over a connection-oriented transport (TCP): each dial is its own connection, so after the smaller
     * node's dial won both sides use its connection and close the other one, as the reference does.
     */
    @Test
    void crossConnectionOverStreamsKeepsTheWinningDialsConnectionOnly() {
        fx.net.streams = true;
        final Node[] n = crossDial();
        final Node smaller = n[0];
        final Node larger = n[1];
        final Node a = smaller;
        final Node b = larger;
        final List<TransportAddr> winning = List.of(smaller.side.address, larger.side.address);
        final List<TransportAddr> losing = List.of(larger.side.address, smaller.side.address);
        assertEquals(List.of(losing), smaller.side.closed, "the smaller node closed the larger's dial");
        assertEquals(List.of(losing), larger.side.closed, "and so did the larger");
        assertEquals(1, smaller.count(LinkCounter.CROSS_CONNECTION_CLOSES));
        assertEquals(1, larger.count(LinkCounter.CROSS_CONNECTION_CLOSES));
        // Both links are on the smaller node's dial, its address as each side knows it.
        assertEquals(larger.side.address.toString(), smaller.peer(larger).address());
        assertEquals(winning, fx.net.connection(larger.side, larger.side.onlyLink().remote));
        fx.assertTraffic(a, b, 20);
        fx.net.run(40_000, 500);
        LinkFixture.assertLinked(a, b);
        assertEquals(0, fx.net.sentOnClosed, "nothing was sent on the closed connection");
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        fx.assertTraffic(a, b, 20);
    }

    @Test
    void heartbeatsKeepAnIdleLinkAlive() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        n[0].conductor.connect(n[1].peer, TRANSPORT, n[1].side.address);
        fx.net.deliverAll();
        fx.net.run(95_000, 1000);
        LinkFixture.assertLinked(n[0], n[1]);
        // One on the first tick, then every 10 s: ticks at 1..95 s give 10.
        assertEquals(10, n[0].count(LinkCounter.HEARTBEATS_SENT));
        assertEquals(10, n[1].count(LinkCounter.HEARTBEATS_RECEIVED));
        assertEquals(10, n[0].count(LinkCounter.HEARTBEATS_RECEIVED));
        assertEquals(0, n[0].count(LinkCounter.LINK_DEAD_REMOVALS));
        assertTrue(n[0].peer(n[1]).lastHeartbeatAgoMs() < 10_000);
        assertTrue(n[0].count(LinkCounter.MMP_REPORTS_RECEIVED) > 0, "MMP reports flow");
        // The last ReceiverReport a sent carries real figures from its data plane.
        MmpReceiverReport rr = null;
        for (final byte[] m : n[0].side.sentMessages) {
            if ((m[0] & 0xFF) == LinkMessageType.RECEIVER_REPORT.code()) {
                rr = MmpReceiverReport.decodeLink(m, 0, m.length).valueOrNull();
            }
        }
        assertNotNull(rr);
        final FakeLink link = n[0].side.onlyLink();
        assertTrue(rr.cumulativePacketsRecv() > 10 && rr.cumulativePacketsRecv() <= link.packetsIn());
        assertTrue(rr.cumulativeBytesRecv() > 0 && rr.cumulativeBytesRecv() <= link.bytesIn());
        assertTrue(rr.highestCounter() > 0 && rr.highestCounter() <= link.highestCounterIn());
        assertTrue(rr.timestampEcho() > 0, "echoes b's frame timestamp");
        // A zero-latency network yields no positive RTT sample.
        assertEquals(-1, n[0].peer(n[1]).srttMicros());
    }

    @Test
    void silentPeerIsRemovedAndConfiguredPeerReconnects() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
        fx.net.run(5_000, 1000);
        // b vanishes (both directions).
        fx.net.loss = p -> p.from().equals(b.side.address) || p.to().equals(b.side.address);
        fx.net.run(29_000, 1000);
        assertEquals(1, a.peers(), "not dead before 30 s of silence");
        fx.net.run(2_000, 1000);
        assertEquals(0, a.peers());
        assertEquals(1, a.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertEquals(0, a.side.links.size(), "data-plane link removed");
        assertEquals(1, a.snap().pendingRetries());
        // b comes back; a redials after its 5 s backoff (plus retries with backoff while b was still away).
        fx.net.loss = p -> false;
        fx.net.run(60_000, 1000);
        assertEquals(1, a.peers());
        assertEquals(1, b.peers());
        assertTrue(a.count(LinkCounter.RETRIES_STARTED) >= 1);
        fx.assertTraffic(a, b, 10);
    }

    @Test
    void restartWithNewEpochReplacesTheOldLink() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        fx.net.run(3_000, 1000);
        final long oldIndex = a.peer(b).ourIndex();
        final Node b2 = fx.restart(b, 99, LinkConfig.defaults());
        assertFalse(Arrays.equals(b.epoch, b2.epoch));
        b2.conductor.connect(a.peer, TRANSPORT, a.side.address);
        fx.net.deliverAll();
        assertEquals(1, a.count(LinkCounter.RESTARTS_DETECTED));
        LinkFixture.assertLinked(a, b2);
        assertNotEquals(oldIndex, a.peer(b2).ourIndex());
        fx.assertTraffic(a, b2, 10);
    }

    @Test
    void disconnectRemovesStateOnBothSides() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
        assertTrue(a.conductor.disconnect(b.peer));
        assertFalse(a.conductor.disconnect(b.peer));
        fx.net.deliverAll();
        assertEquals(0, a.peers());
        assertEquals(0, b.peers());
        assertEquals(0, b.side.links.size());
        assertEquals(1, b.count(LinkCounter.DISCONNECTS_RECEIVED));
        final byte[] sent = a.side.sentMessages.getLast();
        assertEquals(LinkMessageType.DISCONNECT.code(), sent[0] & 0xFF);
        assertEquals(Disconnect.Reason.CONFIGURATION_CHANGE.code(), sent[1] & 0xFF);
        // The operator's disconnect suppresses a's auto-reconnect.
        fx.net.run(20_000, 1000);
        assertEquals(0, a.peers());

        // Shutdown sends Disconnect(Shutdown); the configured side redials and finds nobody until the other returns.
        b.conductor.addConfiguredPeer(a.peer, TRANSPORT, a.side.address, true);
        fx.net.deliverAll();
        LinkFixture.assertLinked(a, b);
        a.conductor.shutdown();
        fx.net.deliverAll();
        assertEquals(Disconnect.Reason.SHUTDOWN.code(), a.side.sentMessages.getLast()[1] & 0xFF);
        assertEquals(0, b.peers());
        assertEquals(1, b.snap().pendingRetries(), "b schedules a reconnect");
    }

    @Test
    void replayedAndTamperedFramesAreCountedAndTwentyFailuresRemoveThePeer() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        a.side.sendData(a.side.onlyLink().linkId, 7);
        fx.net.deliverAll();
        final PairedDataPlanes.Packet captured = b.side.framesIn.getLast();
        final int delivered = b.side.datagrams.size();
        fx.net.wire.add(captured);
        fx.net.deliverAll();
        assertEquals(1, b.side.replays);
        assertEquals(delivered, b.side.datagrams.size(), "replay not delivered");
        for (int i = 0; i < PairedDataPlanes.DECRYPT_FAILURE_LIMIT - 1; i++) {
            a.side.sendData(a.side.onlyLink().linkId, 100 + i);
            final PairedDataPlanes.Packet p = fx.net.wire.pollLast();
            final byte[] bad = p.bytes().clone();
            bad[bad.length - 1] ^= 0x01;
            fx.net.wire.add(new PairedDataPlanes.Packet(p.from(), p.to(), bad));
            fx.net.deliverAll();
        }
        assertEquals(PairedDataPlanes.DECRYPT_FAILURE_LIMIT - 1, b.side.authFailures);
        assertEquals(1, b.peers(), "19 failures are tolerated");
        fx.net.advance(SECOND);
        assertEquals(PairedDataPlanes.DECRYPT_FAILURE_LIMIT, b.peer(a).dropsIn());
        // A good frame resets the consecutive count; then 20 bad ones in a row remove the peer.
        for (int i = 0; i < PairedDataPlanes.DECRYPT_FAILURE_LIMIT; i++) {
            a.side.sendData(a.side.onlyLink().linkId, 200 + i);
            final PairedDataPlanes.Packet p = fx.net.wire.pollLast();
            final byte[] bad = p.bytes().clone();
            bad[20] ^= 0x40;
            fx.net.wire.add(new PairedDataPlanes.Packet(p.from(), p.to(), bad));
            fx.net.deliverAll();
        }
        assertEquals(0, b.peers());
        assertEquals(1, b.count(LinkCounter.DECRYPT_FAILURE_REMOVALS));
    }

    @Test
    void aclDeniesBeforeDialling() {
        final Node a = fx.node("a", 1, LinkConfig.defaults(),
                (p, ctx) -> ctx != PeerFilter.Context.OUTBOUND_CONNECT);
        final Node b = fx.node("b", 2, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        assertEquals(ConnectResult.DENIED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        assertTrue(fx.net.wire.isEmpty(), "nothing sent");
        assertEquals(1, a.count(LinkCounter.ACL_REJECTED));
    }

    @Test
    void aclDeniesInboundHandshakeAfterDecryption() {
        final Node a = fx.node("a", 1, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        final Node b = fx.node("b", 2, LinkConfig.defaults(),
                (p, ctx) -> ctx != PeerFilter.Context.INBOUND_HANDSHAKE);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(1, b.count(LinkCounter.ACL_REJECTED));
        assertEquals(0, b.peers());
        assertEquals(0, a.peers());
        fx.net.run(32_000, 1000);
        assertEquals(4, a.count(LinkCounter.HANDSHAKE_RESENDS), "resends at 1, 3, 7, 15 s; 31 s pre-empted");
        assertEquals(1, a.count(LinkCounter.HANDSHAKE_TIMEOUTS));
        assertEquals(5, b.count(LinkCounter.ACL_REJECTED));
        assertEquals(0, a.snap().pendingOutbound());
    }

    @Test
    void aclDeniesOutboundHandshakeOnMsg2() {
        final Node a = fx.node("a", 1, LinkConfig.defaults(),
                (p, ctx) -> ctx != PeerFilter.Context.OUTBOUND_HANDSHAKE);
        final Node b = fx.node("b", 2, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        assertEquals(ConnectResult.STARTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.deliverAll();
        assertEquals(1, a.count(LinkCounter.ACL_REJECTED));
        assertEquals(0, a.peers());
        assertEquals(0, a.snap().pendingOutbound());
        assertEquals(1, b.peers(), "the responder promoted before a's decision");
        fx.net.run(31_000, 1000);
        assertEquals(0, b.peers(), "and drops the silent link");
    }

    @Test
    void snapshotIsImmutableAndPublishedAfterChanges() {
        final Node[] n = fx.pair(LinkConfig.defaults());
        final LinkSnapshot before = n[0].snap();
        n[0].conductor.connect(n[1].peer, TRANSPORT, n[1].side.address);
        final LinkSnapshot dialling = n[0].snap();
        assertEquals(0, before.pendingOutbound());
        assertEquals(1, dialling.pendingOutbound());
        fx.net.deliverAll();
        fx.net.run(12_000, 1000);
        final LinkSnapshot after = n[0].snap();
        assertEquals(0, before.peers().size());
        final PeerSnapshot p = after.peers().getFirst();
        assertEquals(n[1].peer.npub(), p.npub());
        assertEquals("connected", p.state());
        assertEquals(TRANSPORT, p.transportId());
        assertTrue(p.linkAgeMs() >= 12_000);
        assertTrue(p.packetsIn() > 0 && p.packetsOut() > 0 && p.bytesIn() > 0 && p.bytesOut() > 0);
        assertTrue(p.sendCounter() > 0);
        assertEquals(-1, p.pendingOurIndex());
        assertNull(before.peer(n[1].peer.npub()));
        final long[] counters = after.counters();
        counters[0] = -5;
        assertNotEquals(-5, after.counters()[0]);
        assertTrue(p.lastReceivedAgoMs() <= 1000);
    }
}
