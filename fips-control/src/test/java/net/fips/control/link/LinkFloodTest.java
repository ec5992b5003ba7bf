package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.MS;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.link.LinkFixture.Node;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.control.identity.TestIdentities;

/** A msg1 flood from random identities keeps every table bounded and leaves an established link working. */
class LinkFloodTest {

    @Test
    void floodOfFiveThousandMsg1KeepsStateBoundedAndTheLinkAlive() throws NoiseException {
        final LinkFixture fx = new LinkFixture();
        final LinkConfig cfg = LinkConfig.defaults().withMaxPeers(16);
        final Node a = fx.node("a", 21, cfg, PeerFilter.ALLOW_ALL);
        final Node b = fx.node("b", 22, cfg, PeerFilter.ALLOW_ALL);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(1, b.peers());
        final long aLink = a.side.onlyLink().linkId;
        final long bLink = b.side.onlyLink().linkId;

        // 5000 genuine IK msg1s to b, each from a fresh random identity and address.
        final Random r = new Random(5000);
        final byte[] epoch = new byte[8];
        final List<PairedDataPlanes.Packet> flood = new ArrayList<>();
        final EphemeralSource ephemerals = () -> TestIdentities.seeded(r.nextLong()).secretKey();
        for (int i = 0; i < 5000; i++) {
            final byte[] sk = TestIdentities.seeded(r.nextLong()).secretKey();
            r.nextBytes(epoch);
            final HandshakeState hs = HandshakeState.initiator(HandshakeState.Pattern.IK, sk,
                    b.id.compressedPublicKey(), epoch, ephemerals);
            final byte[] pkt = new FmpMsg1(r.nextInt(), hs.writeMessage1()).encode();
            final TransportAddr from = PairedDataPlanes.inet("192.168." + (i >> 8 & 0xFF) + "." + (i & 0xFF),
                    40000 + i % 1000);
            flood.add(new PairedDataPlanes.Packet(from, b.side.address, pkt));
        }

        // 1000 at once, then 100 every 100 ms for 4 s, with traffic on the real link throughout.
        int maxPeers = 0;
        long sent = 0;
        for (int i = 0; i < flood.size(); i++) {
            fx.net.wire.add(flood.get(i));
            if (i >= 1000 && i % 100 == 99) {
                a.side.sendData(aLink, sent);
                b.side.sendData(bLink, sent++);
                fx.net.advance(100 * MS);
                maxPeers = Math.max(maxPeers, b.peers());
                assertTrue(b.conductor.pendingInbound() == 0);
            }
        }
        fx.net.deliverAll();
        assertEquals(5001, b.count(LinkCounter.MSG1_RECEIVED), "a's msg1 and the flood");
        final long admitted = 5000 - b.count(LinkCounter.MSG1_RATE_LIMITED);
        // Burst 100 (one already used by a) plus 10/s over ~4 s.
        assertTrue(admitted >= 99 && admitted <= 99 + 45, "admitted " + admitted);
        assertTrue(maxPeers <= 16, "peer table bounded: " + maxPeers);
        assertEquals(16, b.peers());
        assertEquals(admitted - 15, b.count(LinkCounter.MAX_PEERS_DROPPED));
        assertEquals(0, b.snap().pendingOutbound());
        assertTrue(b.conductor.indicesInUse() <= 16);
        assertTrue(b.side.links.size() <= 16);

        // The real link keeps working, and the flood's dead links are reaped after 30 s.
        fx.net.run(40_000, 1000);
        assertEquals(1, b.peers());
        assertEquals(1, a.peers());
        assertEquals(15, b.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertEquals(1, b.side.links.size());
        assertEquals(sent, b.side.datagrams.size());
        assertEquals(sent, a.side.datagrams.size());
        final long before = a.side.datagrams.size();
        b.side.sendData(bLink, sent);
        fx.net.deliverAll();
        assertEquals(before + 1, a.side.datagrams.size());
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS));
    }
}
