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
 * The plain TCP connect: {@code ip:port}, {@code [v6]:port} or {@code host:port} text (a host name is looked up
 * first, off the loop thread, first result, as the reference does), a non-blocking socket of the address's family
 * with the transport's options, {@code connect(2)}. No pre-link exchange.
 */
public final class DirectConnector implements StreamConnector {
    @Override
    public boolean needsLookup(final TransportAddr address) {
        return address.text() != null && UdpAddresses.needsLookup(address.text());
    }

    @Override
    public TransportAddr lookup(final TransportAddr address) throws IOException {
        try {
            return TransportAddr.ofInet(UdpAddresses.parse(address.text()));
        } catch (final IOException e) {
            throw new TransportException("TCP address " + address.text() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Dial open(final TransportAddr address, final TcpSocketOptions options) throws IOException {
        final String text = address.text();
        if (text == null) {
            throw new TransportException("TCP address " + address + " is not text");
        }
        final InetSocketAddress to;
        try {
            to = UdpAddresses.parse(text);
        } catch (final IOException e) {
            throw new TransportException("TCP address " + text + ": " + e.getMessage(), e);
        }
        final boolean v6 = to.getAddress() instanceof Inet6Address;
        final int fd = Syscalls.socket(v6 ? Linux.AF_INET6 : Linux.AF_INET,
                Linux.SOCK_STREAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, Linux.IPPROTO_TCP);
        try (Arena a = Arena.ofConfined()) {
            options.apply(fd, text);
            final MemorySegment sa = a.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int len;
            try {
                len = SockAddrs.encode(to, sa, v6);
            } catch (final SockAddrException e) {
                throw new TransportException("TCP address " + text + ": " + e.getMessage(), e);
            }
            final boolean connected = Syscalls.connect(fd, sa, len, "TCP " + text);
            return new Dial(fd, connected, null);
        } catch (final IOException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }
}
