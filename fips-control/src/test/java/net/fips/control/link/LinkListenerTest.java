package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.SECOND;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkFixture.Node;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.LinkMessageType;

/** The {@link LinkListener} seam: what the layer above hears, and what happens to its messages without one. */
class LinkListenerTest {
    private final LinkFixture fx = new LinkFixture();

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
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        final RecordingListener la = new RecordingListener();
        final RecordingListener lb = new RecordingListener();
        a.conductor.setLinkListener(la);
        b.conductor.setLinkListener(lb);
        fx.net.latencyNanos = 5 * PairedDataPlanes.MS;
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.run(100, 1);
        LinkFixture.assertLinked(a, b);

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
        final Node[] n = fx.pair(LinkConfig.defaults());
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        fx.net.run(3_000, 100);
        LinkFixture.assertLinked(a, b);
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
        fx.assertTraffic(a, b, 10);
    }
}
