package net.fips.control.config;

import java.util.List;
import java.util.Objects;

/**
 * A whole, checked {@code fips.yaml}: the parts of the reference schema this node implements, as immutable
 * values with every default filled in. Sections it does not implement (gateway) are
 * checked for unknown keys and types but not kept; Nostr discovery's settings are kept ({@link NostrConfig}) though
 * the node does not run it yet.
 *
 * @param node       {@code node.*}
 * @param tun        {@code tun.*}
 * @param dns        {@code dns.*}
 * @param udp        {@code transports.udp} instances; empty means no UDP transport
 * @param ethernet   {@code transports.ethernet} instances, one per interface
 * @param tcp        {@code transports.tcp} instances
 * @param ble        {@code transports.ble} instances; empty means no BLE transport
 * @param peers      {@code peers[]}
 * @param tcp        {@code transports.tcp} instances
 * @param tor        {@code transports.tor} instances; empty means no Tor transport
 * @param nym        {@code transports.nym} instances; empty means no Nym transport
 * @param nostr      {@code node.discovery.nostr} / {@code node.rendezvous.nostr} (parsed; not run by the node yet)
 * @param lan        {@code node.discovery.lan} / {@code node.rendezvous.lan}: LAN discovery over mDNS
 */
public record FipsConfig(NodeConfig node, TunConfig tun, DnsConfig dns, List<UdpConfig> udp,
        List<EthernetConfig> ethernet, List<PeerConfig> peers, List<TcpConfig> tcp, List<TorConfig> tor,
        List<NymConfig> nym, List<BleConfig> ble, NostrConfig nostr, LanConfig lan) {

    /** Name of the bundled default config resource, next to this class. */
    public static final String DEFAULT_RESOURCE = "default-fips.yaml";

    /** Checks nullness and freezes the lists. */
    public FipsConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(tun, "tun");
        Objects.requireNonNull(dns, "dns");
        Objects.requireNonNull(nostr, "nostr");
        Objects.requireNonNull(lan, "lan");
        udp = List.copyOf(udp);
        ethernet = List.copyOf(ethernet);
        ble = List.copyOf(ble);
        peers = List.copyOf(peers);
        tcp = List.copyOf(tcp);
        tor = List.copyOf(tor);
        nym = List.copyOf(nym);
    }

    /** A config with the LAN discovery defaults (off). */
    public FipsConfig(final NodeConfig node, final TunConfig tun, final DnsConfig dns, final List<UdpConfig> udp,
                      final List<EthernetConfig> ethernet, final List<PeerConfig> peers, final List<TcpConfig> tcp,
                      final List<TorConfig> tor, final List<NymConfig> nym, final List<BleConfig> ble,
                      final NostrConfig nostr) {
        this(node, tun, dns, udp, ethernet, peers, tcp, tor, nym, ble, nostr, LanConfig.DEFAULTS);
    }

    /** A config with the Nostr and LAN discovery defaults. */
    public FipsConfig(final NodeConfig node, final TunConfig tun, final DnsConfig dns, final List<UdpConfig> udp,
                      final List<EthernetConfig> ethernet, final List<PeerConfig> peers, final List<TcpConfig> tcp,
                      final List<TorConfig> tor, final List<BleConfig> ble) {
        this(node, tun, dns, udp, ethernet, peers, tcp, tor, List.of(), ble, NostrConfig.DEFAULTS);
    }

    /** A config with UDP transports only. */
    public FipsConfig(final NodeConfig node, final TunConfig tun, final DnsConfig dns, final List<UdpConfig> udp,
                      final List<PeerConfig> peers) {
        this(node, tun, dns, udp, List.of(), peers, List.of(), List.of(), List.of());
    }

    /**
     * The bundled default: an ephemeral identity, one UDP transport on {@code 0.0.0.0:2121}, the control socket
     * at the auto-resolved path of this host. Unlike the reference's "no file" state it has a transport, so a
     * node started without any config can actually peer.
     *
     * @return the parsed default for the real host environment
     * @throws ConfigException only if the bundled resource were broken (a build error, covered by tests)
     */
    public static FipsConfig defaults() throws ConfigException {
        return new ConfigLoader(HostEnvironment.system()).loadDefault().config();
    }

    /** @return the peers that dial on their own */
    public List<PeerConfig> autoConnectPeers() {
        return peers.stream().filter(PeerConfig::isAutoConnect).toList();
    }
}
