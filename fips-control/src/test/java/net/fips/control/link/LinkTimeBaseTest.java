package net.fips.control.link;

import static net.fips.control.link.PairedDataPlanes.MS;
import static net.fips.control.link.PairedDataPlanes.TRANSPORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkFixture.Node;
import net.fips.dataplane.DataPlaneEvent;

/**
 * One time base per link: the frame timestamps the data plane writes and the session time the conductor computes
 * MMP RTT from must count from the same instant, even when the clock moves on between the conductor's promotion
 * and the data plane creating the link (handshake processing), and between a K-bit cutover in the data plane and
 * the conductor handling its event. On a network with a fixed one-way delay every RTT sample is then twice that
 * delay, and the SRTT settles on exactly that value. (The simulated processing time is real delay for a packet
 * that waits behind it, so a sample taken across it is larger; the SRTT has forgotten it after 100 s.)
 */
class LinkTimeBaseTest {
    private static final long ONE_WAY_MS = 20;
    private static final long TRUE_RTT_MICROS = 2 * ONE_WAY_MS * 1000;

    private final LinkFixture fx = new LinkFixture();
    private final Node a = fx.node("a", 21, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    private final Node b;

    LinkTimeBaseTest() {
        // Ticks half a second apart: the first side to tick after a rekey cuts over, the other by the K-bit trial.
        a.conductor.doWork(fx.net.now);
        fx.net.now += 500 * MS;
        b = fx.node("b", 22, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
    }

    private void network(final long addLinkDelayMs, final long cutoverEventDelayMs) {
        fx.net.latencyNanos = ONE_WAY_MS * MS;
        fx.net.addLinkDelayNanos = addLinkDelayMs * MS;
        fx.net.cutoverEventDelayNanos = cutoverEventDelayMs * MS;
    }

    /**
     * Runs in 1 ms steps for up to {@code totalMs} or until {@code stop} holds, with data both ways every 10 ms so
     * that after a rekey the first side to cut over sends new-K frames before the other side's tick.
     */
    private void runWithData(final long totalMs, final BooleanSupplier stop) {
        for (long ms = 0; ms < totalMs && !stop.getAsBoolean(); ms++) {
            if (ms % 10 == 0) {
                for (final Node n : new Node[] {a, b}) {
                    if (!n.side.links.isEmpty()) {
                        n.side.sendData(n.side.onlyLink().linkId, ms);
                    }
                }
            }
            fx.net.advance(MS);
        }
    }

    /** The conductor's session start for {@code other} and the data plane's are the same instant. */
    private static void assertOneTimeBase(final Node self, final Node other) {
        final PeerLink peer = self.conductor.peer(other.id.nodeAddr());
        assertEquals(self.side.onlyLink().keyEpochStart, peer.keyEpochStartNanos,
                self.side.name + ": control and data plane session starts");
    }

    @Test
    void srttIsTheTrueRoundTripWhenHandshakeProcessingTakesTime() {
        network(35, 0);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        fx.net.run(100_000, 1);
        assertEquals(1, a.peers());
        assertEquals(1, b.peers());
        assertEquals(TRUE_RTT_MICROS, a.peer(b).srttMicros(), "a's SRTT");
        assertEquals(TRUE_RTT_MICROS, b.peer(a).srttMicros(), "b's SRTT");
        assertOneTimeBase(a, b);
        assertOneTimeBase(b, a);
    }

    @Test
    void rekeyCutoversKeepBothSidesOnOneTimeBase() {
        network(35, 15);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        // The time trigger fires after 120 s ± 15 s; run well past the first rekey.
        runWithData(170_000, () -> false);
        assertTrue(a.count(LinkCounter.CUTOVERS) >= 1, "a cut over");
        assertEquals(a.count(LinkCounter.CUTOVERS), b.count(LinkCounter.CUTOVERS));
        assertTrue(a.side.trialCutovers + b.side.trialCutovers >= 1, "one side cut over by the K-bit trial: a="
                + a.side.trialCutovers + " b=" + b.side.trialCutovers + " cutovers=" + a.count(LinkCounter.CUTOVERS)
                + " a.k=" + a.side.onlyLink().k);
        assertEquals(TRUE_RTT_MICROS, a.peer(b).srttMicros(), "a's SRTT");
        assertEquals(TRUE_RTT_MICROS, b.peer(a).srttMicros(), "b's SRTT");
        assertOneTimeBase(a, b);
        assertOneTimeBase(b, a);
    }

    /**
     * The race a tick cutover can lose: the data plane cut over by the K-bit trial before our cutover command
     * reached it (so the command was a no-op there), and its CutOver event arrives after we cut over ourselves.
     * The data plane's instant is the one its frames count from, so we adopt it; an event about another session
     * (a stale one) changes nothing.
     */
    @Test
    void aCutOverEventForTheSessionWeAlreadyCutOverToAdoptsTheDataPlanesInstant() {
        network(0, 0);
        a.conductor.connect(b.peer, TRANSPORT, b.side.address);
        runWithData(170_000, () -> a.count(LinkCounter.CUTOVERS) >= 1 && b.count(LinkCounter.CUTOVERS) >= 1);
        final PeerLink peer = a.conductor.peer(b.id.nodeAddr());
        assertEquals(1, a.count(LinkCounter.CUTOVERS));
        final long dataPlaneInstant = peer.keyEpochStartNanos - 3 * MS;
        a.conductor.onEvent(new DataPlaneEvent.CutOver(peer.linkId, peer.ourIndex, dataPlaneInstant), fx.net.now);
        assertEquals(dataPlaneInstant, peer.keyEpochStartNanos, "adopted the data plane's instant");
        assertEquals(1, a.count(LinkCounter.CUTOVERS), "no second cutover");
        a.conductor.onEvent(new DataPlaneEvent.CutOver(peer.linkId, peer.previousOurIndex, fx.net.now), fx.net.now);
        assertEquals(dataPlaneInstant, peer.keyEpochStartNanos, "a stale event changes nothing");
        assertEquals(1, a.count(LinkCounter.CUTOVERS));
    }
}
