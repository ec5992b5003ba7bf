package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
 * 40 bytes on x86_64).
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
}
