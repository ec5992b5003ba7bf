package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.TorConfig;
import net.fips.control.tor.ControlAuth;
import net.fips.control.tor.OnionHostname;
import net.fips.control.tor.TorControlException;
import net.fips.control.tor.TorMonitorTask;
import net.fips.control.tor.TorMonitoring;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.dataplane.tor.TorConnector;
import net.fips.dataplane.tor.TorCounters;
import net.fips.dataplane.tor.TorTransport;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportTypes;

/**
 * {@code transports.tor}: one {@link TorTransport} per instance (SOCKS5 out, in directory mode an onion service's
 * local listener in), and per instance that uses a control port a {@link TorMonitorTask} (transports.md §6.1, §6.6).
 */
final class TorTransportFactory implements TransportFactory {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());

    @Override
    public String type() {
        return TransportTypes.TOR;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final TorConfig c : cfg.tor()) {
            final String where = "transports.tor" + c.name().map(n -> "." + n).orElse("") + " ("
                    + c.mode().configName() + ")";
            final boolean directory = c.mode() == TorConfig.Mode.DIRECTORY;
            try {
                final String onion = directory ? OnionHostname.read(Path.of(c.directoryService().hostnameFile()))
                        : null;
                out.add(TorTransport.open(new TcpTransportConfig()
                        .bindAddress(directory ? c.directoryService().bindAddr() : null)
                        .mtu(c.mtu()).connectTimeoutMs((int) Math.min(Integer.MAX_VALUE, c.connectTimeoutMs()))
                        .nodelay(true).keepaliveSecs(TorConnector.KEEPIDLE_SECS)
                        .maxInboundConnections(c.maxInboundConnections())
                        .instanceName(c.name().orElse(null)), c.socks5Addr(), c.mode().configName(), onion,
                        new TorCounters()));
                if (directory) {
                    LOG.log(Level.INFO, "{0}: onion service {1} active, listening on {2}", where, onion,
                            c.directoryService().bindAddr());
                }
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                throw new NodeStartException("cannot open Tor transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return new Instances(cfg.tor(), out);
    }

    /** The opened instances beside their configs, and their control-port monitors by index. */
    private static final class Instances implements Opened {
        private final List<TorConfig> configs;
        private final List<Transport> transports;
        private final Map<Integer, TorMonitorTask> monitors = new ConcurrentHashMap<>();

        Instances(final List<TorConfig> configs, final List<Transport> transports) {
            this.configs = List.copyOf(configs);
            this.transports = List.copyOf(transports);
        }

        @Override
        public List<Transport> transports() {
            return transports;
        }

        /**
         * Connects the control-port monitors: in control_port mode a connect or authentication failure refuses the
         * start; in directory mode with an explicit control_addr it only warns and the monitor retries at each poll.
         */
        @Override
        public void started(final int firstId, final NodeOptions options) throws NodeStartException {
            for (int i = 0; i < configs.size(); i++) {
                final TorConfig c = configs.get(i);
                if (!c.usesControlPort()) {
                    continue;
                }
                final TorTransport t = (TorTransport) transports.get(i);
                final TorMonitorTask task = new TorMonitorTask(c.displayName(), c.effectiveControlAddr(),
                        ControlAuth.parse(c.controlAuth(), c.cookiePath()), t.torCounters(), options.nanoClock());
                try {
                    task.connect();
                } catch (final TorControlException e) {
                    if (c.mode() == TorConfig.Mode.CONTROL_PORT) {
                        throw new NodeStartException("Tor control port " + c.effectiveControlAddr()
                                + " of transports.tor" + c.name().map(n -> "." + n).orElse("") + ": "
                                + e.getMessage(), false, e);
                    }
                    LOG.log(Level.WARNING, "{0}: Tor control port {1}: {2} (monitoring retries every 10 s)",
                            c.displayName(), c.effectiveControlAddr(), e.getMessage());
                }
                task.start();
                monitors.put(i, task);
            }
        }

        @Override
        public JsonNode monitoring(final int index) {
            final TorMonitorTask t = monitors.get(index);
            final TorMonitoring m = t == null ? null : t.latest();
            return m == null ? null : m.toJson();
        }

        @Override
        public void close() {
            monitors.values().forEach(TorMonitorTask::close);
        }
    }
}
