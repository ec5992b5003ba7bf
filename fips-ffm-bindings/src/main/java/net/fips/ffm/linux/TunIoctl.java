package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.gen.ifreq;
import net.fips.ffm.linux.gen.linux_h;

/**
 * {@code TUNSETIFF} on an open {@code /dev/net/tun} descriptor: attaches it to (creating if needed) the TUN/TAP
 * interface named in a {@code struct ifreq} ({@code ifr_name} at offset 0, {@code ifr_flags} at offset 16,
 * 40 bytes on x86_64); {@code TUNSETVNETHDRSZ} and {@code TUNSETOFFLOAD} for the virtio-net header mode
 * ({@code IFF_VNET_HDR}) that carries TCP super-segments (TSO) and partial checksums across the device.
 *
 * <p>The {@code struct virtio_net_hdr} constants below are hand-written: {@code linux/virtio_net.h} is not in the
 * jextract group ({@code jextract/linux.h}), and regenerating the bindings needs a jextract build this change did
 * not have. They are the kernel ABI values (include/uapi/linux/virtio_net.h), pinned by {@code LayoutTest}.
 */
public final class TunIoctl {
    /** {@code IFF_TUN}: layer-3 device, packets are plain IP. */
    public static final int IFF_TUN = linux_h.IFF_TUN();
    /** {@code IFF_NO_PI}: no 4-byte packet-information prefix on reads and writes. */
    public static final int IFF_NO_PI = linux_h.IFF_NO_PI();
    /** {@code IFF_MULTI_QUEUE}. */
    public static final int IFF_MULTI_QUEUE = linux_h.IFF_MULTI_QUEUE();
    /** {@code IFF_TUN_EXCL}: fail with EBUSY instead of attaching to an existing device. */
    public static final int IFF_TUN_EXCL = linux_h.IFF_TUN_EXCL();

    /** {@code IFF_VNET_HDR}: every read and write starts with a {@code struct virtio_net_hdr}. */
    public static final int IFF_VNET_HDR = linux_h.IFF_VNET_HDR();
    /** {@code TUNSETOFFLOAD} (argument: the {@code TUN_F_*} bits by value). */
    public static final long TUNSETOFFLOAD = linux_h.TUNSETOFFLOAD();
    /** {@code TUNSETVNETHDRSZ} (argument: pointer to an {@code int}). */
    public static final long TUNSETVNETHDRSZ = linux_h.TUNSETVNETHDRSZ();
    /** {@code TUN_F_CSUM}: we accept packets with a partial checksum ({@code VIRTIO_NET_HDR_F_NEEDS_CSUM}). */
    public static final int TUN_F_CSUM = linux_h.TUN_F_CSUM();
    /** {@code TUN_F_TSO4}: we accept IPv4 TCP super-segments. */
    public static final int TUN_F_TSO4 = linux_h.TUN_F_TSO4();
    /** {@code TUN_F_TSO6}: we accept IPv6 TCP super-segments. */
    public static final int TUN_F_TSO6 = linux_h.TUN_F_TSO6();

