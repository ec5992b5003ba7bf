package net.fips.control.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportCounters;

/**
 * Feeds a {@link StatsHistory} from a node's live sources, once per second of the control clock. Called on the
 * node's control thread after each tick of the link layer ({@link #maybeSample}), when the link snapshot is fresh;
 * it reads only published snapshots and counters. With {@code node.tick_interval_secs} above 1 the seconds between
 * ticks are gaps.
 *
 * <p>Sources (see docs/metrics.md):
 * <ul>
 *   <li>{@code mesh_size}, {@code tree_depth}, {@code parent_switches}: the routing layers' {@link MeshSnapshot}
 *       (mesh size is a gap while no estimate exists);</li>
 *   <li>{@code peer_count}: authenticated peers in the link layer's {@link LinkSnapshot};</li>
 *   <li>{@code bytes_in/out}, {@code packets_in/out}: every UDP datagram the node's transports received and sent
 *       (the reference counts forwarding-layer datagrams instead; our data plane does not count their bytes);</li>
 *   <li>{@code loss_rate}: a gap, MMP loss is not measured yet;</li>
 *   <li>{@code active_sessions}: whatever {@link #activeSessions(LongSupplier)} supplies, a gap until the session
 *       layer supplies it;</li>
 *   <li>per peer: MMP SRTT, loss (1 − forward delivery from the peer's ReceiverReports, a gap before two) and the
 *       link's frame and byte totals from the {@link LinkSnapshot}; ECN CE: CE-marked frames our data plane received
 *       on the link (its MMP receiver's total; a gap before the link's second frame).</li>
 * </ul>
 */
public final class StatsSampler {
    private final StatsHistory history;
    private final Supplier<LinkSnapshot> links;
    private final Supplier<MeshSnapshot> mesh;
    private final List<? extends Transport> transports;
    private volatile LongSupplier activeSessions;

    /**
     * @param history    where samples go
     * @param links      the link layer's latest snapshot
     * @param mesh       the routing layers' latest snapshot
     * @param transports the node's transports
     */
    public StatsSampler(final StatsHistory history, final Supplier<LinkSnapshot> links,
                        final Supplier<MeshSnapshot> mesh, final List<? extends Transport> transports) {
        this.history = Objects.requireNonNull(history, "history");
        this.links = Objects.requireNonNull(links, "links");
        this.mesh = Objects.requireNonNull(mesh, "mesh");
        this.transports = List.copyOf(transports);
    }

    /** @return the history this sampler feeds */
    public StatsHistory history() {
        return history;
    }

    /**
     * Sets where {@code active_sessions} comes from. The supplier is called on the control thread once per
     * sample; a negative value is a gap. Until one is set (or after {@code null}) every sample is a gap.
     *
     * @param source established-session count, or null for "not measured"
     */
    public void activeSessions(final LongSupplier source) {
        this.activeSessions = source;
    }

    /**
     * Takes a sample when one is due (control thread).
     *
     * @param nowNanos the control clock
     * @return whether a sample was taken
     */
    public boolean maybeSample(final long nowNanos) {
        if (!history.due(nowNanos)) {
            return false;
        }
        final LinkSnapshot ls = links.get();
        final MeshSnapshot ms = mesh.get();
        long pIn = 0;
        long bIn = 0;
        long pOut = 0;
        long bOut = 0;
        for (final Transport t : transports) {
            final Map<String, Long> c = t.stats();
            pIn += Math.max(0, TransportCounters.packetsRecv(c));
            bIn += Math.max(0, TransportCounters.bytesRecv(c));
            pOut += Math.max(0, TransportCounters.packetsSent(c));
            bOut += Math.max(0, TransportCounters.bytesSent(c));
        }
        final LongSupplier sessions = activeSessions;
        final long sessionCount = sessions == null ? -1 : sessions.getAsLong();
        final NodeSample node = new NodeSample(
                ms == null || ms.meshSize() == null ? Double.NaN : ms.meshSize(),
                ms == null ? Double.NaN : ms.depth(),
                ls.peers().size(),
                ms == null ? NodeSample.UNMEASURED : ms.parentSwitches(),
                bIn, bOut, pIn, pOut,
                Double.NaN,
                sessionCount < 0 ? Double.NaN : sessionCount);
        final List<PeerSample> peers = new ArrayList<>(ls.peers().size());
        for (final PeerSnapshot p : ls.peers()) {
            peers.add(new PeerSample(p.nodeAddr(), p.npub(), p.srttMicros() < 0 ? Double.NaN : p.srttMicros() / 1000.0,
                    p.deliveryForward() == null ? Double.NaN : 1.0 - p.deliveryForward(), p.bytesIn(), p.bytesOut(),
                    p.packetsIn(), p.packetsOut(),
                    p.receiver() == null ? NodeSample.UNMEASURED : p.receiver().ecnCeCount()));
        }
        return history.record(nowNanos, node, peers);
    }
}
