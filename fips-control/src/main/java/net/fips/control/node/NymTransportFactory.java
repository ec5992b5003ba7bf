package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.NymConfig;
import net.fips.dataplane.nym.NymTransport;
import net.fips.dataplane.nym.Socks5Readiness;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.dataplane.tor.TorConnector;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportTypes;

/**
 * {@code transports.nym}: one {@link NymTransport} per instance, outbound only through {@code nym-socks5-client}
 * (transports.md §6.7). Before opening an instance the start waits for the proxy port as the reference does
 * ({@link Socks5Readiness}: up to {@code startup_timeout_secs}, backing off from 1 s to 10 s) and, when it never
 * answers, starts anyway with a warning: dials then fail (counted as {@code socks5_errors}) until the proxy is up,
 * and the link layer retries on its schedule.
 */
final class NymTransportFactory implements TransportFactory {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());

    @Override
    public String type() {
        return TransportTypes.NYM;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final NymConfig c : cfg.nym()) {
            final String where = "transports.nym" + c.name().map(n -> "." + n).orElse("");
            final Socks5Readiness ready = new Socks5Readiness(Socks5Readiness.tcpConnect(c.socks5Addr()),
                    options.nanoClock(), TimeUnit.NANOSECONDS::sleep);
            LOG.log(Level.INFO, "{0}: waiting up to {1} s for the Nym SOCKS5 client at {2}", where,
                    c.startupTimeoutSecs(), c.socks5Addr());
            if (ready.await(TimeUnit.SECONDS.toNanos(c.startupTimeoutSecs()))) {
                LOG.log(Level.INFO, "{0}: Nym SOCKS5 client at {1} is reachable", where, c.socks5Addr());
            } else {
                LOG.log(Level.WARNING, "{0}: Nym SOCKS5 client at {1} not reachable after {2} s; starting anyway"
                        + " (connections fail until it is up)", where, c.socks5Addr(), c.startupTimeoutSecs());
            }
            try {
                out.add(NymTransport.open(new TcpTransportConfig()
                        .mtu(c.mtu()).connectTimeoutMs((int) Math.min(Integer.MAX_VALUE, c.connectTimeoutMs()))
                        .nodelay(true).keepaliveSecs(TorConnector.KEEPIDLE_SECS)
                        .instanceName(c.name().orElse(null)), c.socks5Addr()));
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                throw new NodeStartException("cannot open Nym transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return new Plain(out);
    }
}
