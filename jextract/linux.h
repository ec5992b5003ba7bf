/*
 * Umbrella header for the `linux` jextract group (package net.fips.ffm.linux.gen).
 * Order matters: glibc headers first, and never both members of a conflicting pair
 * (netinet/udp.h vs linux/udp.h, net/if.h vs linux/if.h, netpacket/packet.h vs linux/if_packet.h).
 * _GNU_SOURCE is also passed on the command line (linux.args); recvmmsg/sendmmsg/mmsghdr need it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/fib_rules.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/l2cap.h>
