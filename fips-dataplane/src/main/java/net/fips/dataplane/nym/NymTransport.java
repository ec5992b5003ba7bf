package net.fips.dataplane.nym;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

import net.fips.dataplane.tcp.ProxiedStreamTransport;
import net.fips.dataplane.tcp.TcpTransport;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.dataplane.tor.Socks5Connector;

/**
 * A Nym transport instance (transports.md §6.7): the TCP transport's event loop, framing, pool and send path with
 * the shared {@link Socks5Connector} in its {@link Socks5Connector.Profile#NYM Nym profile} as the connect step
 * (SOCKS5 without authentication to {@code nym-socks5-client}, {@code connect_timeout_ms} for the whole dial),
 * no listener (outbound only: {@link #acceptConnections()} is false, nothing is discovered), and the reference's
 * Nym stats ({@link NymCounters}). A connection the proxy closes counts {@code recv_errors}, as the reference's
 * reader does; the link layer redials by its own schedule.
 */
public final class NymTransport extends ProxiedStreamTransport {
    private final NymCounters counters;
    private final String socks5Addr;

    private NymTransport(final TcpTransport tcp, final NymCounters counters, final String socks5Addr) {
        super(tcp);
        this.counters = counters;
        this.socks5Addr = socks5Addr;
    }

    /**
     * Opens the transport (no socket yet: every connection is dialled through the proxy).
     *
     * @param tcpConfig  the stream settings (mtu, connect timeout, socket options, instance name); its bind
     *                   address must be unset, its connector and type name are set here
     * @param socks5Addr {@code socks5_addr}, {@code host:port} of {@code nym-socks5-client}
     * @return the transport
     * @throws IOException when the stream transport cannot be set up
     */
    public static NymTransport open(final TcpTransportConfig tcpConfig, final String socks5Addr) throws IOException {
        Objects.requireNonNull(socks5Addr, "socks5Addr");
        if (tcpConfig.bindAddress() != null) {
            throw new IllegalArgumentException("the Nym transport is outbound only: no bind address");
        }
        final NymCounters counters = new NymCounters();
        tcpConfig.typeName("nym").endOfStreamIsRecvError(true)
                .connector(new Socks5Connector(socks5Addr, Socks5Connector.Profile.NYM, counters));
        return new NymTransport(TcpTransport.open(tcpConfig), counters, socks5Addr);
    }

    /** @return {@code socks5_addr} */
    public String socks5Addr() {
        return socks5Addr;
    }

    /** @return the SOCKS5 counters */
    public NymCounters nymCounters() {
        return counters;
    }

    @Override
    public boolean acceptConnections() {
        return false;
    }

    @Override
    public Map<String, Long> stats() {
        return counters.merge(tcp.stats());
    }

    @Override
    public String toString() {
        return "nym(" + socks5Addr + ")";
    }
}
