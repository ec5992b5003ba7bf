/**
 * The {@code .fips} DNS responder (operator.md §4.6): a minimal DNS codec ({@link net.fips.control.dns.DnsCodec}),
 * the responder's decisions as a pure function ({@link net.fips.control.dns.DnsResponder}), name resolution from
 * the host map and npubs ({@link net.fips.control.dns.FipsNameResolver}), the reloading hosts file
 * ({@link net.fips.control.dns.HostsFile}) and the UDP server ({@link net.fips.control.dns.DnsServer}).
 */
package net.fips.control.dns;
