package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.MS;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkFixture.Node;
import net.fips.dataplane.wire.FmpPrefix;

/** Rekey by time and by count under continuous traffic, and the reference's behaviour when a rekey msg2 is lost. */
class LinkRekeyTest {
    private final LinkFixture fx = new LinkFixture();
    private final Node a = fx.node("a", 11, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    private final Node b = fx.node("b", 12, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    private long sentByA;
    private long sentByB;
    private long firstCutoverAt = -1;
    private final long start = fx.net.now;

    private void linkUp() {
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(1, a.peers());
        assertEquals(1, b.peers());
    }

    /** Runs for {@code totalMs} in {@code stepMs} steps, sending {@code perStepA} / {@code perStepB} messages. */
    private void runWithTraffic(final long totalMs, final long stepMs, final int perStepA, final int perStepB) {
        for (long t = 0; t < totalMs; t += stepMs) {
            for (int i = 0; i < perStepA && !a.side.links.isEmpty(); i++) {
                a.side.sendData(a.side.onlyLink().linkId, sentByA++);
            }
            for (int i = 0; i < perStepB && !b.side.links.isEmpty(); i++) {
                b.side.sendData(b.side.onlyLink().linkId, sentByB++);
            }
            fx.net.advance(stepMs * MS);
            if (firstCutoverAt < 0 && a.count(LinkCounter.CUTOVERS) > 0) {
                firstCutoverAt = (fx.net.now - start) / MS;
            }
        }
    }

    private static void assertInOrderWithoutGaps(final List<byte[]> got, final long expected) {
        assertEquals(expected, got.size());
        for (int i = 0; i < got.size(); i++) {
            final long seq = MemorySegment.ofArray(got.get(i)).get(ValueLayout.JAVA_LONG_UNALIGNED, 1);
            assertEquals(i, seq, "message " + i);
        }
    }

    private void assertConsistent() {
        final PeerSnapshot ab = a.peer(b);
        final PeerSnapshot ba = b.peer(a);
        assertEquals(ab.ourIndex(), ba.theirIndex());
        assertEquals(ab.theirIndex(), ba.ourIndex());
        assertEquals(ab.kBit(), ba.kBit());
        assertEquals(ab.kBit(), a.side.onlyLink().k);
        assertEquals(ab.rekeys() % 2, ab.kBit());
    }

    @Test
    void rekeyByTimeWithContinuousTrafficLosesNothing() {
        linkUp();
        runWithTraffic(400_000, 100, 1, 1);
        fx.net.advance(MS);
        final long cutovers = a.count(LinkCounter.CUTOVERS);
        assertTrue(cutovers >= 2, "cutovers " + cutovers);
        // The responder installs the keys a msg2 offers before the msg2 leaves (the link at start-up, each
        // rekey's pending session), so the initiator's first frame under them is never dropped as unknown.
        assertEquals(0, a.side.msg2BeforeIndex + b.side.msg2BeforeIndex, "msg2 sent before its index existed");
        assertEquals(cutovers, b.count(LinkCounter.CUTOVERS), "both sides cut over every time");
        assertEquals(cutovers, a.count(LinkCounter.REKEYS_RESPONDED) + b.count(LinkCounter.REKEYS_RESPONDED));
        // Every initiation either completed or lost a dual initiation (the larger node abandons its own).
        final long abandoned = a.count(LinkCounter.REKEYS_ABANDONED) + b.count(LinkCounter.REKEYS_ABANDONED);
        assertEquals(cutovers + abandoned,
                a.count(LinkCounter.REKEYS_INITIATED) + b.count(LinkCounter.REKEYS_INITIATED));
        assertEquals(abandoned, a.count(LinkCounter.REKEY_MSG1_DROPPED) + b.count(LinkCounter.REKEY_MSG1_DROPPED),
                "the smaller node dropped the larger one's msg1 each time");
        // 120 s +- 15 s after promotion, tick-quantised.
        assertTrue(firstCutoverAt >= 105_000 && firstCutoverAt <= 137_000, "first cutover at " + firstCutoverAt);
        assertInOrderWithoutGaps(b.side.datagrams, sentByA);
        assertInOrderWithoutGaps(a.side.datagrams, sentByB);
        assertEquals(0, a.side.authFailures + b.side.authFailures + a.side.replays + b.side.replays);
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertConsistent();
        // Drained: after 10 s only the current session's index is registered on each side.
        fx.net.run(12_000, 1000);
        assertEquals(1, a.side.byIndex.size());
        assertEquals(1, b.side.byIndex.size());
        assertEquals(1, a.conductor.indicesInUse());
        assertEquals(1, b.conductor.indicesInUse());
    }

    @Test
    void rekeyByCountWithContinuousTrafficLosesNothing() {
        linkUp();
        // a sends 2500 frames a second: 65536 after ~26 s, so the count triggers long before 105 s.
        runWithTraffic(45_000, 1000, 2500, 10);
        assertTrue(a.count(LinkCounter.REKEYS_INITIATED) >= 1);
        assertTrue(firstCutoverAt >= 30_000 && firstCutoverAt <= 32_000, "first cutover at " + firstCutoverAt);
        assertTrue(a.side.onlyLink().sendCounter() < 65_536, "counter restarted with the new session");
        assertInOrderWithoutGaps(b.side.datagrams, sentByA);
        assertInOrderWithoutGaps(a.side.datagrams, sentByB);
        assertEquals(0, a.side.authFailures + b.side.authFailures);
        assertConsistent();
    }

    /**
     * A rekey responder may cut over at its next tick, and its frames under the new keys then reach an initiator
     * whose control plane has not read the msg2 yet: dropped as an unknown index (crypto-link.md §5.11; at a
     * full-rate stream the initiator's reaction time is hundreds of frames). Our responder's tick leaves the pending
     * keys to the initiator's first frame under them for three ticks (ADR 0065): here the initiator reads the msg2
     * 1.5 s late (the msg2 is taken off the wire and handed over then) while the responder keeps sending, and
     * nothing it sends is lost; the responder is cut over by the initiator's frame, not by its own tick.
     */
    @Test
    void rekeyResponderWaitsForTheInitiatorsFirstFrameUnderTheNewKeys() {
        linkUp();
        final PairedDataPlanes.Packet[] msg2 = {null};
        fx.net.loss = p -> {
            if (msg2[0] == null && p.phase() == FmpPrefix.PHASE_MSG2) {
                msg2[0] = p;
                return true;
            }
            return false;
        };
        // a sends 2500 frames a second: its count trigger starts a rekey after the 30 s minimum age.
        for (int step = 0; step < 400 && msg2[0] == null; step++) {
            runWithTraffic(100, 100, 250, 5);
        }
        assertTrue(msg2[0] != null, "b answered a's rekey msg1");
        final long heldAt = fx.net.now;
        while (fx.net.now - heldAt < 1_500 * MS) {
            runWithTraffic(100, 100, 250, 5);
        }
        final long responderCutoversBeforeMsg2 = b.count(LinkCounter.CUTOVERS);
        a.side.receive(msg2[0]);
        runWithTraffic(3_000, 100, 250, 5);
        assertEquals(0, a.side.unknownIndex + b.side.unknownIndex, "frames to an index not yet installed");
        assertInOrderWithoutGaps(a.side.datagrams, sentByB);
        assertInOrderWithoutGaps(b.side.datagrams, sentByA);
        assertEquals(0, responderCutoversBeforeMsg2, "the responder waited for the initiator");
        assertEquals(1, a.count(LinkCounter.CUTOVERS));
        assertEquals(1, b.count(LinkCounter.CUTOVERS));
        assertEquals(1, b.side.trialCutovers, "the initiator's first new-key frame cut the responder over");
        assertEquals(0, a.side.authFailures + b.side.authFailures);
        assertConsistent();
    }

    /**
     * A lost rekey msg2 (crypto-link.md §5.11, Q3): the reference's responder cuts over within a second and then
     * drops or answers the initiator's retransmitted msg1 as a duplicate, so the two ends drift apart until the
     * dead timers rebuild the link (this test asserted that before ADR 0065). Ours still holds the pending keys
     * when the first retransmission comes, one second later, and sends the same msg2 again: the rekey completes,
     * nothing is lost and the link is never rebuilt.
     */
    @Test
    void aLostRekeyMsg2IsSentAgainAndTheRekeyCompletes() {
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        b.conductor.addConfiguredPeer(a.peer, TRANSPORT, a.side.address, true);
        fx.net.deliverAll();
        fx.net.advance(MS);
        assertEquals(1, a.peers());
        final boolean[] dropped = {false};
        fx.net.loss = p -> {
            if (!dropped[0] && p.phase() == FmpPrefix.PHASE_MSG2) {
                dropped[0] = true;
                return true;
            }
            return false;
        };
        runWithTraffic(200_000, 1000, 1, 1);
        assertTrue(dropped[0], "a rekey msg2 was lost");
        assertEquals(1, a.count(LinkCounter.REKEY_MSG2_RESENT) + b.count(LinkCounter.REKEY_MSG2_RESENT),
                "the msg2 went again for the retransmission");
        assertEquals(0, a.count(LinkCounter.LINK_DEAD_REMOVALS) + b.count(LinkCounter.LINK_DEAD_REMOVALS));
        assertEquals(2, a.count(LinkCounter.LINKS_ESTABLISHED) + b.count(LinkCounter.LINKS_ESTABLISHED),
                "never rebuilt");
        assertTrue(a.count(LinkCounter.CUTOVERS) >= 1);
        assertEquals(a.count(LinkCounter.CUTOVERS), b.count(LinkCounter.CUTOVERS));
        assertInOrderWithoutGaps(b.side.datagrams, sentByA);
        assertInOrderWithoutGaps(a.side.datagrams, sentByB);
        assertEquals(0, a.side.unknownIndex + b.side.unknownIndex + a.side.authFailures + b.side.authFailures);
        assertConsistent();
    }
}
