package net.fips.control.node;

import java.util.List;

/** The transport types a node opens, one factory each, in the reference's transport id order. */
final class TransportFactories {
    /**
     * UDP, Ethernet, TCP, Tor, Nym, BLE (transports.md §1.4: the reference's order). The ids follow this list
     * even for a type that opens its instances only once the identity is known (BLE).
     */
    static final List<TransportFactory> REGISTERED = List.of(
            new UdpTransportFactory(),
            new EthernetTransportFactory(),
            new TcpTransportFactory(),
            new TorTransportFactory(),
            new NymTransportFactory(),
            new BleTransportFactory(),
            // Not a configured type: the NAT traversal adoption slots (UDP) take the ids after every configured
            // transport, as the reference's runtime bootstrap transports do (discovery-gateway.md §2.6, ADR 0046).
            new NatAdoptionFactory());

    private TransportFactories() {
    }
}
