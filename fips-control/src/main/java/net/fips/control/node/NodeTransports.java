package net.fips.control.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.control.nat.NatAdopter;
import net.fips.dataplane.transport.Transport;

/**
 * Every transport of a node, by transport id, beside the {@link TransportFactory.Opened} groups that opened them:
 * the ids are the groups' transports concatenated in factory order, fixed once {@link #identityKnown} returned.
 */
final class NodeTransports {
    private final List<TransportFactory.Opened> groups;
    private final int[] firstIds;
    private List<Transport> all = List.of();

    private NodeTransports(final List<TransportFactory.Opened> groups) {
        this.groups = List.copyOf(groups);
        this.firstIds = new int[groups.size()];
    }

    /**
     * Runs every factory's {@link TransportFactory#open}; a failure closes what the earlier ones opened.
     *
     * @param factories the factories, in transport id order
     * @param cfg       the configuration
     * @param options   the embedder's hooks
     * @return the opened groups
     * @throws NodeStartException from the factory that failed
     */
    static NodeTransports open(final List<TransportFactory> factories, final FipsConfig cfg,
                               final NodeOptions options) throws NodeStartException {
        final List<TransportFactory.Opened> opened = new ArrayList<>();
        try {
            for (final TransportFactory f : factories) {
                opened.add(f.open(cfg, options));
            }
        } catch (final NodeStartException | RuntimeException e) {
            new NodeTransports(opened).closeAll();
            throw e;
        }
        return new NodeTransports(opened);
    }

    /** Tells every group the identity, then fixes the transport ids. */
    void identityKnown(final NodeIdentity identity, final LongSupplier clock) {
        for (final TransportFactory.Opened g : groups) {
            g.identityKnown(identity, clock);
        }
        final List<Transport> out = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            firstIds[i] = out.size();
            out.addAll(groups.get(i).transports());
        }
        all = List.copyOf(out);
    }

    /** @return every transport, by transport id (empty before {@link #identityKnown}) */
    List<Transport> all() {
        return all;
    }

    /** @return the node's NAT adoption slots as a {@link NatAdopter}, when they were opened */
    Optional<NatAdopter> natAdopter() {
        for (final TransportFactory.Opened g : groups) {
            if (g instanceof NatAdoptionFactory.Slots s) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** @return the groups' control-loop tick hooks, in factory order */
    List<LongConsumer> attach(final NodeIdentity identity, final LinkConductor conductor) {
        final List<LongConsumer> ticks = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            final LongConsumer tick = groups.get(i).attach(firstIds[i], identity, conductor);
            if (tick != null) {
                ticks.add(tick);
            }
        }
        return ticks;
    }

    /** Runs every group's {@link TransportFactory.Opened#started}. */
    void started(final NodeOptions options) throws NodeStartException {
        for (int i = 0; i < groups.size(); i++) {
            groups.get(i).started(firstIds[i], options);
        }
    }

    /** @return the extra monitoring object of transport {@code id} for {@code show_transports}, or null */
    JsonNode monitoring(final int id) {
        for (int i = groups.size() - 1; i >= 0; i--) {
            if (id >= firstIds[i]) {
                final int index = id - firstIds[i];
                return index < groups.get(i).transports().size() ? groups.get(i).monitoring(index) : null;
            }
        }
        return null;
    }

    /** Stops what runs beside the transports; the data plane closes the transports. */
    void close() {
        groups.forEach(TransportFactory.Opened::close);
    }

    /** Closes the transports too, for a start that fails before the data plane owns them. */
    void closeAll() {
        close();
        for (final TransportFactory.Opened g : groups) {
            g.transports().forEach(Transport::close);
        }
    }
}
