package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.NostrConfig;
import net.fips.control.config.TcpConfig;
import net.fips.control.config.TorConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.identity.FipsAddress;
import net.fips.control.nat.PublicAddressLearner;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.tor.TorTransport;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.UdpTransport;

/**
 * Builds our advert from the node's transports (discovery-gateway.md §1.8): a UDP transport with
 * {@code advertise_on_nostr} (forced off by {@code outbound_only}) gives {@code nat} when not {@code public}, else
 * its {@code external_addr} (an IP gets the bound port), its bound address when that is not a wildcard, or, bound
 * to a wildcard, the public IP STUN reports ({@link PublicAddressLearner}, off the control thread) with the bound
 * listen port; until STUN has answered the transport gives nothing, and when STUN fails it gives nothing with a
 * warning (once per failure). A TCP transport gives its {@code external_addr} or its non-wildcard bound address; a
 * Tor transport with {@code advertise_on_nostr} gives {@code <onion>:<advertised_port>} once its onion address is
 * known (directory mode). Control thread only. STUN off the tick: ADR 0057.
 */
final class NostrAdverts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NostrAdverts.class.getName());

    private final Set<String> warned = new HashSet<>();
    /** The STUN-learned endpoint last logged, per transport key. */
    private final Map<String, String> learned = new HashMap<>();
    private final PublicAddressLearner publicAddress;

    /** @param publicAddress learns the public IP of a wildcard-bound public UDP transport (closed with this) */
    NostrAdverts(final PublicAddressLearner publicAddress) {
        this.publicAddress = publicAddress;
    }

    /**
     * @param cfg        the configuration ({@code transports.*} and {@code node.discovery.nostr})
     * @param transports the node's transports, by id (UDP, TCP and Tor instances in config order)
     * @return the advert, or null when no transport gives an endpoint
     */
    OverlayAdvert build(final FipsConfig cfg, final List<Transport> transports) {
        final List<InetSocketAddress> udpBound = new ArrayList<>();
        final List<String> tcpBound = new ArrayList<>();
        final List<String> torOnions = new ArrayList<>();
        for (final Transport t : transports) {
            if (TransportTypes.UDP.equals(t.typeName())) {
                udpBound.add(t.drive() == Transport.Drive.DATA_PLANE_AGENTS
                        ? UdpTransport.agentDriven(t).localAddress() : null);
            } else if (TransportTypes.TCP.equals(t.typeName())) {
                tcpBound.add(t.localAddr() == null ? null : t.localAddr().text());
            } else if (t instanceof TorTransport tor) {
                torOnions.add(tor.onionAddress());
            }
        }
        return build(cfg.nostr(), cfg.udp(), udpBound, cfg.tcp(), tcpBound, cfg.tor(), torOnions);
    }

    /**
     * {@link #build(NostrConfig, List, List, List, List, List, List)} without Tor transports.
     *
     * @param nostr    {@code node.discovery.nostr}
     * @param udp      the UDP configs
     * @param udpBound each UDP transport's bound address (null when unknown), same order
     * @param tcp      the TCP configs
     * @param tcpBound each TCP transport's listening address text (null without a listener), same order
     * @return the advert, or null when no transport gives an endpoint
     */
    OverlayAdvert build(final NostrConfig nostr, final List<UdpConfig> udp, final List<InetSocketAddress> udpBound,
            final List<TcpConfig> tcp, final List<String> tcpBound) {
        return build(nostr, udp, udpBound, tcp, tcpBound, List.of(), List.of());
    }

    /**
     * The pure part of {@link #build(FipsConfig, List)}.
     *
     * @param nostr    {@code node.discovery.nostr}
     * @param udp      the UDP configs
     * @param udpBound each UDP transport's bound address (null when unknown), same order
     * @param tcp      the TCP configs
     * @param tcpBound each TCP transport's listening address text (null without a listener), same order
     * @param tor       the Tor configs
     * @param torOnions each Tor transport's onion address (null when not known: not directory mode), same order
     * @return the advert, or null when no transport gives an endpoint
     */
    OverlayAdvert build(final NostrConfig nostr, final List<UdpConfig> udp, final List<InetSocketAddress> udpBound,
            final List<TcpConfig> tcp, final List<String> tcpBound, final List<TorConfig> tor,
            final List<String> torOnions) {
        final List<OverlayAdvert.Endpoint> endpoints = new ArrayList<>();
        boolean nat = false;
        for (int i = 0; i < udp.size(); i++) {
            final UdpConfig u = udp.get(i);
            if (!u.effectiveAdvertiseOnNostr()) {
                continue;
            }
            if (!u.isPublic()) {
                endpoints.add(new OverlayAdvert.Endpoint("udp", "nat"));
                nat = true;
                continue;
            }
            final InetSocketAddress bound = i < udpBound.size() ? udpBound.get(i) : null;
            // As the reference: a bare external IP takes the port of the configured bind_addr.
            final int port = portOf(u.effectiveBindAddr()).orElse(0);
            final Optional<String> ext = u.externalAddr().flatMap(e -> hostPort(e, port));
            if (ext.isPresent()) {
                endpoints.add(new OverlayAdvert.Endpoint("udp", ext.get()));
            } else if (bound != null && !bound.getAddress().isAnyLocalAddress()) {
                endpoints.add(new OverlayAdvert.Endpoint("udp", text(bound.getAddress(), bound.getPort())));
            } else if (bound != null) {
                stunEndpoint("udp" + i, u, bound.getPort()).ifPresent(endpoints::add);
            }
        }
        for (int i = 0; i < tcp.size(); i++) {
            final TcpConfig c = tcp.get(i);
            if (!c.advertiseOnNostr()) {
                continue;
            }
            final String bound = i < tcpBound.size() ? tcpBound.get(i) : null;
            final int port = c.bindAddr().flatMap(NostrAdverts::portOf).orElse(0);
            final Optional<String> ext = c.externalAddr().flatMap(e -> hostPort(e, port));
            if (ext.isPresent()) {
                endpoints.add(new OverlayAdvert.Endpoint("tcp", ext.get()));
            } else if (bound != null && !isWildcard(bound)) {
                endpoints.add(new OverlayAdvert.Endpoint("tcp", bound));
            } else {
                warnOnce("tcp" + i, "transports.tcp" + c.name().map(n -> "." + n).orElse("")
                        + ": advertise_on_nostr needs external_addr when bound to a wildcard address (or no"
                        + " listener); not advertised");
            }
        }
        for (int i = 0; i < tor.size(); i++) {
            final String onion = i < torOnions.size() ? torOnions.get(i) : null;
            if (tor.get(i).advertiseOnNostr() && onion != null) {
                endpoints.add(new OverlayAdvert.Endpoint("tor", onion + ":" + tor.get(i).advertisedPort()));
            }
        }
        if (endpoints.isEmpty()) {
            return null;
        }
        return new OverlayAdvert(OverlayAdvert.IDENTIFIER, OverlayAdvert.VERSION, endpoints,
                nat ? nostr.dmRelays() : null, nat ? nostr.stunServers() : null);
    }

    /**
     * Row 1 case 3: {@code <reflexive ip>:<bound listen port>} once STUN has answered (the STUN port is not used: a
     * 1:1 NAT is assumed); nothing while the first observation runs; nothing and one warning when it failed.
     */
    private Optional<OverlayAdvert.Endpoint> stunEndpoint(final String key, final UdpConfig u, final int port) {
        final PublicAddressLearner.Lookup l = publicAddress.lookup(key);
        final String where = "transports.udp" + u.name().map(n -> "." + n).orElse("");
        switch (l.state()) {
            case LEARNED -> {
                final String addr = text(l.ip(), port);
                warned.remove(key);   // a later failure warns again
                if (!addr.equals(learned.put(key, addr))) {
                    LOG.log(Level.INFO, "nostr: {0}: public address {1} learned by STUN, advertised", where, addr);
                }
                return Optional.of(new OverlayAdvert.Endpoint("udp", addr));
            }
            case FAILED -> {
                learned.remove(key);
                warnOnce(key, where + ": public and bound to a wildcard address without external_addr, and no"
                        + " STUN server of node.discovery.nostr.stun_servers answered: no UDP endpoint advertised"
                        + " (set external_addr, bind to the public IP, or make a STUN server reachable)");
                return Optional.empty();
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** Stops a running STUN observation and its thread. */
    @Override
    public void close() {
        publicAddress.close();
    }

    private void warnOnce(final String key, final String text) {
        if (warned.add(key)) {
            LOG.log(Level.WARNING, "nostr: {0}", text);
        }
    }

    /**
     * {@code external_addr}: an IP literal gets {@code port}; {@code ip:port} is taken as is; a host name does not
     * parse (as in the reference) and gives nothing.
     */
    static Optional<String> hostPort(final String text, final int port) {
        final String t = text.trim();
        final Optional<InetAddress> bare = literal(t);
        if (bare.isPresent()) {
            return port <= 0 ? Optional.empty() : Optional.of(text(bare.get(), port));
        }
        final int colon = t.lastIndexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        final Optional<InetAddress> host = literal(t.substring(0, colon));
        final Optional<Integer> p = portOf(t);
        if (host.isEmpty() || p.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(text(host.get(), p.get()));
    }

    /** @return {@code ip:port} as the reference's socket addresses print: IPv6 in brackets, RFC 5952 form */
    static String text(final InetAddress ip, final int port) {
        return ip instanceof Inet6Address ? "[" + FipsAddress.format(ip.getAddress()) + "]:" + port
                : ip.getHostAddress() + ":" + port;
    }

    private static Optional<InetAddress> literal(final String host) {
        String h = host;
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        try {
            return Optional.of(InetAddress.ofLiteral(h));
        } catch (final IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<Integer> portOf(final String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        if (colon < 0 || !hostPort.substring(colon + 1).matches("[0-9]{1,5}")) {
            return Optional.empty();
        }
        final int p = Integer.parseInt(hostPort.substring(colon + 1));
        return p > 0 && p <= 0xffff ? Optional.of(p) : Optional.empty();
    }

    private static boolean isWildcard(final String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        final Optional<InetAddress> a = literal(colon < 0 ? hostPort : hostPort.substring(0, colon));
        return a.isEmpty() || a.get().isAnyLocalAddress();
    }
}
