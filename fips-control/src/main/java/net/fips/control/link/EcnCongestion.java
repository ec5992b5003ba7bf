package net.fips.control.link;

import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;

import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.transport.Transport;
import net.fips.control.mmp.DeliveryRatios;

/**
 * Local congestion detection for ECN (routing-session.md §6.6, the reference's {@code detect_congestion} and
 * {@code sample_transport_congestion}): once per tick, a transport whose kernel receive-drop counter grew since the
 * previous sample is "dropping" (each transition into dropping is a {@code kernel_drop_events} event); a link is
 * congested when {@code node.ecn.enabled} and its MMP loss (1 − forward delivery) reaches the loss threshold, its
 * ETX the ETX threshold, or any transport is dropping. A change of a link's state goes to the data plane
 * ({@code setLinkCongested}), which then sets CE on transit SessionDatagrams forwarded onto it. Before two
 * ReceiverReports a link has no loss or ETX figure and counts as uncongested on those grounds. Control thread.
 */
public final class EcnCongestion {
    private final boolean enabled;
    private final double lossThreshold;
    private final double etxThreshold;
    private final List<Supplier<OptionalLong>> dropCounters;
    private final long[] previousDrops;
    private final boolean[] dropping;
    private volatile long kernelDropEvents;

    /**
     * @param enabled       {@code node.ecn.enabled}
     * @param lossThreshold {@code node.ecn.loss_threshold}
     * @param etxThreshold  {@code node.ecn.etx_threshold}
     * @param transports    the transports whose kernel drops are sampled
     */
    public EcnCongestion(final boolean enabled, final double lossThreshold, final double etxThreshold,
                         final List<? extends Transport> transports) {
        this(enabled, lossThreshold, etxThreshold, transports.stream()
                .<Supplier<OptionalLong>>map(t -> t::kernelDrops).toList(), 0);
    }

    /**
     * As the constructor, with the kernel drop counters given directly.
     *
     * @param dropCounters each transport's cumulative kernel receive drops (empty when it has no such counter)
     */
    public static EcnCongestion ofDropCounters(final boolean enabled, final double lossThreshold,
                                               final double etxThreshold,
                                               final List<Supplier<OptionalLong>> dropCounters) {
        return new EcnCongestion(enabled, lossThreshold, etxThreshold, dropCounters, 0);
    }

    private EcnCongestion(final boolean enabled, final double lossThreshold, final double etxThreshold,
                          final List<Supplier<OptionalLong>> dropCounters, final int tag) {
        this.enabled = enabled;
        this.lossThreshold = lossThreshold;
        this.etxThreshold = etxThreshold;
        this.dropCounters = List.copyOf(dropCounters);
        this.previousDrops = new long[this.dropCounters.size()];
        this.dropping = new boolean[this.dropCounters.size()];
    }

    /** Samples the transports and updates every link's flag; returns the number of flags changed. */
    int update(final Collection<PeerLink> peers, final DataPlaneCommands dataPlane) {
        final boolean anyDropping = sampleTransports();
        int changed = 0;
        for (final PeerLink peer : peers) {
            final boolean congested = enabled && (anyDropping || congested(peer.mmp.delivery));
            if (congested != peer.ecnCongested) {
                peer.ecnCongested = congested;
                dataPlane.setLinkCongested(peer.linkId, congested);
                changed++;
            }
        }
        return changed;
    }

    private boolean congested(final DeliveryRatios d) {
        final Double forward = d.forward();
        final Double etx = d.etx();
        return forward != null && 1.0 - forward >= lossThreshold || etx != null && etx >= etxThreshold;
    }

    /** @return whether any transport's kernel drops grew since the previous sample */
    private boolean sampleTransports() {
        boolean any = false;
        for (int i = 0; i < previousDrops.length; i++) {
            final OptionalLong drops = dropCounters.get(i).get();
            if (drops.isEmpty()) {
                continue;
            }
            final long now = drops.getAsLong();
            final boolean grew = now > previousDrops[i];
            if (grew && !dropping[i]) {
                kernelDropEvents++;
            }
            dropping[i] = grew;
            previousDrops[i] = now;
            any |= grew;
        }
        return any;
    }

    /** @return transitions of a transport into dropping (the reference's {@code kernel_drop_events}) */
    public long kernelDropEvents() {
        return kernelDropEvents;
    }
}
