package net.fips.ffm.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodType;

import org.junit.jupiter.api.Test;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.gen.bdaddr_t;
import net.fips.ffm.linux.gen.bt_power;
import net.fips.ffm.linux.gen.cmsghdr;
import net.fips.ffm.linux.gen.epoll_event;
import net.fips.ffm.linux.gen.fib_rule_hdr;
import net.fips.ffm.linux.gen.ifaddrmsg;
import net.fips.ffm.linux.gen.ifinfomsg;
import net.fips.ffm.linux.gen.ifreq;
import net.fips.ffm.linux.gen.iovec;
import net.fips.ffm.linux.gen.linux_h;
import net.fips.ffm.linux.gen.mmsghdr;
import net.fips.ffm.linux.gen.msghdr;
import net.fips.ffm.linux.gen.nlmsgerr;
import net.fips.ffm.linux.gen.nlmsghdr;
import net.fips.ffm.linux.gen.pollfd;
import net.fips.ffm.linux.gen.rtattr;
import net.fips.ffm.linux.gen.rtmsg;
import net.fips.ffm.linux.gen.sockaddr_in;
import net.fips.ffm.linux.gen.sockaddr_in6;
import net.fips.ffm.linux.gen.sockaddr_l2;
import net.fips.ffm.linux.gen.sockaddr_ll;
import net.fips.ffm.linux.gen.sockaddr_nl;
import net.fips.ffm.linux.gen.sockaddr_storage;

/**
 * Pins the generated layouts and constants to the values verified with gcc on x86_64 glibc
 * (transports.md §9.4/§9.5), so that a regeneration on another libc/arch or with a broken allow-list fails here.
 */
class LayoutTest {

    @Test
    void socketStructs() {
        assertEquals(16, sockaddr_in.sizeof());
        assertEquals(2, sockaddr_in.sin_port$offset());
        assertEquals(4, sockaddr_in.sin_addr$offset());
        assertEquals(28, sockaddr_in6.sizeof());
        assertEquals(2, sockaddr_in6.sin6_port$offset());
        assertEquals(4, sockaddr_in6.sin6_flowinfo$offset());
        assertEquals(8, sockaddr_in6.sin6_addr$offset());
        assertEquals(24, sockaddr_in6.sin6_scope_id$offset());
        assertEquals(128, sockaddr_storage.sizeof());
        assertEquals(16, iovec.sizeof());
        assertEquals(8, iovec.iov_len$offset());
        assertEquals(56, msghdr.sizeof());
        assertEquals(0, msghdr.msg_name$offset());
        assertEquals(8, msghdr.msg_namelen$offset());
        assertEquals(16, msghdr.msg_iov$offset());
        assertEquals(24, msghdr.msg_iovlen$offset());
        assertEquals(8, msghdr.msg_iovlen$layout().byteSize(), "msg_iovlen is size_t on glibc");
        assertEquals(32, msghdr.msg_control$offset());
        assertEquals(40, msghdr.msg_controllen$offset());
        assertEquals(8, msghdr.msg_controllen$layout().byteSize(), "msg_controllen is size_t on glibc");
        assertEquals(48, msghdr.msg_flags$offset());
        assertEquals(64, mmsghdr.sizeof());
        assertEquals(56, mmsghdr.msg_len$offset());
        assertEquals(16, cmsghdr.sizeof());
        assertEquals(8, cmsghdr.cmsg_len$layout().byteSize(), "cmsg_len is size_t on glibc");
        assertEquals(8, cmsghdr.cmsg_level$offset());
        assertEquals(12, cmsghdr.cmsg_type$offset());
        assertEquals(8, pollfd.sizeof());
        assertEquals(4, pollfd.events$offset());
        assertEquals(6, pollfd.revents$offset());
    }

    @Test
    void epollEventIsPackedOnX8664() {
        assertEquals(12, epoll_event.sizeof());
        assertEquals(4, epoll_event.data$offset());
        assertEquals(12, EpollEvents.SIZE);
    }

