package net.fips.control.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class StatsHistoryTest {
    private static final long S = StatsHistory.SAMPLE_NANOS;
    private static final double NaN = Double.NaN;
    private static final String A = "aa".repeat(16);
    private static final String B = "bb".repeat(16);

    /** Node sample at second t: mesh 10+t, bytes_in total 100*t, parent switches t/10. */
    private static NodeSample node(final long t) {
        return new NodeSample(10 + t, 2, 3, t / 10, 100 * t, 200 * t, t, 2 * t, NaN, NaN);
    }

    private static PeerSample peer(final String addr, final long t) {
        return new PeerSample(addr, "npub1" + addr.charAt(0), 40 + t, NaN, 50 * t, 75 * t, t, 2 * t,
                NodeSample.UNMEASURED);
    }

    @Test
    void fastRingKeepsOneSampleASecondOldestFirstAndPadsWithGaps() {
        final StatsHistory h = new StatsHistory();
        for (long t = 0; t < 10; t++) {
            assertTrue(h.record(t * S, node(t), List.of()));
        }
        final Series s = h.series(NodeMetric.MESH_SIZE, 5, Granularity.FAST);
        assertEquals("mesh_size", s.metric());
        assertEquals("nodes", s.unit());
        assertEquals(1, s.granularitySeconds());
        assertArrayEquals(new double[] {15, 16, 17, 18, 19}, s.values());
        // A window longer than the history is padded at the front.
        assertArrayEquals(new double[] {NaN, NaN, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
                h.series(NodeMetric.MESH_SIZE, 12, Granularity.FAST).values());
        assertEquals(0, h.series(NodeMetric.MESH_SIZE, 0, Granularity.FAST).values().length);
    }

    @Test
    void countersBecomePerSecondRatesAndTheFirstSampleIsAGap() {
        final StatsHistory h = new StatsHistory();
        for (long t = 0; t < 4; t++) {
            h.record(t * S, node(t), List.of());
        }
        assertArrayEquals(new double[] {NaN, 100, 100, 100}, h.series(NodeMetric.BYTES_IN, 4, Granularity.FAST)
                .values());
        assertArrayEquals(new double[] {NaN, 2, 2, 2}, h.series(NodeMetric.PACKETS_OUT, 4, Granularity.FAST)
                .values());
    }

    @Test
    void unmeasuredInputsAreGapsNotZeros() {
        final StatsHistory h = new StatsHistory();
        for (long t = 0; t < 3; t++) {
            h.record(t * S, NodeSample.NOTHING, List.of());
        }
        for (final NodeMetric m : NodeMetric.values()) {
            final Series s = h.series(m, 3, Granularity.FAST);
            assertEquals(3, s.gaps(), m.wireName());
            assertEquals(Arrays.asList(null, null, null), s.valuesOrNull());
        }
    }

    @Test
    void recordIsDrivenByTheCallersClockOnlyOncePerSecond() {
        final StatsHistory h = new StatsHistory();
        assertTrue(h.due(5));
        assertTrue(h.record(5, node(0), List.of()));
        assertFalse(h.due(5 + S - 1));
        assertFalse(h.record(5 + S - 1, node(1), List.of()));
        assertTrue(h.due(5 + S));
        assertTrue(h.record(5 + S + S / 2, node(1), List.of()));
        assertEquals(2, h.samples());
        // The next sample is due a second after the (late) one just taken, without a gap in between.
        assertFalse(h.due(5 + 2 * S));
        assertTrue(h.record(5 + 2 * S + S / 2, node(2), List.of()));
        assertEquals(3, h.samples());
        assertArrayEquals(new double[] {10, 11, 12}, h.series(NodeMetric.MESH_SIZE, 3, Granularity.FAST).values());
    }

    @Test
    void aStalledCallerLeavesGapsAndSpreadsTheCounterIncrease() {
        final StatsHistory h = new StatsHistory();
        h.record(0, node(0), List.of());
        h.record(S, node(1), List.of());
        // Three seconds late: two gap slots, then one sample whose rate covers 3 s (300 bytes / 3 s).
        h.record(4 * S, new NodeSample(99, 2, 3, 0, 400, 800, 4, 8, NaN, NaN), List.of());
        assertArrayEquals(new double[] {10, 11, NaN, NaN, 99}, h.series(NodeMetric.MESH_SIZE, 5, Granularity.FAST)
                .values());
        assertArrayEquals(new double[] {NaN, 100, NaN, NaN, 100}, h.series(NodeMetric.BYTES_IN, 5, Granularity.FAST)
                .values());
    }

    @Test
    void slowRingFoldsSixtySecondsByEachMetricsAggregation() {
        final StatsHistory h = new StatsHistory();
        for (long t = 0; t < 120; t++) {
            h.record(t * S, node(t), List.of());
        }
        final Series mesh = h.series(NodeMetric.MESH_SIZE, 180, Granularity.SLOW);
        assertEquals(60, mesh.granularitySeconds());
        // LAST: the last sample of each minute; three minutes asked, two completed.
        assertArrayEquals(new double[] {NaN, 69, 129}, mesh.values());
        // MEAN of rates: the first minute has 59 samples of 100 (the first is a gap), the second 60.
        assertArrayEquals(new double[] {NaN, 100, 100}, h.series(NodeMetric.BYTES_IN, 180, Granularity.SLOW).values());
        // SUM: 5 switches in the first minute (t/10 goes 0..5), 6 in the second (6..11).
        assertArrayEquals(new double[] {5, 6}, h.series(NodeMetric.PARENT_SWITCHES, 120, Granularity.SLOW).values());
        // 90 s at 1 min granularity is one sample, as the reference's integer division.
        assertEquals(1, h.series(NodeMetric.MESH_SIZE, 90, Granularity.SLOW).values().length);
    }

    @Test
    void ringsAreBoundedByTheirCapacity() {
        final StatsHistory h = new StatsHistory();
        final long n = StatsHistory.FAST_RING_SECONDS + 100;
        for (long t = 0; t < n; t++) {
            h.record(t * S, node(t), List.of());
        }
        final double[] all = h.series(NodeMetric.MESH_SIZE, 10 * 3600, Granularity.FAST).values();
        assertEquals(StatsHistory.FAST_RING_SECONDS, all.length);
        assertEquals(10 + 100, all[0]);
        assertEquals(10 + n - 1, all[all.length - 1]);
        assertEquals(StatsHistory.SLOW_RING_MINUTES,
                h.series(NodeMetric.MESH_SIZE, 48 * 3600, Granularity.SLOW).values().length);
    }

    @Test
    void peersShareTheNodeTimeAxisAndGetGapsWhileAbsent() {
        final StatsHistory h = new StatsHistory();
        h.record(0, node(0), List.of());
        h.record(S, node(1), List.of(peer(A, 1)));
        h.record(2 * S, node(2), List.of(peer(A, 2)));
        h.record(3 * S, node(3), List.of());
        h.record(4 * S, node(4), List.of(peer(A, 4)));
        h.record(5 * S, node(5), List.of(peer(A, 5)));
        assertArrayEquals(new double[] {NaN, 41, 42, NaN, 44, 45},
                h.peerSeries(A, PeerMetric.SRTT_MS, 6, Granularity.FAST).orElseThrow().values());
        // After an absence the counter has no baseline: a gap, not 100 bytes/s for two seconds in one.
        assertArrayEquals(new double[] {NaN, NaN, 50, NaN, NaN, 50},
                h.peerSeries(A, PeerMetric.BYTES_IN, 6, Granularity.FAST).orElseThrow().values());
        assertEquals(6, h.peerSeries(A, PeerMetric.ECN_CE, 6, Granularity.FAST).orElseThrow().gaps());
        assertTrue(h.peerSeries(B, PeerMetric.SRTT_MS, 6, Granularity.FAST).isEmpty());
        final TrackedPeer tp = h.trackedPeers().getFirst();
        assertEquals(A, tp.nodeAddr());
        assertTrue(tp.active());
        assertEquals(S, tp.firstSeenNanos());
        assertEquals(5 * S, tp.lastContactNanos());
    }

    @Test
    void aCounterThatGoesDownIsOneGap() {
        final StatsHistory h = new StatsHistory();
        h.record(0, node(0), List.of(peer(A, 10)));
        h.record(S, node(1), List.of(peer(A, 11)));
        h.record(2 * S, node(2), List.of(peer(A, 1)));
        h.record(3 * S, node(3), List.of(peer(A, 2)));
        assertArrayEquals(new double[] {NaN, 50, NaN, 50},
                h.peerSeries(A, PeerMetric.BYTES_IN, 4, Granularity.FAST).orElseThrow().values());
    }

    @Test
    void peersAbsentForTheRetentionTimeAreForgotten() {
        final StatsHistory h = new StatsHistory();
        h.record(0, node(0), List.of(peer(A, 0), peer(B, 0)));
        final long retention = StatsHistory.PEER_RETENTION_SECONDS;
        // A stall longer than the fast ring: gaps fill one ring's worth, not 86400 slots.
        h.record((retention - 1) * S, node(1), List.of(peer(B, 1)));
        assertTrue(h.tracks(A));
        h.record(retention * S, node(2), List.of(peer(B, 2)));
        assertFalse(h.tracks(A));
        assertTrue(h.tracks(B));
    }

    @Test
    void theTrackedPeerBoundEvictsTheLongestAbsentOrRefusesNewcomers() {
        final StatsHistory h = new StatsHistory(2);
        final String c = "cc".repeat(16);
        h.record(0, node(0), List.of(peer(A, 0)));
        h.record(S, node(1), List.of(peer(B, 1)));
        h.record(2 * S, node(2), List.of(peer(A, 2), peer(B, 2)));
        h.record(3 * S, node(3), List.of(peer(A, 3), peer(B, 3), peer(c, 3)));
        assertFalse(h.tracks(c));
        assertEquals(1, h.untrackedPeerSamples());
        h.record(4 * S, node(4), List.of(peer(B, 4)));
        h.record(5 * S, node(5), List.of(peer(B, 5), peer(c, 5)));
        assertFalse(h.tracks(A));
        assertTrue(h.tracks(c));
    }

    @Test
    void recentIsTheSparklineTail() {
        final StatsHistory h = new StatsHistory();
        assertEquals(0, h.recent(NodeMetric.PEER_COUNT, 30).length);
        for (long t = 0; t < 3; t++) {
            h.record(t * S, node(t), List.of());
        }
        assertArrayEquals(new double[] {10, 11, 12}, h.recent(NodeMetric.MESH_SIZE, 30));
        assertEquals(12, h.latest(NodeMetric.MESH_SIZE));
    }

    @Test
    void windowAndGranularityParseWithTheReferenceMessages() {
        assertEquals(600, Granularity.parseWindowSeconds("10m"));
        assertEquals(5, Granularity.parseWindowSeconds("5s"));
        assertEquals(7200, Granularity.parseWindowSeconds("2h"));
        assertEquals("empty duration", assertThrows(IllegalArgumentException.class,
                () -> Granularity.parseWindowSeconds("")).getMessage());
        assertEquals("invalid duration: xs", assertThrows(IllegalArgumentException.class,
                () -> Granularity.parseWindowSeconds("xs")).getMessage());
        assertEquals("invalid duration: 5", assertThrows(IllegalArgumentException.class,
                () -> Granularity.parseWindowSeconds("5")).getMessage());
        assertEquals("unknown duration unit: d (expected s, m, h)", assertThrows(IllegalArgumentException.class,
                () -> Granularity.parseWindowSeconds("5d")).getMessage());
        assertEquals(Granularity.SLOW, Granularity.parse("1m"));
        assertEquals("unknown granularity: 5s (expected 1s or 1m)", assertThrows(IllegalArgumentException.class,
                () -> Granularity.parse("5s")).getMessage());
    }
}
