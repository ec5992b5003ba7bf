package net.fips.control.config;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code gateway.*} block (operator.md §1.19, discovery-gateway.md §4.7), read only by {@code fips-gateway}.
 * The loader fills the reference's defaults and rejects what the reference rejects when it reads the file (a
 * port-forward target that is not an IPv6 {@code [addr]:port}); what the reference only checks when the gateway
 * starts (enabled, port-forward uniqueness, the listener addresses) is {@link #validate(String)}, and the pool's
 * CIDR is checked by the gateway's pool, so a daemon sharing the file never refuses a block only the gateway reads.
 *
 * @param enabled          {@code enabled}: the gateway refuses to start unless true
 * @param pool             {@code pool}: the virtual IPv6 CIDR, as written
 * @param lanInterface     {@code lan_interface}: the LAN NIC (proxy NDP, LAN masquerade of port forwards)
 * @param poolGracePeriod  {@code pool_grace_period}: seconds a draining address is held (60)
 * @param dnsListen        {@code dns.listen}: the proxy's listener, as written ({@code [::1]:5353})
 * @param dnsUpstream      {@code dns.upstream}: the daemon's responder, as written ({@code [::1]:5354})
 * @param dnsTtl           {@code dns.ttl}: TTL of the AAAA answers (60)
 * @param conntrack        {@code conntrack.*}: parsed, not applied (as in the reference)
 * @param portForwards     {@code port_forwards[]}: inbound forwards from fips0 to LAN targets
 */
public record GatewayConfig(boolean enabled, String pool, String lanInterface, long poolGracePeriod,
        String dnsListen, String dnsUpstream, long dnsTtl, Conntrack conntrack, List<PortForward> portForwards) {

    /** Default of {@code dns.listen}: the reference's, which an mDNS responder may already hold (see the proxy). */
    public static final String DEFAULT_DNS_LISTEN = "[::1]:5353";
    /** Default of {@code dns.upstream}: the daemon's responder at its default bind. */
    public static final String DEFAULT_DNS_UPSTREAM = "[::1]:5354";
    /** Default of {@code dns.ttl}. */
    public static final long DEFAULT_DNS_TTL = 60;
    /** Default of {@code pool_grace_period}. */
    public static final long DEFAULT_GRACE_PERIOD = 60;

    /** Checks nullness and freezes the list. */
    public GatewayConfig {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(lanInterface, "lanInterface");
        Objects.requireNonNull(dnsListen, "dnsListen");
        Objects.requireNonNull(dnsUpstream, "dnsUpstream");
        Objects.requireNonNull(conntrack, "conntrack");
        portForwards = List.copyOf(portForwards);
    }

    /**
     * The {@code gateway.conntrack.*} timeouts, in seconds. The reference parses them and applies none; so do we.
     *
     * @param tcpEstablished {@code tcp_established} (432000)
     * @param udpTimeout     {@code udp_timeout} (30)
     * @param udpAssured     {@code udp_assured} (180)
     * @param icmpTimeout    {@code icmp_timeout} (30)
     */
    public record Conntrack(long tcpEstablished, long udpTimeout, long udpAssured, long icmpTimeout) {
        /** The reference's defaults. */
        public static final Conntrack DEFAULTS = new Conntrack(432_000, 30, 180, 30);
    }

    /** Protocol of a port forward. */
    public enum Proto {
        /** TCP. */
        TCP,
        /** UDP. */
        UDP;

        /** @return the lower-case name the config and nft use */
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One {@code port_forwards[]} entry: mesh peers reaching {@code fips0:listenPort} over {@code proto} are sent
     * to {@code target} on the LAN.
     *
     * @param listenPort the port on fips0
     * @param proto      tcp or udp
     * @param target     the LAN target, an IPv6 socket address
     */
    public record PortForward(int listenPort, Proto proto, InetSocketAddress target) {
        /** Checks the target is IPv6. */
        public PortForward {
            Objects.requireNonNull(proto, "proto");
            if (!(target.getAddress() instanceof Inet6Address)) {
                throw new IllegalArgumentException("target must be IPv6: " + target);
            }
        }
    }

    /**
     * The reference's start-up checks of the block (discovery-gateway.md §4.1 step 1) plus the address syntax
     * of {@code dns.listen} and {@code dns.upstream}, each problem naming its key.
     *
     * @param source what was read, for the exception
     * @throws ConfigException listing every problem
     */
    public void validate(final String source) throws ConfigException {
        final List<String> problems = new ArrayList<>();
        if (!enabled) {
            problems.add("gateway.enabled: must be true for fips-gateway to start");
        }
        if (lanInterface.isEmpty()) {
            problems.add("gateway.lan_interface: must name the LAN interface");
        }
        for (final String[] kv : new String[][] {{"dns.listen", dnsListen}, {"dns.upstream", dnsUpstream}}) {
            if (literal(kv[1]) == null) {
                problems.add("gateway." + kv[0] + ": expected an IP socket address such as [::1]:5353, got \""
                        + kv[1] + "\"");
            }
        }
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < portForwards.size(); i++) {
            final PortForward pf = portForwards.get(i);
            if (pf.listenPort() == 0) {
                problems.add("gateway.port_forwards[" + i + "].listen_port: must be non-zero");
            } else if (!seen.add(pf.listenPort() + "/" + pf.proto())) {
                problems.add("gateway.port_forwards[" + i + "]: duplicate (" + pf.proto().text() + " "
                        + pf.listenPort() + "); each (listen_port, proto) must be unique");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
    }

    /** @return {@code dns.listen} as a socket address; call {@link #validate} first */
    public InetSocketAddress dnsListenAddress() {
        return literal(dnsListen);
    }

    /** @return {@code dns.upstream} as a socket address; call {@link #validate} first */
    public InetSocketAddress dnsUpstreamAddress() {
        return literal(dnsUpstream);
    }

    /**
     * Parses an IP-literal socket address ({@code 1.2.3.4:53}, {@code [::1]:53}); no name lookups.
     *
     * @param text the text
     * @return the address, or null when it is not such a literal
     */
    static InetSocketAddress literal(final String text) {
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            return null;
        }
        String host = text.substring(0, colon);
        final boolean bracketed = host.startsWith("[") && host.endsWith("]");
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            return null;
        }
        if (!host.matches("[0-9A-Fa-f.:]+")) {
            return null;
        }
        final int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (final NumberFormatException e) {
            return null;
        }
        if (port < 0 || port > 0xFFFF) {
            return null;
        }
        try {
            final InetAddress a = InetAddress.getByName(host);
            if (bracketed != a instanceof Inet6Address) {
                return null;
            }
            return new InetSocketAddress(a, port);
        } catch (final UnknownHostException e) {
            return null;
        }
    }
}
