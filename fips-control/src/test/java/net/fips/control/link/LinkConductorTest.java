package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.SECOND;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkConductor.ConnectResult;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.link.LinkFixture.Node;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.MmpReceiverReport;

import org.junit.jupiter.api.Test;

/** Link establishment, cross-connections, heartbeats, liveness, restart, disconnect, tampering and the ACL. */
class LinkConductorTest {
    private final LinkFixture fx = new LinkFixture();

    private Node[] pair(final LinkConfig cfg) {
        return new Node[] {fx.node("a", 1, cfg, PeerFilter.ALLOW_ALL), fx.node("b", 2, cfg, PeerFilter.ALLOW_ALL)};
    }

    /** Both sides hold exactly one link whose indices mirror each other. */
    private static void assertLinked(final Node x, final Node y) {
        assertEquals(1, x.peers(), x.side.name + " peers");
        assertEquals(1, y.peers(), y.side.name + " peers");
        final PeerSnapshot xy = x.peer(y);
        final PeerSnapshot yx = y.peer(x);
        assertNotNull(xy);
        assertNotNull(yx);
        assertEquals(xy.ourIndex(), yx.theirIndex());
        assertEquals(xy.theirIndex(), yx.ourIndex());
        assertEquals(1, x.side.links.size());
        assertEquals(1, y.side.links.size());
    }

    /** Sends {@code n} data messages each way and checks that all of them arrive. */
    private void assertTraffic(final Node x, final Node y, final int n) {
        final int xBefore = y.side.datagrams.size();
        final int yBefore = x.side.datagrams.size();
        for (int i = 0; i < n; i++) {
            x.side.sendData(x.side.onlyLink().linkId, i);
            y.side.sendData(y.side.onlyLink().linkId, i);
        }
        fx.net.deliverAll();
        assertEquals(xBefore + n, y.side.datagrams.size(), "x->y data");
        assertEquals(yBefore + n, x.side.datagrams.size(), "y->x data");
    }

    @Test
    void linkUpOutboundAndInbound() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        assertEquals(ConnectResult.STARTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        assertEquals(ConnectResult.IN_PROGRESS, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.deliverAll();
        assertLinked(a, b);
        assertEquals("outbound", a.peer(b).direction());
        assertEquals("inbound", b.peer(a).direction());
        assertEquals(ConnectResult.ALREADY_CONNECTED, a.conductor.connect(b.peer, TRANSPORT, b.side.address));
        fx.net.advance(SECOND);
        final PeerSnapshot ab = a.peer(b);
        assertEquals(b.id.nodeAddr().toString(), ab.nodeAddr());
        assertEquals(0, ab.kBit());
        assertEquals(b.side.address.toString(), ab.address(),
                "ip:port as the reference prints it");
        assertTraffic(a, b, 50);

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
        final Node[] n = pair(LinkConfig.defaults());
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
        assertLinked(b, c);
        assertEquals(1, b.conductor.snapshot().counter(LinkCounter.MSG1_NOT_ADMITTED));
    }

    @Test
    void aTransportThatRefusesStrangersDropsTheirMsg1ButDialsOut() {
        final Node[] n = pair(LinkConfig.defaults());
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
        assertLinked(a, b);
    }

    /** Both nodes dial each other at once; returns {smaller, larger} by node_addr once linked. */
    private Node[] crossDial() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        b.conductor.connect(a.peer, TRANSPORT, a.side.address);
        fx.net.deliverAll();
        assertLinked(a, b);
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
        assertTraffic(a, b, 20);
        fx.net.run(40_000, 500);
        assertLinked(a, b);
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertTraffic(a, b, 20);
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
        final java.util.List<TransportAddr> winning = java.util.List.of(smaller.side.address, larger.side.address);
        final java.util.List<TransportAddr> losing = java.util.List.of(larger.side.address, smaller.side.address);
        assertEquals(java.util.List.of(losing), smaller.side.closed, "the smaller node closed the larger's dial");
        assertEquals(java.util.List.of(losing), larger.side.closed, "and so did the larger");
        assertEquals(1, smaller.count(LinkCounter.CROSS_CONNECTION_CLOSES));
        assertEquals(1, larger.count(LinkCounter.CROSS_CONNECTION_CLOSES));
        // Both links are on the smaller node's dial, its address as each side knows it.
        assertEquals(larger.side.address.toString(), smaller.peer(larger).address());
        assertEquals(winning, fx.net.connection(larger.side, larger.side.onlyLink().remote));
        assertTraffic(a, b, 20);
        fx.net.run(40_000, 500);
        assertLinked(a, b);
        assertEquals(0, fx.net.sentOnClosed, "nothing was sent on the closed connection");
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertTraffic(a, b, 20);
    }

