/**
 * The IPv6 adapter's per-packet pieces as static, allocation-free functions over
 * {@link java.lang.foreign.MemorySegment} regions (packet-pool slot memory): IPv6 header access and validation
 * ({@link net.fips.dataplane.ipv6.Ipv6Packet}), the port-256 DataPacket body ({@link net.fips.dataplane.ipv6.ShimBody},
 * built on {@link net.fips.dataplane.wire.Ipv6Shim}), ICMPv6 Packet Too Big and Destination Unreachable builders
 * ({@link net.fips.dataplane.ipv6.Icmpv6Errors}) with their per-source limiter
 * ({@link net.fips.dataplane.ipv6.PtbRateLimiter}), TCP MSS clamping ({@link net.fips.dataplane.ipv6.TcpMssClamp}),
 * ECN-CE marking on receive ({@link net.fips.dataplane.ipv6.Ipv6Packet#markEcnCe}), the Internet checksum
 * ({@link net.fips.dataplane.ipv6.InetChecksum}) and the encapsulation budget
 * ({@link net.fips.dataplane.ipv6.EncapsulationBudget}).
 * <p>
 * Conventions: an IPv6 address is two big-endian longs {@code hi} (bytes 0-7) and {@code lo} (bytes 8-15), the same
 * split as {@link net.fips.dataplane.wire.NodeAddr}; functions return an offset/length {@code >= 0} or a negative
 * status (a counted drop for the caller), never throw on packet contents, and never read or write outside the
 * region they are given.
 */
package net.fips.dataplane.ipv6;
