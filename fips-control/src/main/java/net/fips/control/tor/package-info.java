/**
 * The control-plane half of the Tor transport: the control-port client ({@link
 * net.fips.control.tor.TorControlClient}: AUTHENTICATE with cookie or password, GETINFO, the reply grammar in
 * {@link net.fips.control.tor.ControlReplyParser}), the monitoring snapshot and its log milestones ({@link
 * net.fips.control.tor.TorMonitor}), and directory mode's onion name ({@link net.fips.control.tor.OnionHostname}).
 * The SOCKS5 dial lives in the data plane ({@code net.fips.dataplane.tor}).
 */
package net.fips.control.tor;
