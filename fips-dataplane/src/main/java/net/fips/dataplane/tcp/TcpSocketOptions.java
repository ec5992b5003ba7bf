package net.fips.dataplane.tcp;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.Syscalls;

/**
 * The reference's options for every TCP socket (transports.md §3.3): TCP_NODELAY, SO_KEEPALIVE + TCP_KEEPIDLE
 * when {@code keepaliveSecs > 0}, SO_RCVBUF/SO_SNDBUF. Applied before {@code connect(2)} (and on the listener, whose
 * accepted sockets inherit the buffers), so the window scale negotiated in the SYN can use the buffer size.
 *
 * @param nodelay         TCP_NODELAY
 * @param keepaliveSecs   idle seconds before keepalive probes, 0 = off
 * @param recvBufferBytes SO_RCVBUF request
 * @param sendBufferBytes SO_SNDBUF request
 */
public record TcpSocketOptions(boolean nodelay, int keepaliveSecs, int recvBufferBytes, int sendBufferBytes) {

    /** Applies every option to {@code fd}; a refused option is an error naming it. */
    public void apply(final int fd, final String where) throws ErrnoException {
        Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_RCVBUF, recvBufferBytes, "SO_RCVBUF on TCP " + where);
        Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_SNDBUF, sendBufferBytes, "SO_SNDBUF on TCP " + where);
        applyStreamOptions(fd, where);
    }

    /** TCP_NODELAY and keepalive only (an accepted socket inherits the listener's buffer sizes). */
    public void applyStreamOptions(final int fd, final String where) throws ErrnoException {
        Syscalls.setsockoptInt(fd, Linux.IPPROTO_TCP, Linux.TCP_NODELAY, nodelay ? 1 : 0, "TCP_NODELAY on " + where);
        if (keepaliveSecs > 0) {
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_KEEPALIVE, 1, "SO_KEEPALIVE on " + where);
            Syscalls.setsockoptInt(fd, Linux.IPPROTO_TCP, Linux.TCP_KEEPIDLE, keepaliveSecs,
                    "TCP_KEEPIDLE=" + keepaliveSecs + " on " + where);
        }
    }
}
