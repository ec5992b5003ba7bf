/**
 * The LAN gateway ({@code fips-gateway}, discovery-gateway.md §4): a DNS proxy that hands LAN hosts virtual IPv6
 * addresses for {@code .fips} names, the pool of those addresses, the nftables NAT that joins them to mesh
 * addresses, and its own control socket. It runs beside the daemon and talks to it only through the daemon's DNS
 * responder.
 */
module net.fips.gateway {
    requires net.fips.control;
    requires info.picocli;
    requires java.logging;

    // picocli injects options into the command class reflectively.
    opens net.fips.gateway to info.picocli;
}
