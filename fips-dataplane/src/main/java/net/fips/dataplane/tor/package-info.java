/**
 * Reaching peers through a SOCKS5 proxy (Tor, Nym): {@link net.fips.dataplane.tor.TorAddress} parses the
 * transport address forms, {@link net.fips.dataplane.tor.Socks5Handshake} is the byte-fed client exchange (usable
 * from an event loop), {@link net.fips.dataplane.tor.Socks5Dialer} runs it with a deadline on a connect thread,
 * {@link net.fips.dataplane.tor.TorCounters} holds the Tor-specific counters. The dial happens before the stream
 * carries any FMP frame; once connected the stream is framed exactly as TCP (transports.md §3.1, §6).
 */
package net.fips.dataplane.tor;