    /** {@code sizeof(struct virtio_net_hdr)}: flags u8, gso_type u8, hdr_len, gso_size, csum_start, csum_offset u16. */
    public static final int VIRTIO_NET_HDR_SIZE = 10;
    /** Offset of {@code flags} (u8). */
    public static final int VNET_FLAGS_OFFSET = 0;
    /** Offset of {@code gso_type} (u8). */
    public static final int VNET_GSO_TYPE_OFFSET = 1;
    /** Offset of {@code hdr_len} (u16, host order for a legacy header, which TUN uses on little-endian hosts). */
    public static final int VNET_HDR_LEN_OFFSET = 2;
    /** Offset of {@code gso_size} (u16, host order). */
    public static final int VNET_GSO_SIZE_OFFSET = 4;
    /** Offset of {@code csum_start} (u16, host order). */
    public static final int VNET_CSUM_START_OFFSET = 6;
    /** Offset of {@code csum_offset} (u16, host order). */
    public static final int VNET_CSUM_OFFSET_OFFSET = 8;
    /** {@code VIRTIO_NET_HDR_F_NEEDS_CSUM}: the checksum from csum_start is partial (pseudo-header only). */
    public static final int VIRTIO_NET_HDR_F_NEEDS_CSUM = 1;
    /** {@code VIRTIO_NET_HDR_GSO_NONE}. */
    public static final int VIRTIO_NET_HDR_GSO_NONE = 0;
    /** {@code VIRTIO_NET_HDR_GSO_TCPV4}. */
    public static final int VIRTIO_NET_HDR_GSO_TCPV4 = 1;
    /** {@code VIRTIO_NET_HDR_GSO_UDP}. */
    public static final int VIRTIO_NET_HDR_GSO_UDP = 3;
    /** {@code VIRTIO_NET_HDR_GSO_TCPV6}. */
    public static final int VIRTIO_NET_HDR_GSO_TCPV6 = 4;
    /** {@code VIRTIO_NET_HDR_GSO_ECN} (flag bit of gso_type). */
    public static final int VIRTIO_NET_HDR_GSO_ECN = 0x80;

    private static final long NAME_OFFSET = ifreq.ifr_ifrn$offset();
    private static final long FLAGS_OFFSET = ifreq.ifr_ifru$offset();

    private TunIoctl() {
    }

    /**
     * {@code ioctl(fd, TUNSETIFF, &ifreq{name, flags})}.
     *
     * @param fd    an open {@code /dev/net/tun} descriptor
     * @param name  the interface name (fewer than {@link Linux#IFNAMSIZ} bytes of ASCII; may contain {@code %d})
     * @param flags e.g. {@code IFF_TUN | IFF_NO_PI}
     * @return the name the kernel gave the interface (read back from {@code ifr_name})
     * @throws ErrnoException e.g. EPERM (no CAP_NET_ADMIN), EBUSY (the device is attached elsewhere), EINVAL
     * @throws IllegalArgumentException for a name that does not fit {@code ifr_name}
     */
    public static String setIff(final int fd, final String name, final int flags) throws ErrnoException {
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length >= Linux.IFNAMSIZ) {
            throw new IllegalArgumentException("interface name must be 1-" + (Linux.IFNAMSIZ - 1) + " bytes: " + name);
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment req = arena.allocate(ifreq.layout());
            req.fill((byte) 0);
            MemorySegment.copy(bytes, 0, req, JAVA_BYTE, NAME_OFFSET, bytes.length);
            req.set(JAVA_SHORT_UNALIGNED, FLAGS_OFFSET, (short) flags);
            Syscalls.ioctl(fd, Linux.TUNSETIFF, req, "TUNSETIFF " + name);
            return req.asSlice(NAME_OFFSET, Linux.IFNAMSIZ).getString(0, StandardCharsets.US_ASCII);
        }
    }

    /**
     * {@code ioctl(fd, TUNSETVNETHDRSZ, &size)}.
     *
     * @throws ErrnoException e.g. EINVAL for a size below {@link #VIRTIO_NET_HDR_SIZE}
     */
    public static void setVnetHdrSize(final int fd, final int size) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(JAVA_INT);
            v.set(JAVA_INT, 0, size);
            Syscalls.ioctl(fd, TUNSETVNETHDRSZ, v, "TUNSETVNETHDRSZ " + size);
        }
    }

    /**
     * {@code ioctl(fd, TUNSETOFFLOAD, flags)}: the argument is the flag word itself, passed in the pointer-sized
     * argument register (a zero-length segment at that "address" carries the value; it is never dereferenced).
     *
     * @param flags {@code TUN_F_*} bits
     * @throws ErrnoException EINVAL when the kernel refuses a bit (e.g. TSO without CSUM)
     */
    public static void setOffload(final int fd, final int flags) throws ErrnoException {
        Syscalls.ioctl(fd, TUNSETOFFLOAD, MemorySegment.ofAddress(Integer.toUnsignedLong(flags)),
                "TUNSETOFFLOAD 0x" + Integer.toHexString(flags));
    }
}
