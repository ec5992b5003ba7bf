package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.deliver;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.seqOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkCounter;
import net.fips.control.node.NodeTestSupport.Collector;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.testing.FreePorts;

/**
 * Fast failover between real nodes over loopback UDP (issue 18 §2, ADR 0024): A reaches D over two transits, B and
 * C (A-B, A-C, B-D, C-D). A packet every 200 ms from A to D; the transit carrying them crashes (stops without a
 * word). A suspects the silent link within seconds (bound 8 s, for a loaded machine; 2.4-4 s measured) and takes it
 * out of its forwarding table while the 30 s dead timer still runs; D re-parents, the survivor's filter and a lookup
 * give A D's new coordinates, and traffic resumes: D's longest gap is printed and bounded (10 s; 3.0-3.8 s measured).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeFailoverTest {
    private static final String NODE = """
            dns:
              enabled: false
            """;
    private static final long INTERVAL_MS = 200;

    @TempDir
    Path dir;

    private RunningNodes nodes;

    @BeforeEach
    void setUp() {
        nodes = new RunningNodes(dir);
    }

    @AfterEach
    void closeAll() {
        nodes.close();
    }

    private Node start(final String yaml, final Collector sink) throws Exception {
        return nodes.start(yaml, sink);
    }

    @Test
    void aCrashedTransitIsLeftWithinSecondsNotAfterTheDeadTimer() throws Exception {
        // A has the smallest address, so the root is A whichever transit crashes: this measures a transit's loss
        // (the root's loss reconverges the whole tree, as after the dead timer).
        final List<NodeIdentity> ids = new ArrayList<>(List.of(NodeIdentity.generate(), NodeIdentity.generate(),
                NodeIdentity.generate(), NodeIdentity.generate()));
        ids.sort(Comparator.comparing(NodeIdentity::nodeAddr));
        final NodeIdentity idA = ids.get(0);
        final NodeIdentity idB = ids.get(1);
        final NodeIdentity idC = ids.get(2);
        final NodeIdentity idD = ids.get(3);
        final int pb = FreePorts.udp();
        final int pc = FreePorts.udp();
        final Collector atD = new Collector();
        final Collector none = new Collector();
        final Node b = start(yaml(idB, pb, dir.resolve("b.sock"), NODE), none);
        final Node c = start(yaml(idC, pc, dir.resolve("c.sock"), NODE), none);
        final Node a = start(yaml(idA, FreePorts.udp(), dir.resolve("a.sock"), NODE, new Peer(idB, "b", pb, true),
                new Peer(idC, "c", pc, true)), none);
        final Node d = start(yaml(idD, FreePorts.udp(), dir.resolve("d.sock"), NODE, new Peer(idB, "b", pb, true),
                new Peer(idC, "c", pc, true)), atD);
        until(Duration.ofSeconds(15), () -> linked(a, b) && linked(a, c) && linked(d, b) && linked(d, c),
                () -> "links up");
        until(Duration.ofSeconds(20),
                () -> nodes.all().stream().map(n -> n.meshSnapshot().root()).distinct().count() == 1, () -> "one tree");
        assertTrue(a.learnIdentity(idD.toPeer()));
        deliver(a, atD, NodeSessionTest.udpPacket(idA.nodeAddr(), idD.nodeAddr(), 0, 64), 0);

        // A packet every 200 ms; after 3 s the transit that carries them crashes; 12 s more.
        final long total = (3_000 + 12_000) / INTERVAL_MS;
        final long crashAt = 3_000 / INTERVAL_MS;
        Node transit = null;
        NodeAddr transitAddr = null;
        long crashNanos = 0;
        long suspectedAfterMs = -1;
        final long start = System.nanoTime();
        for (long seq = 1; seq <= total; seq++) {
            final long due = start + (seq - 1) * INTERVAL_MS * 1_000_000L;
            while (System.nanoTime() - due < 0) {
                LockSupport.parkNanos(due - System.nanoTime());
            }
            if (seq == crashAt) {
                transit = b.dataPlane().counter(DataPlaneCounter.FORWARDED)
                        >= c.dataPlane().counter(DataPlaneCounter.FORWARDED) ? b : c;
                transitAddr = transit == b ? idB.nodeAddr() : idC.nodeAddr();
                transit.closeSilently();
                nodes.forget(transit);
                crashNanos = System.nanoTime();
            }
            if (transit != null && suspectedAfterMs < 0 && a.linkSnapshot().counter(LinkCounter.LINKS_SUSPECTED) > 0) {
                suspectedAfterMs = (System.nanoTime() - crashNanos) / 1_000_000L;
            }
            a.dataPlane().sendIpv6(NodeSessionTest.udpPacket(idA.nodeAddr(), idD.nodeAddr(), seq, 64));
        }

        final long last = total;
        until(Duration.ofSeconds(5), () -> atD.packets.stream().anyMatch(p -> seqOf(p) == last),
                () -> "the last packet arrived: " + describe(a));
        final TreeSet<Long> got = new TreeSet<>();
        atD.packets.forEach(p -> got.add(seqOf(p)));
        long longestGap = 0;
        long run = 0;
        for (long seq = 1; seq <= total; seq++) {
            run = got.contains(seq) ? 0 : run + 1;
            longestGap = Math.max(longestGap, run);
        }
        System.out.println("failover: A suspected the crashed transit after " + suspectedAfterMs
                + " ms; D's longest gap " + longestGap * INTERVAL_MS + " ms (" + longestGap + " of " + total
                + " packets in a row)");
        assertTrue(suspectedAfterMs >= 0 && suspectedAfterMs <= 8_000, "A left the silent transit within seconds,"
                + " not after the 30 s dead timer: " + suspectedAfterMs + " ms; " + describe(a));
        // The target is 5 s (measured 3.0-3.8 s); the bound leaves room for a loaded machine, and without
        // fast failover nothing sent after the crash would arrive within this window.
        assertTrue(longestGap * INTERVAL_MS <= 10_000, "D's longest gap " + longestGap * INTERVAL_MS + " ms: "
                + describe(a));
        final NodeAddr gone = transitAddr;
        assertTrue(a.dataPlane().forwardingTable().peerIndex(gone) < 0, "no next hop over the suspect link");
        assertEquals(0, a.linkSnapshot().counter(LinkCounter.LINK_DEAD_REMOVALS), "the dead timer has not fired");
        assertEquals(2, a.linkSnapshot().peers().size(), "the suspect peer is still a peer");
    }
}
