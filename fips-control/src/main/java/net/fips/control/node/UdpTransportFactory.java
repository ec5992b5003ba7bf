package net.fips.control.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.UdpConfig;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/** {@code transports.udp}: one {@link UdpTransport} per instance. */
final class UdpTransportFactory implements TransportFactory {
    @Override
    public String type() {
        return TransportTypes.UDP;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final UdpConfig u : cfg.udp()) {
            final String where = "transports.udp" + u.name().map(n -> "." + n).orElse("") + " ("
                    + u.effectiveBindAddr() + ")";
            try {
                // No SO_REUSEPORT: a second daemon on the same address must fail here, not share the port and
                // steal the running node's packets.
                out.add(UdpTransport.open(new UdpTransportConfig().bindAddress(u.effectiveBindAddr()).reusePort(false)
                        .mtuBytes(u.mtu()).receiveBufferBytes(u.recvBufSize()).sendBufferBytes(u.sendBufSize())
                        .instanceName(u.name().orElse(null)).gro(cfg.node().dataplane().udpGro())
                        .acceptConnections(!u.outboundOnly() && u.acceptConnections())));
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                if (e instanceof IOException io && UdpTransport.isAddressInUse(io)) {
                    throw new NodeStartException("UDP address " + u.effectiveBindAddr() + " of transports.udp"
                            + u.name().map(n -> "." + n).orElse("") + " is already in use (one node per config:"
                            + " another fips daemon or program is bound to it)", false, e);
                }
                throw new NodeStartException("cannot open UDP transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return new Plain(out);
    }
}
