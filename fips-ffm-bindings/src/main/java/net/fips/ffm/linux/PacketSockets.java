package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.NetOrder;
import net.fips.ffm.linux.gen.ifreq;
import net.fips.ffm.linux.gen.linux_h;
import net.fips.ffm.linux.gen.sockaddr_ll;

/**
 * AF_PACKET sockets: the constants, a {@code struct sockaddr_ll} codec over caller-provided native memory, and
 * the two {@code struct ifreq} ioctls an Ethernet transport needs (hardware address and MTU).
 * <pre>{@code
 * struct sockaddr_ll { unsigned short sll_family; __be16 sll_protocol; int sll_ifindex; unsigned short sll_hatype;
 *                      unsigned char sll_pkttype; unsigned char sll_halen; unsigned char sll_addr[8]; };   // 20
 * }</pre>
 * A MAC address travels as the low 48 bits of a {@code long} ({@code aa:bb:cc:dd:ee:ff} = {@code 0xaabbccddeeffL}),
 * so reading a frame's source allocates nothing.
 */
public final class PacketSockets {
    /** {@code AF_PACKET}. */
    public static final int AF_PACKET = linux_h.AF_PACKET();
    /** {@code SOCK_DGRAM}: the kernel builds and strips the 14-byte Ethernet header. */
    public static final int SOCK_DGRAM = linux_h.SOCK_DGRAM();
    /** {@code SOCK_RAW}: the caller sees and writes the Ethernet header. */
    public static final int SOCK_RAW = linux_h.SOCK_RAW();
    /** {@code SOL_PACKET}. */
    public static final int SOL_PACKET = linux_h.SOL_PACKET();
    /** {@code PACKET_IGNORE_OUTGOING}: do not loop our own sends back to this socket. */
    public static final int PACKET_IGNORE_OUTGOING = linux_h.PACKET_IGNORE_OUTGOING();
    /** {@code PACKET_HOST}: a unicast frame for this interface's MAC. */
    public static final int PACKET_HOST = linux_h.PACKET_HOST();
    /** {@code PACKET_BROADCAST}. */
    public static final int PACKET_BROADCAST = linux_h.PACKET_BROADCAST();
    /** {@code PACKET_MULTICAST}. */
    public static final int PACKET_MULTICAST = linux_h.PACKET_MULTICAST();
    /** {@code PACKET_OTHERHOST}: a frame for another MAC, seen because the interface is promiscuous. */
    public static final int PACKET_OTHERHOST = linux_h.PACKET_OTHERHOST();
    /** {@code PACKET_OUTGOING}: a frame this host sent. */
    public static final int PACKET_OUTGOING = linux_h.PACKET_OUTGOING();
    /** {@code ETH_ALEN} (6). */
    public static final int ETH_ALEN = linux_h.ETH_ALEN();
    /** {@code ENETDOWN}: what a packet socket reports once its interface is down or gone. */
    public static final int ENETDOWN = linux_h.ENETDOWN();
    /** {@code ENODEV}. */
    public static final int ENODEV = linux_h.ENODEV();
    /** {@code ENXIO}: sending on a socket whose interface was destroyed. */
    public static final int ENXIO = linux_h.ENXIO();
    /** {@code sizeof(struct sockaddr_ll)} (20). */
    public static final int SOCKADDR_LL_SIZE = (int) sockaddr_ll.sizeof();
    /** {@code ARPHRD_ETHER}, the {@code sa_family} SIOCGIFHWADDR reports for Ethernet (and veth). */
    public static final int ARPHRD_ETHER = 1;
    /** The broadcast MAC {@code ff:ff:ff:ff:ff:ff}. */
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    private static final long FAMILY = sockaddr_ll.sll_family$offset();
    private static final long PROTOCOL = sockaddr_ll.sll_protocol$offset();
    private static final long IFINDEX = sockaddr_ll.sll_ifindex$offset();
    private static final long PKTTYPE = sockaddr_ll.sll_pkttype$offset();
    private static final long HALEN = sockaddr_ll.sll_halen$offset();
    private static final long ADDR = sockaddr_ll.sll_addr$offset();
    private static final long IFR_NAME = ifreq.ifr_ifrn$offset();
    private static final long IFR_UNION = ifreq.ifr_ifru$offset();
    private static final long SIOCGIFHWADDR = linux_h.SIOCGIFHWADDR();
    private static final long SIOCGIFMTU = linux_h.SIOCGIFMTU();

    private PacketSockets() {
    }

