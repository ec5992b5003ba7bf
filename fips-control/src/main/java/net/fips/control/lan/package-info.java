/**
 * LAN discovery over mDNS (discovery-gateway.md §3): {@link net.fips.control.lan.LanAdvert} is what a node announces
 * (service, instance name, TXT {@code npub}/{@code scope}/{@code v}) and which announcements it accepts;
 * {@link net.fips.control.lan.LanDiscovery} runs JmDNS on the host's interfaces and queues what it finds for the
 * control loop, which dials.
 */
package net.fips.control.lan;