    @Test
    void linkLayerNetlinkAndBluetoothStructs() {
        assertEquals(20, sockaddr_ll.sizeof());
        assertEquals(4, sockaddr_ll.sll_ifindex$offset());
        assertEquals(10, sockaddr_ll.sll_pkttype$offset());
        assertEquals(12, sockaddr_ll.sll_addr$offset());
        assertEquals(14, sockaddr_l2.sizeof());
        assertEquals(4, sockaddr_l2.l2_bdaddr$offset());
        assertEquals(10, sockaddr_l2.l2_cid$offset());
        assertEquals(12, sockaddr_l2.l2_bdaddr_type$offset());
        assertEquals(0, sockaddr_l2.l2_family$offset());
        assertEquals(2, sockaddr_l2.l2_psm$offset());
        assertEquals(2, sockaddr_l2.layout().byteAlignment());
        assertEquals(14, L2cap.SOCKADDR_SIZE);
        assertEquals(6, bdaddr_t.sizeof());
        assertEquals(1, bdaddr_t.layout().byteAlignment());
        assertEquals(1, bt_power.sizeof());
        assertEquals(0, bt_power.force_active$offset());
        assertEquals(12, sockaddr_nl.sizeof());
        assertEquals(4, sockaddr_nl.nl_pid$offset());
        assertEquals(40, ifreq.sizeof());
        assertEquals(16, ifreq.ifr_ifru$offset());
        assertEquals(16, nlmsghdr.sizeof());
        assertEquals(20, nlmsgerr.sizeof());
        assertEquals(16, ifinfomsg.sizeof());
        assertEquals(4, ifinfomsg.ifi_index$offset());
        assertEquals(8, ifaddrmsg.sizeof());
        assertEquals(12, rtmsg.sizeof());
        assertEquals(12, fib_rule_hdr.sizeof());
        assertEquals(4, rtattr.sizeof());
    }

    @Test
    void constants() {
        assertEquals(2, Linux.AF_INET);
        assertEquals(10, Linux.AF_INET6);
        assertEquals(17, linux_h.AF_PACKET());
        assertEquals(16, linux_h.AF_NETLINK());
        assertEquals(31, linux_h.AF_BLUETOOTH());
        assertEquals(0x800, Linux.SOCK_NONBLOCK);
        assertEquals(0x80000, Linux.SOCK_CLOEXEC);
        assertEquals(17, Linux.SOL_UDP);
        assertEquals(263, linux_h.SOL_PACKET());
        assertEquals(274, linux_h.SOL_BLUETOOTH());
        assertEquals(15, Linux.SO_REUSEPORT);
        assertEquals(33, Linux.SO_RCVBUFFORCE);
        assertEquals(40, Linux.SO_RXQ_OVFL);
        assertEquals(26, Linux.IPV6_V6ONLY);
        assertEquals(103, Linux.UDP_SEGMENT);
        assertEquals(104, Linux.UDP_GRO);
        assertEquals(2, linux_h.TCP_MAXSEG());
        assertEquals(0x20, Linux.MSG_TRUNC);
        assertEquals(0x8, Linux.MSG_CTRUNC);
        assertEquals(0x10000, Linux.MSG_WAITFORONE);
        assertEquals(32, Linux.POLLNVAL);
        assertEquals(0x80000000, linux_h.EPOLLET());
        assertEquals(0x400454CAL, Linux.TUNSETIFF);
        assertEquals(0x800454CFL, linux_h.TUNGETFEATURES());
        assertEquals(0x400454D9L, linux_h.TUNSETQUEUE());
        assertEquals(0x1000, Linux.IFF_NO_PI);
        assertEquals(0x100, linux_h.IFF_MULTI_QUEUE());
        assertEquals(16, Linux.IFNAMSIZ);
        assertEquals(0x8927, linux_h.SIOCGIFHWADDR());
        assertEquals(0x8933, linux_h.SIOCGIFINDEX());
        assertEquals(23, linux_h.PACKET_IGNORE_OUTGOING());
        assertEquals(0x300, linux_h.NLM_F_DUMP());
        assertEquals(32, linux_h.RTM_NEWRULE());
        assertEquals(254, linux_h.RT_TABLE_MAIN());
        assertEquals(15, linux_h.FRA_TABLE());
        assertEquals(12, linux_h.BT_SNDMTU());
        assertEquals(672, linux_h.L2CAP_DEFAULT_MTU());
        assertEquals(2, linux_h.BDADDR_LE_RANDOM());
        // the L2CAP CoC recipe (transports.md §5.2), as L2cap uses them
        assertEquals(31, L2cap.AF_BLUETOOTH);
        assertEquals(0, L2cap.BTPROTO_L2CAP);
        assertEquals(5, L2cap.SOCK_SEQPACKET);
        assertEquals(274, L2cap.SOL_BLUETOOTH);
        assertEquals(4, L2cap.BT_SECURITY);
        assertEquals(1, L2cap.BT_SECURITY_LOW);
        assertEquals(9, L2cap.BT_POWER);
        assertEquals(1, L2cap.BT_POWER_FORCE_ACTIVE_ON);
        assertEquals(12, L2cap.BT_SNDMTU);
        assertEquals(13, L2cap.BT_RCVMTU);
        assertEquals(1, L2cap.BDADDR_LE_PUBLIC);
        assertEquals(2, L2cap.BDADDR_LE_RANDOM);
        assertEquals(0, linux_h.BDADDR_BREDR());
        assertEquals(1, UnixSeqPacket.AF_UNIX);
    }

