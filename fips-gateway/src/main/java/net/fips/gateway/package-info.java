/**
 * The LAN gateway (discovery-gateway.md §4): {@link net.fips.gateway.GatewayMain} (the launcher),
 * {@link net.fips.gateway.DnsProxy} (§4.2), {@link net.fips.gateway.VirtualPool} (§4.3),
 * {@link net.fips.gateway.NftRuleset} and {@link net.fips.gateway.Nft} (§4.4), {@link net.fips.gateway.NetSetup}
 * (§4.5) and {@link net.fips.gateway.GatewayControl} (§4.6).
 */
package net.fips.gateway;
