package net.fips.control.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkFixture.Node;

/**
 * ECN congestion detection (routing-session.md §6.6): a link whose MMP loss reaches the threshold is flagged to the
 * data plane and cleared when it recovers; disabled ECN flags nothing; new kernel receive drops on any transport
 * flag every link for that sample, and each start of a dropping run is one kernel_drop_events event.
 */
class EcnCongestionTest {

    private final LinkFixture fx = new LinkFixture();

    private Node[] linked(final EcnCongestion ecn) {
        final Node a = fx.node("a", 1, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        final Node b = fx.node("b", 2, LinkConfig.defaults(), PeerFilter.ALLOW_ALL);
        a.conductor.setEcn(ecn);
        a.conductor.connect(b.peer, PairedDataPlanes.TRANSPORT, b.side.address);
        fx.net.deliverAll();
        assertEquals(1, a.peers());
        return new Node[] {a, b};
    }

    /** Both ways, 10 ms apart, for {@code ms}. */
    private void traffic(final Node a, final Node b, final long ms) {
        for (long t = 0; t < ms; t += 10) {
            a.side.sendData(a.side.onlyLink().linkId, t);
            b.side.sendData(b.side.onlyLink().linkId, t);
            fx.net.run(10, 1);
        }
    }

    /** Loses every 4th established frame a sends (25 % loss of a's traffic, as b's reports will say). */
    private void lossyFromA(final Node a) {
        final long[] n = {0};
        fx.net.loss = p -> p.from().equals(a.side.address) && p.phase() == 0 && n[0]++ % 4 == 0;
    }

    @Test
    void aLossyLinkIsFlaggedAndClearedWhenItRecovers() {
        final Node[] n = linked(new EcnCongestion(true, 0.05, 3.0, List.of()));
        final long link = n[0].side.onlyLink().linkId;
        traffic(n[0], n[1], 3_000);
        assertNotEquals(Boolean.TRUE, n[0].side.congested.get(link), "no loss, no congestion");
        lossyFromA(n[0]);
        traffic(n[0], n[1], 5_000);
        assertTrue(n[0].peer(n[1]).deliveryForward() < 0.95, "b reports the loss");
        assertEquals(Boolean.TRUE, n[0].side.congested.get(link));
        fx.net.loss = p -> false;
        traffic(n[0], n[1], 10_000);
        assertEquals(1.0, n[0].peer(n[1]).deliveryForward());
        assertEquals(Boolean.FALSE, n[0].side.congested.get(link), "cleared");
    }

    @Test
    void disabledEcnFlagsNothing() {
        final Node[] n = linked(new EcnCongestion(false, 0.05, 3.0, List.of()));
        lossyFromA(n[0]);
        traffic(n[0], n[1], 5_000);
        assertTrue(n[0].peer(n[1]).deliveryForward() < 0.95);
        assertNull(n[0].side.congested.get(n[0].side.onlyLink().linkId));
    }

    @Test
    void newKernelDropsFlagEveryLinkForOneSample() {
        final AtomicLong drops = new AtomicLong();
        final List<Supplier<OptionalLong>> counters = List.of(OptionalLong::empty,
                () -> OptionalLong.of(drops.get()));
        final EcnCongestion ecn = EcnCongestion.ofDropCounters(true, 0.05, 3.0, counters);
        final Node[] n = linked(ecn);
        final long link = n[0].side.onlyLink().linkId;
        fx.net.run(2_000, 100);
        assertNull(n[0].side.congested.get(link));
        drops.set(3);
        fx.net.run(1_000, 100);                        // one tick samples the growth
        assertEquals(Boolean.TRUE, n[0].side.congested.get(link));
        assertEquals(1, ecn.kernelDropEvents());
        drops.set(5);                                   // still growing: the same run
        fx.net.run(1_000, 100);
        assertEquals(1, ecn.kernelDropEvents());
        fx.net.run(1_000, 100);                        // no new drops
        assertEquals(Boolean.FALSE, n[0].side.congested.get(link));
        drops.set(6);
        fx.net.run(1_000, 100);
        assertEquals(2, ecn.kernelDropEvents(), "a new run");
    }
}