    @Test
    void heartbeatsKeepAnIdleLinkAlive() {
        final Node[] n = pair(LinkConfig.defaults());
        n[0].conductor.connect(n[1].peer, TRANSPORT, n[1].side.address);
        fx.net.deliverAll();
        fx.net.run(95_000, 1000);
        assertLinked(n[0], n[1]);
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
        final PairedDataPlanes.DpLink link = n[0].side.onlyLink();
        assertTrue(rr.cumulativePacketsRecv() > 10 && rr.cumulativePacketsRecv() <= link.packetsIn());
        assertTrue(rr.cumulativeBytesRecv() > 0 && rr.cumulativeBytesRecv() <= link.bytesIn());
        assertTrue(rr.highestCounter() > 0 && rr.highestCounter() <= link.highestCounterIn());
        assertTrue(rr.timestampEcho() > 0, "echoes b's frame timestamp");
        // A zero-latency network yields no positive RTT sample.
        assertEquals(-1, n[0].peer(n[1]).srttMicros());
    }

    @Test
    void silentPeerIsRemovedAndConfiguredPeerReconnects() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.deliverAll();
        assertLinked(a, b);
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
        assertTraffic(a, b, 10);
    }

    @Test
    void restartWithNewEpochReplacesTheOldLink() {
        final Node[] n = pair(LinkConfig.defaults());
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
        assertLinked(a, b2);
        assertNotEquals(oldIndex, a.peer(b2).ourIndex());
        assertTraffic(a, b2, 10);
    }

    @Test
    void disconnectRemovesStateOnBothSides() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.deliverAll();
        assertLinked(a, b);
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
        assertLinked(a, b);
        a.conductor.shutdown();
        fx.net.deliverAll();
        assertEquals(Disconnect.Reason.SHUTDOWN.code(), a.side.sentMessages.getLast()[1] & 0xFF);
        assertEquals(0, b.peers());
        assertEquals(1, b.snap().pendingRetries(), "b schedules a reconnect");
    }

    @Test
    void replayedAndTamperedFramesAreCountedAndTwentyFailuresRemoveThePeer() {
        final Node[] n = pair(LinkConfig.defaults());
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
        final Node[] n = pair(LinkConfig.defaults());
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

    /** What a {@link LinkListener} heard, in order. */
    private static final class RecordingListener implements LinkListener {
        record PeerUp(PeerIdentity peer, long linkId, int transportId, long now) {
        }

        record Message(PeerIdentity peer, byte[] message, long now) {
        }

        record Rtt(PeerIdentity peer, long srttMicros, int samples) {
        }

        final List<PeerUp> ups = new ArrayList<>();
        final List<PeerIdentity> downs = new ArrayList<>();
        final List<Message> messages = new ArrayList<>();
        final List<Rtt> rtts = new ArrayList<>();
        /** "routing@now" and "lookup@now", one per tick slot call. */
        final List<String> slots = new ArrayList<>();
        int routingWork;
        int lookupWork;

        @Override
        public void onPeerUp(final PeerIdentity peer, final long linkId, final int transportId, final long now) {
            ups.add(new PeerUp(peer, linkId, transportId, now));
        }

        @Override
        public void onPeerDown(final PeerIdentity peer, final long now) {
            downs.add(peer);
        }

        @Override
        public void onLinkMessage(final PeerIdentity peer, final byte[] message, final long now) {
            messages.add(new Message(peer, message, now));
        }

        @Override
        public void onRttSample(final PeerIdentity peer, final long srttMicros, final int samples, final long now) {
            rtts.add(new Rtt(peer, srttMicros, samples));
        }

        @Override
        public int onRoutingTick(final long now) {
            slots.add("routing@" + now);
            return routingWork;
        }

        @Override
        public int onLookupTick(final long now) {
            slots.add("lookup@" + now);
            return lookupWork;
        }
    }

    /** The four kinds of message the link layer does not consume, as {@code b} would send them to {@code a}. */
    private static List<byte[]> upperLayerMessages(final Node a, final Node b) {
        final NodeAddr root = b.id.nodeAddr();
        final byte[] sig = b.id.sign(TreeAnnounce.signingBytes(root, root, 7, 1_700_000_000L), new byte[32]);
        final byte[] tree = new TreeAnnounce(7, 1_700_000_000L, root,
                List.of(new CoordEntry(root, 7, 1_700_000_000L)), sig).encode();
        final BloomFilter f = BloomFilter.create();
        f.insert(root);
        final byte[] filter = FilterAnnounce.v1(3, f).encode();
        final byte[] lookup = new LookupRequest(0x1122_3344_5566_7788L, a.id.nodeAddr(), root, 64, 0,
                Coords.of(root)).encode();
        final byte[] unknown = {0x77, 1, 2, 3};
        return List.of(tree, filter, lookup, unknown);
    }

    private static int sentOfType(final Node n, final LinkMessageType type) {
        int k = 0;
        for (final byte[] m : n.side.sentMessages) {
            if ((m[0] & 0xFF) == type.code()) {
                k++;
            }
        }
        return k;
    }

    @Test
    void listenerHearsPeerUpMessagesRttTickSlotsAndPeerDown() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        final RecordingListener la = new RecordingListener();
        final RecordingListener lb = new RecordingListener();
        a.conductor.setLinkListener(la);
        b.conductor.setLinkListener(lb);
        fx.net.latencyNanos = 5 * PairedDataPlanes.MS;
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.run(100, 1);
        assertLinked(a, b);

        // Promotion on both sides, with the data plane's link id.
        assertEquals(1, la.ups.size());
        assertEquals(1, lb.ups.size());
        assertEquals(b.peer, la.ups.getFirst().peer());
        assertEquals(a.peer, lb.ups.getFirst().peer());
        assertEquals(a.side.onlyLink().linkId, la.ups.getFirst().linkId());
        assertEquals(b.side.onlyLink().linkId, lb.ups.getFirst().linkId());
        assertEquals(a.peer(b).linkId(), la.ups.getFirst().linkId());
        assertEquals(TRANSPORT, la.ups.getFirst().transportId());
        assertEquals(TRANSPORT, lb.ups.getFirst().transportId());

        // The link layer announces nothing of its own.
        assertEquals(0, sentOfType(a, LinkMessageType.TREE_ANNOUNCE) + sentOfType(b, LinkMessageType.TREE_ANNOUNCE));
        assertEquals(0, sentOfType(a, LinkMessageType.FILTER_ANNOUNCE)
                + sentOfType(b, LinkMessageType.FILTER_ANNOUNCE));

        // Upper-layer messages from b reach a's listener byte for byte, in order; nothing the link layer consumes
        // itself (MMP reports, heartbeats) does.
        final long otherBefore = a.count(LinkCounter.OTHER_LINK_MESSAGES);
        final List<byte[]> sent = upperLayerMessages(a, b);
        for (final byte[] m : sent) {
            assertTrue(b.conductor.send(a.peer, m.clone()));
        }
        fx.net.run(20, 1);
        assertEquals(sent.size(), la.messages.size());
        for (int i = 0; i < sent.size(); i++) {
            assertEquals(b.peer, la.messages.get(i).peer());
            assertTrue(Arrays.equals(sent.get(i), la.messages.get(i).message()), "message " + i + " byte-exact");
        }
        assertEquals(otherBefore + sent.size(), a.count(LinkCounter.OTHER_LINK_MESSAGES));
        assertTrue(lb.messages.isEmpty());
        // And the other way, by node address.
        assertTrue(a.conductor.send(b.id.nodeAddr(), sent.get(2).clone()));
        fx.net.run(20, 1);
        assertEquals(1, lb.messages.size());
        assertEquals(a.peer, lb.messages.getFirst().peer());
        assertTrue(Arrays.equals(sent.get(2), lb.messages.getFirst().message()));

        // MMP reports over a 5 ms one-way link yield RTT samples on both sides, matching the snapshot.
        for (int ms = 0; ms < 5_000; ms += 10) {
            a.side.sendData(a.side.onlyLink().linkId, ms);
            b.side.sendData(b.side.onlyLink().linkId, ms);
            fx.net.run(10, 1);
        }
        assertTrue(a.count(LinkCounter.MMP_REPORTS_RECEIVED) > 0 && b.count(LinkCounter.MMP_REPORTS_RECEIVED) > 0);
        assertFalse(la.rtts.isEmpty(), "a's RTT samples");
        assertFalse(lb.rtts.isEmpty(), "b's RTT samples");
        final RecordingListener.Rtt lastA = la.rtts.getLast();
        assertEquals(b.peer, lastA.peer());
        assertEquals(la.rtts.size(), lastA.samples());
        assertEquals(10_000, lastA.srttMicros(), "2 x 5 ms");
        assertEquals(a.peer(b).srttMicros(), lastA.srttMicros());
        assertEquals(a.peer, lb.rtts.getLast().peer());
        assertEquals(b.peer(a).srttMicros(), lb.rtts.getLast().srttMicros());
        assertEquals(sent.size(), la.messages.size(), "MMP reports and heartbeats are not handed up");

        // Each tick calls the routing slot, then the lookup slot, at the tick's clock, and counts their work.
        la.slots.clear();
        la.routingWork = 7;
        la.lookupWork = 11;
        final long t = fx.net.now + SECOND;
        final int work = a.conductor.doWork(t);
        assertEquals(List.of("routing@" + t, "lookup@" + t), la.slots);
        assertTrue(work >= 1 + 7 + 11, "work " + work);
        assertEquals(0, a.conductor.doWork(t), "no tick due, no slot called");
        assertEquals(2, la.slots.size());

        // Disconnect: the operator's side and the receiving side both hear the peer go.
        assertTrue(a.conductor.disconnect(b.peer));
        assertEquals(List.of(b.peer), la.downs);
        fx.net.run(20, 1);
        assertEquals(List.of(a.peer), lb.downs);
        assertEquals(0, a.peers());
        assertEquals(0, b.peers());
        assertEquals(1, la.ups.size(), "no new promotion");
    }

    @Test
    void withoutListenerUpperLayerMessagesAreCountedAndIgnored() {
        final Node[] n = pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        fx.net.run(3_000, 100);
        assertLinked(a, b);
        // No stand-alone tree or bloom: nothing but MMP reports and heartbeats goes out on its own.
        assertEquals(0, sentOfType(a, LinkMessageType.TREE_ANNOUNCE) + sentOfType(b, LinkMessageType.TREE_ANNOUNCE));
        assertEquals(0, sentOfType(a, LinkMessageType.FILTER_ANNOUNCE)
                + sentOfType(b, LinkMessageType.FILTER_ANNOUNCE));
        assertEquals(0, a.count(LinkCounter.OTHER_LINK_MESSAGES));
        final List<byte[]> sent = upperLayerMessages(a, b);
        for (final byte[] m : sent) {
            assertTrue(b.conductor.send(a.peer, m));
        }
        fx.net.deliverAll();
        assertEquals(sent.size(), a.count(LinkCounter.OTHER_LINK_MESSAGES));
        assertEquals(0, sentOfType(a, LinkMessageType.TREE_ANNOUNCE), "no echo of a TreeAnnounce");
        fx.net.run(2_000, 100);
        assertEquals(1, a.peers(), "the link is unaffected");
        assertTraffic(a, b, 10);
    }
}
