package net.fips.dataplane.tor;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

import net.fips.dataplane.tcp.ProxiedStreamTransport;
import net.fips.dataplane.tcp.TcpTransport;
import net.fips.dataplane.tcp.TcpTransportConfig;

/**
 * A Tor transport instance (transports.md §6): the TCP transport's event loop, framing, pool and stats with the
 * {@link Socks5Connector} as its connect step (outbound through the SocksPort, {@code connect_timeout_ms} for the
 * whole dial) and, in directory mode, its listener on {@code directory_service.bind_addr}, where Tor's
 * HiddenServicePort forwards inbound onion connections. Adds the Tor counters to the stats and carries the mode
 * and onion address for {@code show_transports}; inbound connections are admitted exactly when an onion address
 * is active.
 */
public final class TorTransport extends ProxiedStreamTransport {
    private final TorCounters counters;
    private final String mode;
    private final String onionAddress;

    private TorTransport(final TcpTransport tcp, final TorCounters counters, final String mode,
                         final String onionAddress) {
        super(tcp);
        this.counters = counters;
        this.mode = mode;
        this.onionAddress = onionAddress;
    }

    /**
     * Opens the transport (binds the directory-mode listener, if any).
     *
     * @param tcpConfig    the stream settings (mtu, connect timeout, inbound cap, bind address in directory mode
     *                     only); its connector and type name are set here
     * @param socks5Addr   {@code socks5_addr}
     * @param mode         {@code socks5}, {@code control_port} or {@code directory}
     * @param onionAddress the onion name read from the hostname file (directory mode), else null
     * @param counters     the Tor counters (shared with the control-port monitor)
     * @return the transport
     * @throws IOException when the listener cannot be bound
     */
    public static TorTransport open(final TcpTransportConfig tcpConfig, final String socks5Addr, final String mode,
                                    final String onionAddress, final TorCounters counters) throws IOException {
        Objects.requireNonNull(counters, "counters");
        tcpConfig.typeName("tor").connector(new Socks5Connector(socks5Addr, true, counters));
        return new TorTransport(TcpTransport.open(tcpConfig), counters, Objects.requireNonNull(mode, "mode"),
                onionAddress);
    }

    /** @return {@code socks5}, {@code control_port} or {@code directory} */
    public String mode() {
        return mode;
    }

    /** @return the active onion address (directory mode), or null */
    public String onionAddress() {
        return onionAddress;
    }

    /** @return the Tor counters */
    public TorCounters torCounters() {
        return counters;
    }

    @Override
    public boolean acceptConnections() {
        return onionAddress != null && tcp.acceptConnections();
    }

    @Override
    public Map<String, Long> stats() {
        return counters.merge(tcp.stats());
    }

    @Override
    public String toString() {
        return "tor(" + mode + (onionAddress == null ? "" : ", " + onionAddress) + ")";
    }
}
