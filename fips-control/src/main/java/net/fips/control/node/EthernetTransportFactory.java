package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

import net.fips.control.config.EthernetConfig;
import net.fips.control.config.FipsConfig;
import net.fips.control.ethernet.DiscoveredPeer;
import net.fips.control.ethernet.EthernetBeacons;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.dataplane.ethernet.DiscoveredBeacon;
import net.fips.dataplane.ethernet.EthernetTransport;
import net.fips.dataplane.ethernet.EthernetTransportConfig;
import net.fips.dataplane.ethernet.EthernetTransportException;
import net.fips.dataplane.ethernet.MacAddress;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;

/**
 * {@code transports.ethernet}: one {@link EthernetTransport} per instance (an interface that does not exist yet is
 * waited for), and the instances' beacons and discovery on the control thread's tick (transports.md §1.6, §4.4).
 */
final class EthernetTransportFactory implements TransportFactory {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());

    @Override
    public String type() {
        return TransportTypes.ETHERNET;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final EthernetConfig e : cfg.ethernet()) {
            final String where = "transports.ethernet" + e.name().map(n -> "." + n).orElse("") + " ("
                    + e.interfaceName() + ")";
            try {
                // An interface that is not there yet (a USB adapter, a VLAN made later) is waited for, not an error.
                final EthernetTransport t = EthernetTransport.openOrAwait(EthernetTransportConfig.of(e.interfaceName())
                        .withEtherType(e.etherType()).withMtu(e.mtu().orElse(0))
                        .withBuffers(e.recvBufSize(), e.sendBufSize()).withDiscovery(e.listen())
                        .withRole(e.name().orElse(null), e.autoConnect(), e.acceptConnections()));
                out.add(t);
                if (t.awaitingInterface()) {
                    LOG.log(Level.WARNING, "{0}: no interface {1} in this network namespace yet; the transport"
                            + " opens it when it appears (tried about once a second; mtu {2} until then)", where,
                            e.interfaceName(), String.valueOf(t.mtu()));
                }
            } catch (final EthernetTransportException | RuntimeException x) {
                out.forEach(Transport::close);
                throw new NodeStartException("cannot open Ethernet transport " + where + ": " + x.getMessage(),
                        x instanceof EthernetTransportException t
                                && t.reason() == EthernetTransportException.Reason.INVALID_CONFIG, x);
            }
        }
        return new Instances(cfg.ethernet(), out);
    }

    /** The opened instances, beside their configs (same order). */
    private record Instances(List<EthernetConfig> configs, List<Transport> transports) implements Opened {
        Instances {
            configs = List.copyOf(configs);
            transports = List.copyOf(transports);
        }

        /**
         * Each instance announces our key when configured to, and with {@code auto_connect} the peers its beacons
         * found are dialled (at most {@value MediumDiscovery#DIALS_PER_TICK} per instance and tick, every medium's
         * budget; the conductor ignores peers already linked or being dialled, and the ACL applies as to any dial).
         */
        @Override
        public LongConsumer attach(final int firstId, final NodeIdentity identity, final LinkConductor conductor) {
            final List<EthernetBeacons> beacons = new ArrayList<>();
            for (int i = 0; i < transports.size(); i++) {
                final EthernetTransport et = (EthernetTransport) transports.get(i);
                et.announceAs(identity.publicKey());
                beacons.add(new EthernetBeacons(configs.get(i), new EthernetBeacons.Medium() {
                    @Override
                    public int sendBeacon() {
                        return et.sendBeacon();
                    }

                    @Override
                    public List<DiscoveredBeacon> drainBeacons() {
                        return et.drainBeacons();
                    }
                }, identity.publicKey()));
            }
            return now -> tick(firstId, beacons, conductor, now);
        }

        private static void tick(final int firstId, final List<EthernetBeacons> beacons,
                                 final LinkConductor conductor, final long now) {
            for (int i = 0; i < beacons.size(); i++) {
                int dials = 0;
                for (final DiscoveredPeer p : beacons.get(i).tick(now)) {
                    if (dials++ >= MediumDiscovery.DIALS_PER_TICK) {
                        break;
                    }
                    final LinkConductor.ConnectResult r = conductor.connect(p.identity(), firstId + i,
                            TransportAddr.ofMac(MacAddress.toBytes(p.address().mac())));
                    LOG.log(r == LinkConductor.ConnectResult.STARTED ? Level.INFO : Level.DEBUG,
                            "ethernet: beacon from {0} at {1}: {2}", p.identity().shortNpub(), p.address(), r);
                }
            }
        }
    }
}
