package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.control.link.LinkCounter;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.tun.StandInTcpStream;

/**
 * A measurement, not a check (runs only with {@code -Dfips.rekeyloss.run=true}): the training's two nodes and
 * full-rate TCP stream ({@link DaemonTraining}), with link rekeys as often as {@code fips.rekeyloss.link.secs}
 * allows (minimum key age and dampening; 0 keeps the reference's 30 s), for {@code fips.rekeyloss.secs} seconds;
 * prints each node's link rekeys and the data plane's drops by reason, so that loss around a link rekey is counted
 * per rekey (docs/benchmarks.md, "Rekey stall under 2 s link rekeys" and "Frames under new link keys held").
 */
@EnabledIfSystemProperty(named = "fips.rekeyloss.run", matches = "true")
class RekeyLossRun {
    private static final DataPlaneCounter[] SHOWN = {
        DataPlaneCounter.DROP_UNKNOWN_INDEX, DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW,
        DataPlaneCounter.DROP_HELD_FRAME_EXPIRED, DataPlaneCounter.DROP_AUTH_FAILED, DataPlaneCounter.DROP_REPLAY,
        DataPlaneCounter.DROP_NO_SESSION, DataPlaneCounter.DROP_WORKER_RING_FULL, DataPlaneCounter.DROP_TX_RING_FULL,
        DataPlaneCounter.DROP_POOL_EXHAUSTED, DataPlaneCounter.LINK_FRAMES_HELD, DataPlaneCounter.KBIT_CUTOVERS,
        DataPlaneCounter.FRAMES_IN, DataPlaneCounter.FRAMES_OUT,
    };

    @Test
    void streamUnderLinkRekeys() throws Exception {
        final long seconds = Long.getLong("fips.rekeyloss.secs", 20);
        final long linkSecs = Long.getLong("fips.rekeyloss.link.secs", 2);
        final int sessionSecs = Integer.getInteger("fips.rekeyloss.session.secs", DaemonTraining.REKEY_SECONDS);
        final UnaryOperator<NodeOptions> tune = linkSecs <= 0 ? UnaryOperator.identity()
                : o -> o.linkConfigTuner(c -> c.withRekeyTiming(TimeUnit.SECONDS.toNanos(linkSecs),
                        TimeUnit.SECONDS.toNanos(linkSecs), 0));
        System.setProperty(DaemonTraining.VERBOSE_PROPERTY, "true");
        final StandInTcpStream.Result r = DaemonTraining.run(TimeUnit.SECONDS.toNanos(seconds),
                TimeUnit.SECONDS.toNanos(seconds), sessionSecs, tune, (a, b) -> {
                    report("a", a);
                    report("b", b);
                });
        assertNotNull(r, "the nodes did not link");
        System.err.println("rekeyloss: link rekey min age " + linkSecs + " s, session after_secs " + sessionSecs
                + ", " + seconds + " s: " + r);
    }

    private static void report(final String name, final Node n) {
        final StringBuilder sb = new StringBuilder("rekeyloss: node ").append(name).append(':');
        for (final LinkCounter c : new LinkCounter[] {LinkCounter.REKEYS_INITIATED, LinkCounter.REKEYS_RESPONDED,
            LinkCounter.CUTOVERS, LinkCounter.REKEY_MSG1_DROPPED, LinkCounter.DECRYPT_FAILURE_REMOVALS,
            LinkCounter.LINK_DEAD_REMOVALS}) {
            sb.append(' ').append(c).append('=').append(n.linkSnapshot().counter(c));
        }
        for (final DataPlaneCounter c : SHOWN) {
            sb.append(' ').append(c).append('=').append(n.dataPlane().counter(c));
        }
        System.err.println(sb);
    }
}
