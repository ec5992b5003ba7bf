/**
 * The Nym transport (transports.md §6.7): outbound only, through a separately running {@code nym-socks5-client}
 * (SOCKS5 without authentication), framed exactly as TCP. {@link net.fips.dataplane.nym.NymTransport} is the TCP
 * transport with the shared {@link net.fips.dataplane.tor.Socks5Connector} as its connect step,
 * {@link net.fips.dataplane.nym.NymCounters} its reference-shaped stats and
 * {@link net.fips.dataplane.nym.Socks5Readiness} the start-up probe of the proxy port. Never run through a real
 * mixnet: tested against an in-test SOCKS5 proxy only.
 */
package net.fips.dataplane.nym;
