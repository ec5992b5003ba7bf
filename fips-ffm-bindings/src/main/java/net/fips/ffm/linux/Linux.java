package net.fips.ffm.linux;

import net.fips.ffm.linux.gen.linux_h;

/**
 * The Linux constants the transports use, under their C names, taken from the generated bindings (so they are
 * compile-time-stable {@code static final}s the JIT folds, and other modules need not see the {@code gen}
 * package). The full set lives in {@code net.fips.ffm.linux.gen.linux_h}.
 */
public final class Linux {
    /** {@code AF_INET}. */
    public static final int AF_INET = linux_h.AF_INET();
    /** {@code AF_INET6}. */
    public static final int AF_INET6 = linux_h.AF_INET6();
    /** {@code SOCK_DGRAM}. */
    public static final int SOCK_DGRAM = linux_h.SOCK_DGRAM();
    /** {@code SOCK_STREAM}. */
    public static final int SOCK_STREAM = linux_h.SOCK_STREAM();
    /** {@code SOCK_NONBLOCK}. */
    public static final int SOCK_NONBLOCK = linux_h.SOCK_NONBLOCK();
    /** {@code SOCK_CLOEXEC}. */
    public static final int SOCK_CLOEXEC = linux_h.SOCK_CLOEXEC();
    /** {@code IPPROTO_UDP}. */
    public static final int IPPROTO_UDP = linux_h.IPPROTO_UDP();
    /** {@code IPPROTO_IPV6}. */
    public static final int IPPROTO_IPV6 = linux_h.IPPROTO_IPV6();
    /** {@code SOL_SOCKET}. */
    public static final int SOL_SOCKET = linux_h.SOL_SOCKET();
    /** {@code SOL_UDP}. */
    public static final int SOL_UDP = linux_h.SOL_UDP();
    /** {@code SO_REUSEADDR}. */
    public static final int SO_REUSEADDR = linux_h.SO_REUSEADDR();
    /** {@code SO_REUSEPORT}. */
    public static final int SO_REUSEPORT = linux_h.SO_REUSEPORT();
    /** {@code SO_RCVBUF}. */
    public static final int SO_RCVBUF = linux_h.SO_RCVBUF();
    /** {@code SO_SNDBUF}. */
    public static final int SO_SNDBUF = linux_h.SO_SNDBUF();
    /** {@code SO_RCVBUFFORCE} (needs CAP_NET_ADMIN). */
    public static final int SO_RCVBUFFORCE = linux_h.SO_RCVBUFFORCE();
    /** {@code SO_SNDBUFFORCE} (needs CAP_NET_ADMIN). */
    public static final int SO_SNDBUFFORCE = linux_h.SO_SNDBUFFORCE();
    /** {@code SO_RXQ_OVFL}: attach the socket's cumulative drop count as a cmsg. */
    public static final int SO_RXQ_OVFL = linux_h.SO_RXQ_OVFL();
    /** {@code SO_ERROR}. */
    public static final int SO_ERROR = linux_h.SO_ERROR();
    /** {@code SO_NO_CHECK}: send without UDP checksums (the kernel then refuses GSO with EINVAL). */
    public static final int SO_NO_CHECK = linux_h.SO_NO_CHECK();
    /** {@code IPV6_V6ONLY}. */
    public static final int IPV6_V6ONLY = linux_h.IPV6_V6ONLY();
    /** {@code IPV6_RECVPKTINFO}: deliver an {@code IPV6_PKTINFO} cmsg (arrival address and ifindex). */
    public static final int IPV6_RECVPKTINFO = linux_h.IPV6_RECVPKTINFO();
    /** {@code IPV6_PKTINFO}: the cmsg type of {@code struct in6_pktinfo} (16-byte address, then the ifindex). */
    public static final int IPV6_PKTINFO = linux_h.IPV6_PKTINFO();
    /** {@code UDP_SEGMENT}: GSO segment size (cmsg u16 or socket option). */
    public static final int UDP_SEGMENT = linux_h.UDP_SEGMENT();
    /** {@code UDP_GRO}: receive coalesced trains with the segment size as an int cmsg. */
    public static final int UDP_GRO = linux_h.UDP_GRO();
    /** {@code MSG_TRUNC}. */
    public static final int MSG_TRUNC = linux_h.MSG_TRUNC();
    /** {@code MSG_CTRUNC}. */
    public static final int MSG_CTRUNC = linux_h.MSG_CTRUNC();
    /** {@code MSG_DONTWAIT}. */
    public static final int MSG_DONTWAIT = linux_h.MSG_DONTWAIT();
    /** {@code MSG_WAITFORONE}. */
    public static final int MSG_WAITFORONE = linux_h.MSG_WAITFORONE();
    /** {@code POLLIN}. */
    public static final short POLLIN = (short) linux_h.POLLIN();
    /** {@code POLLOUT}. */
    public static final short POLLOUT = (short) linux_h.POLLOUT();
    /** {@code POLLERR}. */
    public static final short POLLERR = (short) linux_h.POLLERR();
    /** {@code POLLHUP}. */
    public static final short POLLHUP = (short) linux_h.POLLHUP();
    /** {@code POLLNVAL}. */
    public static final short POLLNVAL = (short) linux_h.POLLNVAL();
    /** {@code EFD_NONBLOCK}. */
    public static final int EFD_NONBLOCK = linux_h.EFD_NONBLOCK();
    /** {@code EFD_CLOEXEC}. */
    public static final int EFD_CLOEXEC = linux_h.EFD_CLOEXEC();
    /** {@code EPOLL_CLOEXEC}. */
    public static final int EPOLL_CLOEXEC = linux_h.EPOLL_CLOEXEC();
    /** {@code EPOLL_CTL_ADD}. */
    public static final int EPOLL_CTL_ADD = linux_h.EPOLL_CTL_ADD();
    /** {@code EPOLL_CTL_DEL}. */
    public static final int EPOLL_CTL_DEL = linux_h.EPOLL_CTL_DEL();
    /** {@code EPOLLIN}. */
    public static final int EPOLLIN = linux_h.EPOLLIN();
    /** {@code EPOLLOUT}. */
    public static final int EPOLLOUT = linux_h.EPOLLOUT();
    /** {@code EPOLLERR}. */
    public static final int EPOLLERR = linux_h.EPOLLERR();
    /** {@code EPOLLHUP}. */
    public static final int EPOLLHUP = linux_h.EPOLLHUP();
    /** {@code EPOLLRDHUP}: the peer closed its end. */
    public static final int EPOLLRDHUP = linux_h.EPOLLRDHUP();
    /** {@code EPOLL_CTL_MOD}. */
    public static final int EPOLL_CTL_MOD = linux_h.EPOLL_CTL_MOD();
    /** {@code IPPROTO_TCP} (also the option level {@code SOL_TCP}). */
    public static final int IPPROTO_TCP = linux_h.IPPROTO_TCP();
    /** {@code TCP_NODELAY}. */
    public static final int TCP_NODELAY = linux_h.TCP_NODELAY();
    /** {@code TCP_MAXSEG}: the connection's MSS. */
    public static final int TCP_MAXSEG = linux_h.TCP_MAXSEG();
    /** {@code TCP_KEEPIDLE}: seconds idle before the first keepalive probe. */
    public static final int TCP_KEEPIDLE = linux_h.TCP_KEEPIDLE();
    /** {@code SO_KEEPALIVE}. */
    public static final int SO_KEEPALIVE = linux_h.SO_KEEPALIVE();
    /** {@code MSG_NOSIGNAL}: no SIGPIPE on a closed stream. */
    public static final int MSG_NOSIGNAL = linux_h.MSG_NOSIGNAL();
    /** {@code O_RDWR}. */
    public static final int O_RDWR = linux_h.O_RDWR();
    /** {@code O_NONBLOCK}. */
    public static final int O_NONBLOCK = linux_h.O_NONBLOCK();
    /** {@code O_CLOEXEC}. */
    public static final int O_CLOEXEC = linux_h.O_CLOEXEC();
    /** {@code TUNSETIFF} ({@code unsigned long} request). */
    public static final long TUNSETIFF = linux_h.TUNSETIFF();
    /** {@code IFF_TUN}. */
    public static final int IFF_TUN = linux_h.IFF_TUN();
    /** {@code IFF_NO_PI}. */
    public static final int IFF_NO_PI = linux_h.IFF_NO_PI();
    /** {@code IFNAMSIZ}. */
    public static final int IFNAMSIZ = linux_h.IFNAMSIZ();

    private Linux() {
    }
}
