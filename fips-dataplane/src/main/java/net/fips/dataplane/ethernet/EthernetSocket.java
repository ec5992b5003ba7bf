package net.fips.dataplane.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.NetOrder;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.Syscalls;

/**
 * One opened AF_PACKET socket of an {@link EthernetTransport} and what the kernel said about its interface
 * (transports.md §4.1): {@code socket(AF_PACKET, SOCK_DGRAM, htons(ethertype))}, the interface looked up by name
 * and checked to be Ethernet, bound by index, SO_RCVBUF/SO_SNDBUF as configured (failures are fatal, as in the
 * reference). Made at open and at every reopen.
 *
 * @param fd      the socket
 * @param ifindex the interface index
 * @param mac     the interface's MAC (low 48 bits)
 * @param ifMtu   the interface MTU
 */
record EthernetSocket(int fd, int ifindex, long mac, int ifMtu) {

    /**
     * Opens and binds the socket on {@code cfg}'s interface.
     *
     * @throws EthernetTransportException with the {@link EthernetTransportException.Reason} (no CAP_NET_RAW, no such
     *                                    interface, not Ethernet, another failed call)
     */
    static EthernetSocket open(final EthernetTransportConfig cfg) throws EthernetTransportException {
        final String name = cfg.interfaceName();
        final int fd;
        try {
            fd = Syscalls.socket(PacketSockets.AF_PACKET,
                    PacketSockets.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                    NetOrder.htons(cfg.etherType()) & 0xFFFF);
        } catch (final ErrnoException e) {
            if (e.errno() == Errno.EPERM || e.errno() == Errno.EACCES) {
                throw new EthernetTransportException(EthernetTransportException.Reason.PERMISSION, e.errno(),
                        "Ethernet transport on " + name + " needs CAP_NET_RAW (run as root, or grant it: setcap "
                                + "cap_net_raw,cap_net_admin+ep on the java binary, or AmbientCapabilities="
                                + "CAP_NET_RAW in the unit): " + e.getMessage(), e);
            }
            if (e.errno() == Errno.EAFNOSUPPORT) {
                throw new EthernetTransportException(EthernetTransportException.Reason.PERMISSION, e.errno(),
                        "Ethernet transport on " + name + ": AF_PACKET sockets are refused (a systemd "
                                + "RestrictAddressFamilies= without AF_PACKET, or a kernel without CONFIG_PACKET): "
                                + e.getMessage(), e);
            }
            throw system(name, e);
        }
        try {
            final int index;
            try {
                index = Syscalls.ifNameToIndex(name);
            } catch (final ErrnoException e) {
                throw new EthernetTransportException(EthernetTransportException.Reason.NO_SUCH_INTERFACE, e.errno(),
                        "Ethernet transport: no interface \"" + name + "\" in this network namespace ("
                                + e.getMessage() + ")", e);
            }
            final PacketSockets.HardwareAddress hw = PacketSockets.hardwareAddress(fd, name);
            if (hw.family() != PacketSockets.ARPHRD_ETHER) {
                throw new EthernetTransportException(EthernetTransportException.Reason.NOT_ETHERNET, 0,
                        "Ethernet transport: interface " + name + " is not Ethernet (hardware type " + hw.family()
                                + ", want " + PacketSockets.ARPHRD_ETHER + ")", null);
            }
            final int ifMtu = PacketSockets.interfaceMtu(fd, name);
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sll = a.allocate(PacketSockets.SOCKADDR_LL_SIZE, 8);
                final int len = PacketSockets.encode(sll, cfg.etherType(), index, -1);
                Syscalls.bind(fd, sll, len, "AF_PACKET " + name + " ethertype 0x"
                        + Integer.toHexString(cfg.etherType()));
            }
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_RCVBUF, cfg.recvBufSize(),
                    "SO_RCVBUF=" + cfg.recvBufSize() + " on " + name);
            Syscalls.setsockoptInt(fd, Linux.SOL_SOCKET, Linux.SO_SNDBUF, cfg.sendBufSize(),
                    "SO_SNDBUF=" + cfg.sendBufSize() + " on " + name);
            return new EthernetSocket(fd, index, hw.mac(), ifMtu);
        } catch (final EthernetTransportException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        } catch (final ErrnoException e) {
            Syscalls.closeQuietly(fd);
            throw system(name, e);
        } catch (final RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    private static EthernetTransportException system(final String name, final ErrnoException e) {
        return new EthernetTransportException(EthernetTransportException.Reason.SYSTEM, e.errno(),
                "Ethernet transport on " + name + ": " + e.getMessage(), e);
    }
}