    /**
     * Writes a {@code sockaddr_ll} for bind (MAC 0, {@code halen} 0) or sendto (MAC set, {@code halen} 6).
     *
     * @param dst       at least {@link #SOCKADDR_LL_SIZE} bytes
     * @param etherType host order, e.g. 0x2121 (written network order)
     * @param ifindex   the interface index
     * @param mac       destination MAC in the low 48 bits, or -1 for a bind address
     * @return the length to pass to the kernel
     */
    public static int encode(final MemorySegment dst, final int etherType, final int ifindex, final long mac) {
        dst.asSlice(0, SOCKADDR_LL_SIZE).fill((byte) 0);
        dst.set(JAVA_SHORT_UNALIGNED, FAMILY, (short) AF_PACKET);
        dst.set(NetOrder.U16_BE, PROTOCOL, (short) etherType);
        dst.set(JAVA_INT_UNALIGNED, IFINDEX, ifindex);
        if (mac >= 0) {
            dst.set(JAVA_BYTE, HALEN, (byte) ETH_ALEN);
            writeMac(dst, ADDR, mac);
        }
        return SOCKADDR_LL_SIZE;
    }

    /** Rewrites only the destination MAC of an address {@link #encode} wrote (allocation-free, per packet). */
    public static void destination(final MemorySegment sockaddr, final long mac) {
        writeMac(sockaddr, ADDR, mac);
    }

    /** @return the source MAC of a kernel-written {@code sockaddr_ll} (low 48 bits) */
    public static long sourceMac(final MemorySegment sockaddr) {
        return readMac(sockaddr, ADDR);
    }

    /** @return {@code sll_pkttype} of a kernel-written {@code sockaddr_ll} */
    public static int packetType(final MemorySegment sockaddr) {
        return Byte.toUnsignedInt(sockaddr.get(JAVA_BYTE, PKTTYPE));
    }

    /** @return {@code sll_ifindex} of a {@code sockaddr_ll} */
    public static int ifindex(final MemorySegment sockaddr) {
        return sockaddr.get(JAVA_INT_UNALIGNED, IFINDEX);
    }

    /** @return {@code sll_protocol} in host order */
    public static int protocol(final MemorySegment sockaddr) {
        return Short.toUnsignedInt(sockaddr.get(NetOrder.U16_BE, PROTOCOL));
    }

    /** Writes a MAC (low 48 bits of {@code mac}) as 6 bytes, most significant first. */
    public static void writeMac(final MemorySegment seg, final long offset, final long mac) {
        for (int i = 0; i < 6; i++) {
            seg.set(JAVA_BYTE, offset + i, (byte) (mac >>> (40 - 8 * i)));
        }
    }

    /** @return the 6 bytes at {@code offset} as a MAC in the low 48 bits */
    public static long readMac(final MemorySegment seg, final long offset) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = (mac << 8) | Byte.toUnsignedLong(seg.get(JAVA_BYTE, offset + i));
        }
        return mac;
    }

    /** What {@code SIOCGIFHWADDR} reported. @param family ARPHRD_* @param mac low 48 bits */
    public record HardwareAddress(int family, long mac) {
    }

    /**
     * {@code ioctl(fd, SIOCGIFHWADDR, &ifreq{name})}.
     *
     * @param fd any socket
     * @throws ErrnoException e.g. ENODEV naming the interface
     */
    public static HardwareAddress hardwareAddress(final int fd, final String name) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment req = ifreq(arena, name);
            Syscalls.ioctl(fd, SIOCGIFHWADDR, req, "SIOCGIFHWADDR " + name);
            // ifr_hwaddr is a struct sockaddr: sa_family (2 bytes), then sa_data, whose first 6 bytes are the MAC.
            final int family = Short.toUnsignedInt(req.get(JAVA_SHORT_UNALIGNED, IFR_UNION));
            return new HardwareAddress(family, readMac(req, IFR_UNION + 2));
        }
    }

    /**
     * {@code ioctl(fd, SIOCGIFMTU, &ifreq{name})}.
     *
     * @throws ErrnoException e.g. ENODEV naming the interface
     */
    public static int interfaceMtu(final int fd, final String name) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment req = ifreq(arena, name);
            Syscalls.ioctl(fd, SIOCGIFMTU, req, "SIOCGIFMTU " + name);
            return req.get(JAVA_INT_UNALIGNED, IFR_UNION);
        }
    }

    private static MemorySegment ifreq(final Arena arena, final String name) {
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length >= Linux.IFNAMSIZ) {
            throw new IllegalArgumentException("interface name must be 1-" + (Linux.IFNAMSIZ - 1) + " bytes: " + name);
        }
        final MemorySegment req = arena.allocate(ifreq.layout());
        req.fill((byte) 0);
        MemorySegment.copy(bytes, 0, req, JAVA_BYTE, IFR_NAME, bytes.length);
        return req;
    }
}
