package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import net.fips.control.ble.BleAvailability;
import net.fips.control.ble.BleScanLoop;
import net.fips.control.ble.BlueZ;
import net.fips.control.ble.BlueZException;
import net.fips.control.ble.DbusBlueZ;
import net.fips.control.ble.ProbeScheduler;
import net.fips.control.config.BleConfig;
import net.fips.control.config.FipsConfig;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.NodeAddrs;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.ble.BleTransport;
import net.fips.dataplane.ble.L2capFamily;
import net.fips.dataplane.ble.PeerKeys;
import net.fips.dataplane.ble.PubkeyExchange;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.wire.NodeAddr;

/**
 * {@code transports.ble}: each instance is checked once before the identity is resolved (kernel L2CAP support,
 * then the BlueZ adapter); one that fails is skipped with one line naming the reason and the node runs on without
 * it (transports.md §1.4). The usable ones open once the identity is known, each with its BlueZ side (advertising,
 * scanning, probing) on a thread of its own.
 */
final class BleTransportFactory implements TransportFactory {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());

    @Override
    public String type() {
        return TransportTypes.BLE;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) {
        final List<Ready> ready = new ArrayList<>();
        for (final BleConfig b : cfg.ble()) {
            final BleAvailability.Result r = BleAvailability.check(b, options.l2capProbe(), DbusBlueZ::systemBus);
            if (r.usable()) {
                options.bleOutcome(b.displayName() + ": adapter " + r.adapter().name() + " " + r.adapter().address());
                ready.add(new Ready(b, r.adapter()));
            } else {
                options.bleOutcome(b.displayName() + ": " + r.reason());
                LOG.log(Level.WARNING, "transport {0} (ble): skipped: {1}", b.displayName(), r.reason());
            }
        }
        return new Instances(ready);
    }

    /** A {@code transports.ble} instance whose kernel and adapter checks passed. */
    private record Ready(BleConfig config, BlueZ.Adapter adapter) {
    }

    /** The usable instances; their transports and scan loops once the identity is known. */
    private static final class Instances implements Opened {
        private final List<Ready> ready;
        private final List<Transport> transports = new ArrayList<>();
        private final List<BleScanLoop> scans = new ArrayList<>();

        Instances(final List<Ready> ready) {
            this.ready = List.copyOf(ready);
        }

        @Override
        public List<Transport> transports() {
            return List.copyOf(transports);
        }

        /**
         * Opens one {@code BleTransport} per ready instance and starts its BlueZ side; a BlueZ failure there leaves
         * the L2CAP transport running without discovery, and says so.
         */
        @Override
        public void identityKnown(final NodeIdentity identity, final LongSupplier clock) {
            final PeerKeys keys = new PeerKeys() {
                @Override
                public boolean isValidXOnly(final byte[] xOnly) {
                    return Secp256k1.isValidXOnly(xOnly);
                }

                @Override
                public NodeAddr nodeAddr(final byte[] xOnly) {
                    return NodeAddrs.fromPublicKey(xOnly);
                }
            };
            for (final Ready r : ready) {
                final BleConfig c = r.config();
                final BleTransport t = new BleTransport(
                        new L2capFamily(r.adapter().name(), r.adapter().address(), c.psm(), c.mtu()),
                        new BleTransport.Settings(c.name().orElse(null), c.maxConnections(), c.mtu(),
                                c.connectTimeoutMs(), PubkeyExchange.DEFAULT_TIMEOUT_MS, c.acceptConnections(),
                                c.autoConnect()),
                        identity.publicKey(), keys, clock);
                transports.add(t);
                startScanning(r, t, clock);
                LOG.log(Level.INFO, "transport ble ({0}): L2CAP on {1} {2}, psm 0x{3}, mtu {4}", c.displayName(),
                        r.adapter().name(), r.adapter().address(), Integer.toHexString(c.psm()),
                        String.valueOf(c.mtu()));
            }
        }

        private void startScanning(final Ready r, final BleTransport t, final LongSupplier clock) {
            final String prefix = r.adapter().name() + "/";
            try {
                final BleScanLoop scan = new BleScanLoop(DbusBlueZ.systemBus(), r.config(), new ProbeScheduler.Sink() {
                    @Override
                    public boolean isConnected(final String address) {
                        return t.connectionState(TransportAddr.ofText(prefix + address)) == ConnectionState.CONNECTED;
                    }

                    @Override
                    public void scanResult() {
                        t.countScanResult();
                    }

                    @Override
                    public void advertised() {
                        t.countAdvertisement();
                    }

                    @Override
                    public void probe(final String address, final boolean random) {
                        t.connect(TransportAddr.ofText(prefix + address + (random ? "/random" : "")));
                    }
                });
                scan.start();
                scan.startPolling(clock);
                scans.add(scan);
            } catch (final BlueZException e) {
                LOG.log(Level.WARNING, "transport {0} (ble): advertising/scanning unavailable: {1}",
                        r.config().displayName(), e.getMessage());
            }
        }

        @Override
        public void close() {
            scans.forEach(BleScanLoop::close);
        }
    }
}
