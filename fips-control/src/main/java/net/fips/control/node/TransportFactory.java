package net.fips.control.node;

import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.dataplane.transport.Transport;

/**
 * One transport type as the node assembles it: opens the type's configured instances and runs what the type needs
 * beside its data-plane side (beacons, a Tor control-port monitor, BlueZ scanning). {@link NodeAssembly} calls
 * every factory of {@link TransportFactories#REGISTERED} in turn; the transport ids follow that order
 * (transports.md §1.4), each type's instances in config order. A new type is a new factory file plus one line
 * there (CONTRIBUTING.md, "Adding a transport").
 */
interface TransportFactory {
    /** @return the type name ({@code net.fips.dataplane.transport.TransportTypes}) */
    String type();

    /**
     * Opens (binds) this type's configured instances, before the identity is resolved: a bound address refuses the
     * start before any key file is written. On failure it closes what it opened itself; the caller closes the
     * other types'.
     *
     * @param cfg     the configuration
     * @param options the embedder's hooks
     * @return the opened instances (none when the type is not configured)
     * @throws NodeStartException naming the instance that failed
     */
    Opened open(FipsConfig cfg, NodeOptions options) throws NodeStartException;

    /**
     * One type's opened instances and what runs beside them, in the order {@link NodeAssembly} calls it: {@link
     * #identityKnown}, {@link #transports}, {@link #attach}, {@link #started}, and at the end {@link #close}.
     */
    interface Opened {
        /**
         * The identity is known (a type whose transports need the node's key opens them here; BLE does).
         *
         * @param identity the node's identity
         * @param clock    the node's nanosecond clock
         */
        default void identityKnown(final NodeIdentity identity, final LongSupplier clock) {
        }

        /** @return this type's transports, in config order; final once {@link #identityKnown} returned */
        List<Transport> transports();

        /**
         * The link layer exists (before the configured peers are dialled).
         *
         * @param firstId   the transport id of {@code transports().get(0)}
         * @param identity  the node's identity
         * @param conductor the link layer, for dials of peers found on the medium
         * @return what to run on each control-loop tick (control thread), or null for nothing
         */
        default LongConsumer attach(final int firstId, final NodeIdentity identity, final LinkConductor conductor) {
            return null;
        }

        /**
         * The control loop runs (before the control socket opens).
         *
         * @param firstId the transport id of {@code transports().get(0)}
         * @param options the embedder's hooks (the clock)
         * @throws NodeStartException when the type refuses to run on
         */
        default void started(final int firstId, final NodeOptions options) throws NodeStartException {
        }

        /**
         * @param index the transport's index within {@link #transports()}
         * @return the type's extra monitoring object for {@code show_transports} (Tor's {@code tor_monitoring}),
         *         or null
         */
        default JsonNode monitoring(final int index) {
            return null;
        }

        /** Stops what runs beside the transports (not the transports: the data plane closes those). */
        default void close() {
        }
    }

    /** A type's instances that need nothing beside their data-plane side. */
    record Plain(List<Transport> transports) implements Opened {
        /** Freezes the list. */
        public Plain {
            transports = List.copyOf(transports);
        }
    }
}
