package net.fips.dataplane.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrException;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;

/**
 * The listening socket of a {@link TcpTransport} (transports.md §3.1): non-blocking, SO_REUSEADDR, dual-stack for an
 * IPv6 address, the stream options set before {@code listen} (accepted sockets inherit the buffers, so the window
 * scale can use them), bound and listening at open so a busy address refuses the node's start.
 *
 * @param fd    the socket
 * @param local the bound address (the real port after a {@code :0} bind)
 */
record TcpListener(int fd, TransportAddr local) {

    /**
     * Binds and listens on {@code bindAddress}.
     *
     * @throws IOException naming the failing call and address
     */
    static TcpListener open(final String bindAddress, final TcpSocketOptions options) throws IOException {
        final InetSocketAddress bind = UdpAddresses.parse(bindAddress);
        final boolean v6 = bind.getAddress() instanceof Inet6Address;
        final String where = UdpAddresses.format(bind);
        final int lfd = Syscalls.socket(v6 ? Linux.AF_INET6 : Linux.AF_INET,
                Linux.SOCK_STREAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, Linux.IPPROTO_TCP);
        try {
            Syscalls.setsockoptInt(lfd, Linux.SOL_SOCKET, Linux.SO_REUSEADDR, 1, "SO_REUSEADDR on TCP " + where);
            if (v6) {
                Syscalls.setsockoptInt(lfd, Linux.IPPROTO_IPV6, Linux.IPV6_V6ONLY, 0, "IPV6_V6ONLY=0 on " + where);
            }
            options.apply(lfd, where);
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sa = a.allocate(SockAddrs.STORAGE_SIZE, 8);
                final int len;
                try {
                    len = SockAddrs.encode(bind, sa, v6);
                } catch (final SockAddrException e) {
                    throw new TransportException("TCP bind address " + where + ": " + e.getMessage(), e);
                }
                Syscalls.bind(lfd, sa, len, "TCP " + where);
                Syscalls.listen(lfd, TcpTransportConfig.BACKLOG, "TCP " + where);
                final int n = Syscalls.getsockname(lfd, sa);
                return new TcpListener(lfd, TransportAddr.ofInet(SockAddrs.decode(sa, n)));
            } catch (final SockAddrException e) {
                throw new TransportException("TCP " + where + ": getsockname gave " + e.getMessage(), e);
            }
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(lfd);
            throw e;
        }
    }
}