    /** What Syscalls.mapAnonymous passes to mmap/madvise (sys/mman.h, asm-generic/mman-common.h). */
    @Test
    void anonymousMappings() {
        assertEquals(0x1, linux_h.PROT_READ());
        assertEquals(0x2, linux_h.PROT_WRITE());
        assertEquals(0x02, linux_h.MAP_PRIVATE());
        assertEquals(0x20, linux_h.MAP_ANONYMOUS());
        assertEquals(0x4000, linux_h.MAP_NORESERVE());
        assertEquals(15, linux_h.MADV_NOHUGEPAGE());
        assertEquals(-1L, linux_h.MAP_FAILED().address());
        // void *mmap(void *, size_t, int, int, int, off_t); int munmap(void *, size_t);
        // int madvise(void *, size_t, int)
        assertEquals(MethodType.methodType(MemorySegment.class, MemorySegment.class, long.class, int.class, int.class,
                int.class, long.class), linux_h.mmap$descriptor().toMethodType());
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, long.class),
                linux_h.munmap$descriptor().toMethodType());
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, long.class, int.class),
                linux_h.madvise$descriptor().toMethodType());
    }

    /** What TunIoctl and RtNetlink build on (transports.md §7.1/§7.2; values from linux/netlink.h, rtnetlink.h). */
    @Test
    void tunAndRtnetlink() {
        assertEquals(0, ifreq.ifr_ifrn$offset());
        assertEquals(0x0001, TunIoctl.IFF_TUN);
        assertEquals(0x1000, TunIoctl.IFF_NO_PI);
        assertEquals(0x8000, TunIoctl.IFF_TUN_EXCL);
        // if_tun.h (generated) and virtio_net.h (hand-written in TunIoctl: not in the jextract group)
        assertEquals(0x4000, TunIoctl.IFF_VNET_HDR);
        assertEquals(0x400454D0L, TunIoctl.TUNSETOFFLOAD);
        assertEquals(0x400454D8L, TunIoctl.TUNSETVNETHDRSZ);
        assertEquals(1, TunIoctl.TUN_F_CSUM);
        assertEquals(2, TunIoctl.TUN_F_TSO4);
        assertEquals(4, TunIoctl.TUN_F_TSO6);
        assertEquals(10, TunIoctl.VIRTIO_NET_HDR_SIZE);
        assertEquals(0, TunIoctl.VNET_FLAGS_OFFSET);
        assertEquals(1, TunIoctl.VNET_GSO_TYPE_OFFSET);
        assertEquals(2, TunIoctl.VNET_HDR_LEN_OFFSET);
        assertEquals(4, TunIoctl.VNET_GSO_SIZE_OFFSET);
        assertEquals(6, TunIoctl.VNET_CSUM_START_OFFSET);
        assertEquals(8, TunIoctl.VNET_CSUM_OFFSET_OFFSET);
        assertEquals(1, TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM);
        assertEquals(0, TunIoctl.VIRTIO_NET_HDR_GSO_NONE);
        assertEquals(1, TunIoctl.VIRTIO_NET_HDR_GSO_TCPV4);
        assertEquals(3, TunIoctl.VIRTIO_NET_HDR_GSO_UDP);
        assertEquals(4, TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6);
        assertEquals(0x80, TunIoctl.VIRTIO_NET_HDR_GSO_ECN);
        assertEquals(0, linux_h.NETLINK_ROUTE());
        assertEquals(2, linux_h.NLMSG_ERROR());
        assertEquals(0x1, linux_h.NLM_F_REQUEST());
        assertEquals(0x4, linux_h.NLM_F_ACK());
        assertEquals(0x200, linux_h.NLM_F_EXCL());
        assertEquals(0x400, linux_h.NLM_F_CREATE());
        assertEquals(16, RtNetlink.RTM_NEWLINK);
        assertEquals(17, RtNetlink.RTM_DELLINK);
        assertEquals(20, RtNetlink.RTM_NEWADDR);
        assertEquals(24, RtNetlink.RTM_NEWROUTE);
        assertEquals(32, RtNetlink.RTM_NEWRULE);
        assertEquals(33, RtNetlink.RTM_DELRULE);
        assertEquals(254, RtNetlink.RT_TABLE_MAIN);
        assertEquals(4, linux_h.IFLA_MTU());
        assertEquals(1, linux_h.IFA_ADDRESS());
        assertEquals(2, linux_h.IFA_LOCAL());
        assertEquals(1, linux_h.RTA_DST());
        assertEquals(4, linux_h.RTA_OIF());
        assertEquals(1, linux_h.FRA_DST());
        assertEquals(6, linux_h.FRA_PRIORITY());
        assertEquals(15, linux_h.FRA_TABLE());
        assertEquals(1, linux_h.IFF_UP());
        assertEquals(4, linux_h.RTPROT_STATIC());
        assertEquals(0, linux_h.RT_SCOPE_UNIVERSE());
        assertEquals(1, linux_h.RTN_UNICAST());
        assertEquals(1, linux_h.FR_ACT_TO_TBL());
        assertEquals(0, nlmsgerr.error$offset());
        assertEquals(4, nlmsghdr.nlmsg_type$offset());
        assertEquals(6, nlmsghdr.nlmsg_flags$offset());
        assertEquals(8, nlmsghdr.nlmsg_seq$offset());
        assertEquals(1, ifaddrmsg.ifa_prefixlen$offset());
        assertEquals(4, ifaddrmsg.ifa_index$offset());
        assertEquals(8, ifinfomsg.ifi_flags$offset());
        assertEquals(12, ifinfomsg.ifi_change$offset());
        assertEquals(1, rtmsg.rtm_dst_len$offset());
        assertEquals(4, rtmsg.rtm_table$offset());
        assertEquals(5, rtmsg.rtm_protocol$offset());
        assertEquals(6, rtmsg.rtm_scope$offset());
        assertEquals(7, rtmsg.rtm_type$offset());
        assertEquals(1, fib_rule_hdr.dst_len$offset());
        assertEquals(4, fib_rule_hdr.table$offset());
        assertEquals(7, fib_rule_hdr.action$offset());
    }

    @Test
    void errnoValues() {
        assertEquals(11, Errno.EAGAIN);
        assertEquals(105, Errno.ENOBUFS);
        assertEquals(98, Errno.EADDRINUSE);
        assertEquals(90, Errno.EMSGSIZE);
        assertEquals(95, Errno.EOPNOTSUPP);
        assertEquals(92, Errno.ENOPROTOOPT);
        assertEquals(115, Errno.EINPROGRESS);
        assertEquals(77, linux_h.EBADFD());
        assertEquals(19, linux_h.ENODEV());
        assertEquals(2, Errno.ENOENT);
        assertEquals(6, Errno.ENXIO);
        assertEquals(14, Errno.EFAULT);
        assertEquals(16, Errno.EBUSY);
        assertEquals(17, Errno.EEXIST);
        assertEquals(19, Errno.ENODEV);
        assertEquals(20, Errno.ENOTDIR);
        assertEquals(77, Errno.EBADFD);
        assertEquals(110, Errno.ETIMEDOUT);
    }

    @Test
    void cmsgMacros() {
        assertEquals(16, Cmsg.len(0));
        assertEquals(18, Cmsg.len(2));
        assertEquals(24, Cmsg.space(2));
        assertEquals(24, Cmsg.space(4));
        assertEquals(32, Cmsg.space(16));
        assertEquals(8, Cmsg.align(1));
        assertEquals(16, Cmsg.data(0));
    }
}
