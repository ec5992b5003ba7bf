package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkFixture.Node;
import net.fips.control.identity.TestIdentities;
import net.fips.dataplane.wire.FmpPrefix;

/**
 * The operator's log lines of the link layer, on the fixture's virtual clock: link up/down with the reason, rekey,
 * restart, and a configured peer that keeps failing logged at WARN on the 1st, 2nd, 4th, ... failure only.
 */
class LinkLogTest {
    private final LinkFixture fx = new LinkFixture();
    private LogCapture log;

    @BeforeEach
    void attach() {
        log = LogCapture.attach("net.fips.control.link");
    }

    @AfterEach
    void detach() {
        log.close();
    }

    private List<String> lines(final String level, final String part) {
        return log.lines(level, part);
    }

    private Node[] pair() {
        return new Node[] {fx.node("a", 1, LinkConfig.defaults(), PeerFilter.ALLOW_ALL),
            fx.node("b", 2, LinkConfig.defaults(), PeerFilter.ALLOW_ALL)};
    }

    @Test
    void anUnreachableConfiguredPeerIsLoggedAtGrowingIntervalsWithACount() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        fx.net.loss = p -> true;   // b is unreachable
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.run(3 * 3600_000L, 1000);
        final long attempts = a.count(LinkCounter.RETRIES_STARTED) + 1;
        final List<String> warns = lines("WARNING", "Peer " + b.peer.shortNpub());
        assertTrue(attempts >= 20, "enough attempts to show the throttle: " + attempts);
        assertEquals("Peer " + b.peer.shortNpub() + " at " + b.side.address
                + ": cannot connect (no handshake answer within 30 s); retrying in 10 s", warns.get(0));
        // One line per power of two of failures: 1, 2, 4, 8, ...
        final Pattern count = Pattern.compile("after (\\d+) attempts");
        long expected = 2;
        for (final String w : warns.subList(1, warns.size())) {
            final Matcher m = count.matcher(w);
            assertTrue(m.find(), w);
            assertEquals(expected, Long.parseLong(m.group(1)), w);
            assertTrue(w.contains("still cannot connect") && w.contains("next report after " + 2 * expected), w);
            expected *= 2;
        }
        final long failures = a.snap().retries().get(0).retryCount();
        assertEquals(64 - Long.numberOfLeadingZeros(failures), warns.size(), "floor(log2 failures) + 1 lines for "
                + failures + " failures: " + warns);
        assertTrue(warns.size() < attempts / 2, "far fewer lines than attempts");

