package net.fips.control.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.TcpConfig;
import net.fips.dataplane.tcp.TcpTransport;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportTypes;

/** {@code transports.tcp}: one {@link TcpTransport} per instance, with or without a listener. */
final class TcpTransportFactory implements TransportFactory {
    @Override
    public String type() {
        return TransportTypes.TCP;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final TcpConfig c : cfg.tcp()) {
            final String where = "transports.tcp" + c.name().map(n -> "." + n).orElse("")
                    + c.bindAddr().map(b -> " (" + b + ")").orElse(" (outbound only)");
            try {
                out.add(TcpTransport.open(new TcpTransportConfig().bindAddress(c.bindAddr().orElse(null))
                        .mtu(c.mtu()).connectTimeoutMs(c.connectTimeoutMs()).nodelay(c.nodelay())
                        .keepaliveSecs(c.keepaliveSecs()).recvBufferBytes(c.recvBufSize())
                        .sendBufferBytes(c.sendBufSize())
                        .maxInboundConnections(c.maxInboundConnections()
                                .orElse(cfg.node().limits().maxConnections()))
                        .instanceName(c.name().orElse(null))));
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                if (e instanceof IOException io && TcpTransport.isAddressInUse(io)) {
                    throw new NodeStartException("TCP address " + c.bindAddr().orElse("?") + " of " + where
                            + " is already in use (one node per config: another fips daemon or program is bound to"
                            + " it)", false, e);
                }
                throw new NodeStartException("cannot open TCP transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return new Plain(out);
    }
}
