package net.fips.control.metrics;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The node's in-memory history of {@link NodeMetric}s and, per peer, {@link PeerMetric}s: for every metric a ring
 * of {@value #FAST_RING_SECONDS} 1 s samples (the last hour) and one of {@value #SLOW_RING_MINUTES} 1 min samples
 * (the last day), each 1 min sample folding 60 fast slots with the metric's {@link Aggregation}. A peer is kept for
 * {@value #PEER_RETENTION_SECONDS} s after its last sample, and at most {@link #maxPeers()} peers are kept (the one
 * absent longest makes room for a new one; with every kept peer present, a new peer is not tracked). Lost on
 * restart, as in the reference.
 *
 * <p>Memory is fixed per series: two {@code double} arrays, {@value #FAST_RING_SECONDS} + {@value
 * #SLOW_RING_MINUTES} entries (about 40 KiB); a node keeps 10 series and 7 per tracked peer. A gap is NaN.
 *
 * <p>Time comes from the caller: {@link #record} takes the control clock in nanoseconds, and a sample is due
 * {@value #SAMPLE_NANOS} ns after the previous one ({@link #due}). When the caller was late by whole seconds, the
 * missed seconds become gaps and the counters' increase is spread over the seconds it covers.
 *
 * <p>Threading: one writer, the node's control thread ({@link #record}); queries may come from any thread and see
 * whole samples (the object's monitor guards both; a query copies at most {@value #FAST_RING_SECONDS} values).
 */
public final class StatsHistory {
    /** 1 s samples kept: one hour. */
    public static final int FAST_RING_SECONDS = 3600;
    /** 1 min samples kept: one day. */
    public static final int SLOW_RING_MINUTES = 1440;
    /** A peer absent this long is forgotten. */
    public static final long PEER_RETENTION_SECONDS = 86_400;
    /** Fast slots per slow slot. */
    public static final int DOWNSAMPLE_FACTOR = 60;
    /** Interval between samples, in the control clock's nanoseconds. */
    public static final long SAMPLE_NANOS = 1_000_000_000L;
    /** Default bound on tracked peers. */
    public static final int DEFAULT_MAX_PEERS = 256;

    private static final long RETENTION_NANOS = PEER_RETENTION_SECONDS * SAMPLE_NANOS;

    private final int maxPeers;
    private final EnumMap<NodeMetric, Ring> node = new EnumMap<>(NodeMetric.class);
    private final Map<String, PeerRings> peers = new LinkedHashMap<>();
    private long fastSlots;
    private long slowSlots;
    private long lastSampleNanos;
    private boolean started;
    private long untrackedPeerSamples;

    private static final class PeerRings {
        final String npub;
        final EnumMap<PeerMetric, Ring> rings = new EnumMap<>(PeerMetric.class);
        final long firstSeenNanos;
        long lastContactNanos;
        boolean active;

        PeerRings(final String npub, final long now) {
            this.npub = npub;
            this.firstSeenNanos = now;
            this.lastContactNanos = now;
            for (final PeerMetric m : PeerMetric.values()) {
                rings.put(m, new Ring(m.aggregation()));
            }
        }
    }

    /** A history with the {@linkplain #DEFAULT_MAX_PEERS default peer bound}. */
    public StatsHistory() {
        this(DEFAULT_MAX_PEERS);
    }

    /**
     * @param maxPeers most peers to keep series for (at least 1)
     */
    public StatsHistory(final int maxPeers) {
        if (maxPeers < 1) {
            throw new IllegalArgumentException("maxPeers < 1: " + maxPeers);
        }
        this.maxPeers = maxPeers;
        for (final NodeMetric m : NodeMetric.values()) {
            node.put(m, new Ring(m.aggregation()));
        }
    }

    /** @return the bound on tracked peers */
    public int maxPeers() {
        return maxPeers;
    }

    /**
     * @param nowNanos the control clock
     * @return whether a sample is due (the first one always is)
     */
    public synchronized boolean due(final long nowNanos) {
        return !started || nowNanos - lastSampleNanos >= SAMPLE_NANOS;
    }

    /**
     * Records one sample (control thread). Does nothing when no sample is {@linkplain #due due}.
     *
     * @param nowNanos the control clock
     * @param sample   node-level inputs
     * @param present  the peers present now (others tracked get a gap)
     * @return whether a sample was recorded
     */
    public synchronized boolean record(final long nowNanos, final NodeSample sample, final List<PeerSample> present) {
        long seconds = 1;
        if (started) {
            final long elapsed = nowNanos - lastSampleNanos;
            if (elapsed < SAMPLE_NANOS) {
                return false;
            }
            seconds = elapsed / SAMPLE_NANOS;
            // Follow the caller's phase (the node samples right after its tick, which drifts by the loop's
            // latency); whole seconds missed become gaps, and after a long stall the gaps fill one ring, no more.
            lastSampleNanos = nowNanos;
            for (long gap = Math.min(seconds - 1, FAST_RING_SECONDS); gap > 0; gap--) {
                writeGapSlot();
            }
        } else {
            started = true;
            lastSampleNanos = nowNanos;
        }

        for (final NodeMetric m : NodeMetric.values()) {
            final Ring r = node.get(m);
            r.putFast(fastSlots, m.isCounter() ? r.rate(sample.total(m), seconds) : sample.gauge(m));
        }

        final Set<String> seen = new HashSet<>();
        for (final PeerSample p : present) {
            if (!seen.add(p.nodeAddr())) {
                continue;
            }
            PeerRings pr = peers.get(p.nodeAddr());
            if (pr == null) {
                if (peers.size() >= maxPeers && !evictLongestAbsent()) {
                    untrackedPeerSamples++;
                    continue;
                }
                pr = new PeerRings(p.npub(), nowNanos);
                peers.put(p.nodeAddr(), pr);
            }
            pr.lastContactNanos = nowNanos;
            pr.active = true;
            for (final PeerMetric m : PeerMetric.values()) {
                final Ring r = pr.rings.get(m);
                r.putFast(fastSlots, m.isCounter() ? r.rate(p.total(m), seconds) : p.gauge(m));
            }
        }
        for (final Iterator<Map.Entry<String, PeerRings>> it = peers.entrySet().iterator(); it.hasNext(); ) {
            final Map.Entry<String, PeerRings> e = it.next();
            final PeerRings pr = e.getValue();
            if (seen.contains(e.getKey())) {
                continue;
            }
            if (nowNanos - pr.lastContactNanos >= RETENTION_NANOS) {
                it.remove();
                continue;
            }
            pr.active = false;
            absent(pr);
        }
        advance();
        return true;
    }

    private void writeGapSlot() {
        for (final Ring r : node.values()) {
            r.putFast(fastSlots, Double.NaN);
        }
        for (final PeerRings pr : peers.values()) {
            absent(pr);
        }
        advance();
    }

    /** A gap in every series of the peer; counters lose their baseline so the next rate is not inflated. */
    private void absent(final PeerRings pr) {
        for (final Ring r : pr.rings.values()) {
            r.putFast(fastSlots, Double.NaN);
            r.previousTotal = -1;
        }
    }

    private void advance() {
        fastSlots++;
        if (fastSlots % DOWNSAMPLE_FACTOR == 0) {
            for (final Ring r : node.values()) {
                r.flushSlow(slowSlots);
            }
            for (final PeerRings pr : peers.values()) {
                for (final Ring r : pr.rings.values()) {
                    r.flushSlow(slowSlots);
                }
            }
            slowSlots++;
        }
    }

    private boolean evictLongestAbsent() {
        String victim = null;
        long oldest = Long.MAX_VALUE;
        for (final Map.Entry<String, PeerRings> e : peers.entrySet()) {
            final PeerRings pr = e.getValue();
            if (!pr.active && (victim == null || pr.lastContactNanos - oldest < 0)) {
                victim = e.getKey();
                oldest = pr.lastContactNanos;
            }
        }
        if (victim == null) {
            return false;
        }
        peers.remove(victim);
        return true;
    }

    private int want(final long windowSeconds, final Granularity g) {
        return (int) Math.min(Math.max(0, windowSeconds) / g.seconds(), g.capacity());
    }

    private long written(final Granularity g) {
        return g == Granularity.FAST ? fastSlots : slowSlots;
    }

    /**
     * One node metric over a window: {@code window / granularity} samples (at most the ring's size), oldest
     * first, padded with gaps where the history does not reach back that far.
     *
     * @param metric        which
     * @param windowSeconds the window
     * @param granularity   which ring
     * @return the series
     */
    public synchronized Series series(final NodeMetric metric, final long windowSeconds,
            final Granularity granularity) {
        return new Series(metric.wireName(), metric.unit(), granularity.seconds(),
                node.get(metric).tail(granularity == Granularity.SLOW, written(granularity),
                        want(windowSeconds, granularity)));
    }

    /**
     * One peer metric over a window, as {@link #series(NodeMetric, long, Granularity)}.
     *
     * @param nodeAddr      the peer's node_addr hex
     * @param metric        which
     * @param windowSeconds the window
     * @param granularity   which ring
     * @return the series, or empty when the peer is not tracked
     */
    public synchronized Optional<Series> peerSeries(final String nodeAddr, final PeerMetric metric,
                                                    final long windowSeconds, final Granularity granularity) {
        final PeerRings pr = peers.get(nodeAddr);
        if (pr == null) {
            return Optional.empty();
        }
        return Optional.of(new Series(metric.wireName(), metric.unit(), granularity.seconds(),
                pr.rings.get(metric).tail(granularity == Granularity.SLOW, written(granularity),
                        want(windowSeconds, granularity))));
    }

    /**
     * The newest {@code n} 1 s samples of a node metric, oldest first, no more than have been taken (the
     * reference's {@code recent}, for {@code show_status.sparklines}).
     *
     * @param metric which
     * @param n      how many at most
     * @return the samples, NaN for gaps
     */
    public synchronized double[] recent(final NodeMetric metric, final int n) {
        final int k = (int) Math.min(Math.max(0, n), Math.min(fastSlots, FAST_RING_SECONDS));
        return node.get(metric).tail(false, fastSlots, k);
    }

    /**
     * @param metric which
     * @return the newest 1 s sample, NaN when none or a gap
     */
    public synchronized double latest(final NodeMetric metric) {
        return node.get(metric).newestFast(fastSlots);
    }

    /** @return the peers with series, in first-seen order */
    public synchronized List<TrackedPeer> trackedPeers() {
        final List<TrackedPeer> out = new ArrayList<>(peers.size());
        peers.forEach((addr, pr) -> out.add(new TrackedPeer(addr, pr.npub, pr.active, pr.firstSeenNanos,
                pr.lastContactNanos)));
        return out;
    }

    /**
     * @param nodeAddr node_addr hex
     * @return whether the peer has series
     */
    public synchronized boolean tracks(final String nodeAddr) {
        return peers.containsKey(nodeAddr);
    }

    /** @return 1 s slots written since the first sample (gaps included) */
    public synchronized long samples() {
        return fastSlots;
    }

    /** @return peer samples dropped because {@link #maxPeers()} peers were present at once */
    public synchronized long untrackedPeerSamples() {
        return untrackedPeerSamples;
    }

    /** @return the control clock of the latest sample, or empty before the first */
    public synchronized Optional<Long> lastSampleNanos() {
        return started ? Optional.of(lastSampleNanos) : Optional.empty();
    }
}