        // b comes back: the link-up line says how many attempts failed.
        fx.net.loss = p -> false;
        fx.net.run(400_000, 1000);
        assertEquals(1, a.peers());
        final List<String> up = lines("INFO", "Link up: peer " + b.peer.shortNpub());
        assertEquals(1, up.size(), up.toString());
        assertTrue(up.get(0).matches(".*\\(outbound\\), link \\d+ after \\d+ failed attempts"), up.get(0));
    }

    @Test
    void aDialWithAWrongNpubIsSaidAtWarnOnBothNodesWithAHint() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        // a has b's address but somebody else's npub: b cannot decrypt a's msg1 and drops it.
        final String wrong = TestIdentities.seeded(77).toPeer().npub();
        a.conductor.addConfiguredPeer(TestIdentities.seeded(77).toPeer(), TRANSPORT, b.side.address, true);
        fx.net.run(6_000, 1000);
        assertEquals(List.of(), lines("WARNING", "No answer"), "msg1 at 0, 1 and 3 s: not yet");
        fx.net.run(2_000, 1000);
        assertEquals(List.of("No answer to 3 handshakes from " + wrong + " at " + b.side.address + " in 7 s: check the"
                + " npub and that the peer runs (a node drops a handshake that is not for its key without a reply)"),
                lines("WARNING", "No answer"));
        assertEquals(List.of("Dropped a handshake from " + a.side.address + " that is not for this node's key ("
                + b.peer.npub() + "): a peer there may have a wrong npub configured for this node (one line per"
                + " address per minute)"), lines("WARNING", "Dropped a handshake"), "four msg1s, one line");

        // Ten minutes of retries: the early line was for the first dial only (the retry lines take over), and b
        // says it once a minute at most while a's redials keep coming.
        fx.net.run(600_000, 1000);
        assertEquals(1, lines("WARNING", "No answer").size());
        assertTrue(lines("WARNING", "Peer " + TestIdentities.seeded(77).toPeer().shortNpub()).size() >= 3,
                "the retry lines go on");
        final int dropped = lines("WARNING", "Dropped a handshake").size();
        assertTrue(dropped >= 2 && dropped <= 11, "at most one a minute: " + dropped);
        assertTrue(b.count(LinkCounter.HANDSHAKE_CRYPTO_FAILED) > 2L * dropped, "fewer lines than drops");
        assertEquals(0, a.peers() + b.peers());
    }

    @Test
    void aMsg1ThatIsAnsweredLateIsNotSaid() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        fx.net.loss = p -> fx.net.now < 1_002 * PairedDataPlanes.SECOND;   // msg1 at 0 and 1 s are lost
        a.conductor.addConfiguredPeer(b.peer, TRANSPORT, b.side.address, true);
        fx.net.run(10_000, 1000);
        assertEquals(1, a.peers());
        assertEquals(List.of(), lines("WARNING", ""), "a slow answer is no problem");
    }

    /**
     * A crossing whose one dial lost its first msg1: the other dial makes the link and the lost one stays pending,
     * its retransmissions answered as duplicates (silently by a peer that was the initiator) until it times out.
     * The peer is linked all along, so nothing about that dial is said at WARN ("check the npub", "cannot connect").
     */
    @Test
    void aCrossingsLeftoverDialToALinkedPeerIsNotSaid() {
        // Either node's msg1 lost: one of the two runs is the smaller node's dial left pending, one the larger's.
        for (final boolean xLosesItsMsg1 : new boolean[] {true, false}) {
            log.close();
            log = LogCapture.attach("net.fips.control.link");
            final LinkFixture f = new LinkFixture();
            final Node x = f.node("x", 1, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
            final Node y = f.node("y", 2, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
            final Node loser = xLosesItsMsg1 ? x : y;
            final Node other = loser == x ? y : x;
            final boolean[] dropped = {false};
            f.net.loss = p -> {
                if (!dropped[0] && p.from().equals(loser.side.address) && p.phase() == FmpPrefix.PHASE_MSG1) {
                    dropped[0] = true;
                    return true;
                }
                return false;
            };
            other.conductor.addConfiguredPeer(loser.peer, TRANSPORT, loser.side.address, true);
            loser.conductor.addConfiguredPeer(other.peer, TRANSPORT, other.side.address, true);
            f.net.deliverAll();
            assertEquals(1, loser.snap().pendingOutbound(), "the lost dial is pending beside the link");
            f.net.run(60_000, 1000);
            assertEquals(0, loser.snap().pendingOutbound(), "it timed out");
            assertEquals(1, x.peers());
            assertEquals(1, y.peers());
            assertEquals(List.of(), lines("WARNING", ""), "the peer was linked all along");
        }
    }

    @Test
    void linkUpAndDownCarryTheDirectionAndTheReason() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(List.of("Link up: peer " + b.peer.shortNpub() + " at " + b.side.address + " (outbound), link 1"),
                lines("INFO", "Link up: peer " + b.peer.shortNpub()));
        assertEquals(1, lines("INFO", "Link up: peer " + a.peer.shortNpub() + " at ").size(), "b's inbound");
        fx.net.run(5_000, 1000);
        fx.net.loss = p -> true;
        fx.net.run(40_000, 1000);
        final List<String> down = lines("INFO", "Link down: peer " + b.peer.shortNpub());
        assertEquals(1, down.size(), down.toString());
        assertTrue(down.get(0).contains("(link dead: nothing heard for 30 s), link 1 was up "), down.get(0));
    }

    @Test
    void aPeerRestartIsLoggedWithTheLinkChange() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        fx.net.run(3_000, 1000);
        final Node b2 = fx.restart(b, 99, LinkConfig.defaults());
        b2.conductor.connect(a.peer, TRANSPORT, a.side.address);
        fx.net.deliverAll();
        assertEquals(List.of("Peer restart detected (epoch changed): " + b.peer.shortNpub()),
                lines("INFO", "Peer restart detected"));
        final List<String> down = lines("INFO", "Link down: peer " + b.peer.shortNpub());
        assertEquals(1, down.size());
        assertTrue(down.get(0).contains("(peer restarted)"), down.get(0));
        assertEquals(2, lines("INFO", "Link up: peer " + b.peer.shortNpub()).size(), "the old and the new link");
    }

    @Test
    void everyRekeyCutoverIsOneInfoLine() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        fx.net.run(400_000, 1000);
        final long cutovers = a.count(LinkCounter.CUTOVERS);
        assertTrue(cutovers >= 2, "default rekey every ~120 s: " + cutovers);
        final List<String> rekeys = lines("INFO", "Link rekeyed: peer " + b.peer.shortNpub());
        assertEquals(cutovers, rekeys.size(), rekeys.toString());
        assertTrue(rekeys.get(0).matches("Link rekeyed: peer \\S+, link 1, key epoch [01] \\(rekey 1\\)"),
                rekeys.get(0));
    }

    @Test
    void anOperatorDisconnectIsTheReasonAndShutdownStaysQuiet() {
        final Node[] n = pair();
        final Node a = n[0];
        final Node b = n[1];
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        a.conductor.disconnect(b.peer);
        fx.net.deliverAll();
        assertTrue(lines("INFO", "Link down: peer " + b.peer.shortNpub()).get(0).contains("(operator disconnect)"));
        assertTrue(lines("INFO", "Link down: peer " + a.peer.shortNpub()).get(0)
                .contains("(peer sent Disconnect ("), "b's side names the peer's Disconnect");
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.deliverAll();
        final int before = lines("INFO", "Link down: peer " + b.peer.shortNpub()).size();
        a.conductor.shutdown();
        assertEquals(before, lines("INFO", "Link down: peer " + b.peer.shortNpub()).size(),
                "shutdown removals are DEBUG on the stopping node");
    }
}
