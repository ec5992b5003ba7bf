package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.MS;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkFixture.Node;

/**
 * Fast failover at the link layer (issue 18 §2, ADR 0024), on the fake data planes and a manual clock: a link that
 * carries our frames and stops answering is suspect within a few seconds, long before the 30 s dead timer, and
 * trusted again at its first authenticated frame; an idle link (heartbeats and the MMP reports they keep flowing)
 * is never suspected, and a link losing 2 % of its packets never flaps.
 */
class LinkSuspectTest {
    private final LinkFixture fx = new LinkFixture();
    private final Node a = fx.node("a", 31, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    private final Node b = fx.node("b", 32, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    /** What a's listener heard: +ms when b became suspect, -ms when it answered again. */
    private final List<Long> heard = new ArrayList<>();
    private long seq;

    LinkSuspectTest() {
        a.conductor.setLinkListener(new LinkListener() {
            @Override
            public void onPeerSuspect(final PeerIdentity peer, final boolean suspect, final long nowNanos) {
                assertEquals(b.peer.nodeAddr(), peer.nodeAddr());
                heard.add((suspect ? 1 : -1) * (nowNanos / MS));
            }
        });
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(1, a.peers());
    }

    /** Runs {@code ms} in 100 ms steps; a sends a datagram every {@code everyMs} (0: none), b none. */
    private void run(final long ms, final long everyMs) {
        for (long t = 0; t < ms; t += 100) {
            if (everyMs > 0 && t % everyMs == 0 && !a.side.links.isEmpty()) {
                a.side.sendData(a.side.onlyLink().linkId, seq++);
            }
            fx.net.advance(100 * MS);
        }
    }

    private boolean fromB(final PairedDataPlanes.Packet p) {
        return p.from().equals(b.side.address);
    }

    @Test
    void aLinkThatStopsAnsweringWhileWeSendIsSuspectWithinSecondsAndTrustedAgainWhenItAnswers() {
        run(5_000, 200);
        assertEquals(List.of(), heard, "a healthy link is not suspected");
        final long cut = fx.net.now / MS;
        fx.net.loss = this::fromB;
        run(6_000, 200);
        assertEquals(1, heard.size(), () -> "suspected once: " + heard);
        final long after = heard.getFirst() - cut;
        assertTrue(after >= 2_000 && after <= 4_100, "suspect 3 s after its last frame, not 30: " + after);
        assertEquals(1, a.count(LinkCounter.LINKS_SUSPECTED));
        assertEquals(1, a.peers(), "still a peer: the dead-link timer decides removal");

        fx.net.loss = p -> false;
        run(2_000, 200);
        assertEquals(2, heard.size(), () -> "answered again: " + heard);
        assertTrue(heard.get(1) < 0);
        assertEquals(1, a.count(LinkCounter.LINKS_RECOVERED));
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS));
    }

    @Test
    void anIdleLinkCarryingOnlyHeartbeatsAndReportsIsNeverSuspected() {
        run(300_000, 0);
        assertEquals(List.of(), heard, "5 minutes idle");
        assertTrue(a.count(LinkCounter.MMP_REPORTS_RECEIVED) >= 100, "reports kept flowing");
        assertTrue(a.count(LinkCounter.HEARTBEATS_SENT) >= 29, "heartbeats went both ways meanwhile");
    }

    @Test
    void aChattyPeerThatFallsSilentIsSuspectEvenWhenWeSendItNoData() {
        run(5_000, 0);
        final long cut = fx.net.now / MS;
        fx.net.loss = this::fromB;
        run(6_000, 0);
        assertEquals(1, heard.size(), () -> "suspected once: " + heard);
        final long after = heard.getFirst() - cut;
        assertTrue(after >= 2_000 && after <= 4_100, "suspect 3 s after its last report: " + after);
    }

    @Test
    void aLinkLosingTwoPercentNeverFlaps() {
        final Random r = new Random(2);
        fx.net.loss = p -> r.nextInt(100) < 2;
        run(600_000, 200);
        assertEquals(List.of(), heard, "no switch in 10 minutes at 2 % loss");
        assertEquals(0, a.count(LinkCounter.LINKS_SUSPECTED));
        assertTrue(fx.net.lostPackets > 100, "the loss was real: " + fx.net.lostPackets);
    }
}
