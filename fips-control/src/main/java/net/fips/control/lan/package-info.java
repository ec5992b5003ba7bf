/**
 * LAN discovery over mDNS (discovery-gateway.md §3): {@link net.fips.control.lan.LanAdvert} is what a node announces
 * (service, instance name, TXT {@code npub}/{@code scope}/{@code v}) and which announcements it accepts;
 * {@link net.fips.control.lan.LanDiscovery} runs JmDNS on the host's interfaces and queues what it finds and what is
 * withdrawn for the control loop; {@link net.fips.control.lan.LanPeers} remembers the peers seen and says when each
 * is due for a dial (ADR 0042). The node runs them through {@code net.fips.control.node.LanService}.
 */
package net.fips.control.lan;
