package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Locale;
import java.lang.foreign.ValueLayout;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.gen.bt_power;
import net.fips.ffm.linux.gen.linux_h;
import net.fips.ffm.linux.gen.sockaddr_l2;

/**
 * The Bluetooth LE L2CAP connection-oriented-channel socket recipe (transports.md §5.2) over the generated
 * {@code bluetooth/bluetooth.h} and {@code bluetooth/l2cap.h} bindings; no libbluetooth function is called.
 * <pre>{@code
 * struct sockaddr_l2 { sa_family_t l2_family; unsigned short l2_psm;   // little-endian
 *                      bdaddr_t l2_bdaddr;                             // 6 bytes, reversed printed order
 *                      unsigned short l2_cid; uint8_t l2_bdaddr_type; };   // 14 bytes
 * }</pre>
 * Addresses are passed around in printed order ({@code b[0]} = the first printed octet {@code AA} of
 * {@code AA:BB:CC:DD:EE:FF}); {@link #encode} reverses them into {@code l2_bdaddr} as the kernel wants.
 */
public final class L2cap {
    /** {@code AF_BLUETOOTH} (31). */
    public static final int AF_BLUETOOTH = linux_h.AF_BLUETOOTH();
    /** {@code BTPROTO_L2CAP} (0). */
    public static final int BTPROTO_L2CAP = linux_h.BTPROTO_L2CAP();
    /** {@code SOCK_SEQPACKET} (5). */
    public static final int SOCK_SEQPACKET = linux_h.SOCK_SEQPACKET();
    /** {@code SOL_BLUETOOTH} (274). */
    public static final int SOL_BLUETOOTH = linux_h.SOL_BLUETOOTH();
    /** {@code BT_SECURITY} (4). */
    public static final int BT_SECURITY = linux_h.BT_SECURITY();
    /** {@code BT_SECURITY_LOW} (1): the kernel default, kept (the Noise handshake above provides security). */
    public static final int BT_SECURITY_LOW = linux_h.BT_SECURITY_LOW();
    /** {@code BT_POWER} (9). */
    public static final int BT_POWER = linux_h.BT_POWER();
    /** {@code BT_POWER_FORCE_ACTIVE_ON} (1). */
    public static final int BT_POWER_FORCE_ACTIVE_ON = linux_h.BT_POWER_FORCE_ACTIVE_ON();
    /** {@code BT_SNDMTU} (12). */
    public static final int BT_SNDMTU = linux_h.BT_SNDMTU();
    /** {@code BT_RCVMTU} (13). */
    public static final int BT_RCVMTU = linux_h.BT_RCVMTU();
    /** {@code BDADDR_LE_PUBLIC} (1). */
    public static final int BDADDR_LE_PUBLIC = linux_h.BDADDR_LE_PUBLIC();
    /** {@code BDADDR_LE_RANDOM} (2). */
    public static final int BDADDR_LE_RANDOM = linux_h.BDADDR_LE_RANDOM();
    /** {@code sizeof(struct sockaddr_l2)} (14). */
    public static final int SOCKADDR_SIZE = (int) sockaddr_l2.sizeof();
    /** Bytes of a Bluetooth device address. */
    public static final int BDADDR_LEN = 6;

    private static final long PSM = sockaddr_l2.l2_psm$offset();
    private static final long BDADDR = sockaddr_l2.l2_bdaddr$offset();
    private static final long CID = sockaddr_l2.l2_cid$offset();
    private static final long TYPE = sockaddr_l2.l2_bdaddr_type$offset();
    private static final ValueLayout.OfShort U16_LE =
            JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private L2cap() {
    }

    /** Whether this kernel can make L2CAP sockets, and why not. */
    public enum Support {
        /** {@code socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)} worked. */
        AVAILABLE,
        /** EAFNOSUPPORT: the kernel has no Bluetooth (CONFIG_BT unset or the module not loaded). */
        NO_KERNEL_SUPPORT,
        /** EPERM/EACCES: Bluetooth exists but this process may not open L2CAP sockets (needs CAP_NET_RAW). */
        NOT_PERMITTED,
        /** Another error; see {@link Probe#errno()}. */
        OTHER_ERROR
    }

    /**
     * @param support what the probe found
     * @param errno   the socket call's errno, 0 when it worked
     */
    public record Probe(Support support, int errno) {
        /** @return one operator-facing sentence */
        public String describe() {
            return switch (support) {
                case AVAILABLE -> "L2CAP sockets available";
                case NO_KERNEL_SUPPORT -> "no Bluetooth on this host (AF_BLUETOOTH unsupported by the kernel)";
                case NOT_PERMITTED -> "L2CAP sockets not permitted (" + Errno.strerror(errno)
                        + "; run as root, in group bluetooth, or with CAP_NET_RAW)";
                case OTHER_ERROR -> "L2CAP socket failed: " + Errno.strerror(errno);
            };
        }
    }

    /**
     * Opens and closes one L2CAP socket to learn whether the kernel supports them; never throws for kernel errors.
     *
     * @return the outcome
     */
    public static Probe probe() {
        final int fd;
        try {
            fd = Syscalls.socket(AF_BLUETOOTH, SOCK_SEQPACKET | Linux.SOCK_CLOEXEC, BTPROTO_L2CAP);
        } catch (final ErrnoException e) {
            final int errno = e.errno();
            final Support s = errno == Errno.EAFNOSUPPORT ? Support.NO_KERNEL_SUPPORT
                    : errno == Errno.EPERM || errno == Errno.EACCES ? Support.NOT_PERMITTED : Support.OTHER_ERROR;
            return new Probe(s, errno);
        }
        Syscalls.closeQuietly(fd);
        return new Probe(Support.AVAILABLE, 0);
    }

    /**
     * Writes a {@code sockaddr_l2} at the start of {@code dst} (at least {@link #SOCKADDR_SIZE} bytes).
     *
     * @param psm     protocol/service multiplexer (0 for "any" when binding an outbound socket)
     * @param bdaddr  6 bytes in printed order (all zero for {@code BDADDR_ANY})
     * @param addrType {@link #BDADDR_LE_PUBLIC} or {@link #BDADDR_LE_RANDOM}
     * @return {@link #SOCKADDR_SIZE}, the length to pass to bind/connect
     */
    public static int encode(final MemorySegment dst, final int psm, final byte[] bdaddr, final int addrType) {
        if (bdaddr.length != BDADDR_LEN) {
            throw new IllegalArgumentException("a Bluetooth address has 6 bytes, got " + bdaddr.length);
        }
        if (psm < 0 || psm > 0xFFFF) {
            throw new IllegalArgumentException("PSM out of range: " + psm);
        }
        dst.asSlice(0, SOCKADDR_SIZE).fill((byte) 0);
        sockaddr_l2.l2_family(dst, (short) AF_BLUETOOTH);
        dst.set(U16_LE, PSM, (short) psm);
        for (int i = 0; i < BDADDR_LEN; i++) {
            dst.set(JAVA_BYTE, BDADDR + i, bdaddr[BDADDR_LEN - 1 - i]);
        }
        dst.set(U16_LE, CID, (short) 0);
        dst.set(JAVA_BYTE, TYPE, (byte) addrType);
        return SOCKADDR_SIZE;
    }

    /** @return the address in a {@code sockaddr_l2}, in printed order */
    public static byte[] decodeAddress(final MemorySegment src) {
        final byte[] out = new byte[BDADDR_LEN];
        for (int i = 0; i < BDADDR_LEN; i++) {
            out[i] = src.get(JAVA_BYTE, BDADDR + BDADDR_LEN - 1 - i);
        }
        return out;
    }

    /** @return the PSM in a {@code sockaddr_l2} */
    public static int decodePsm(final MemorySegment src) {
        return Short.toUnsignedInt(src.get(U16_LE, PSM));
    }

    /** @return the address type byte in a {@code sockaddr_l2} */
    public static int decodeAddressType(final MemorySegment src) {
        return Byte.toUnsignedInt(src.get(JAVA_BYTE, TYPE));
    }

    /**
     * Parses {@code AA:BB:CC:DD:EE:FF} (case-insensitive).
     *
     * @return 6 bytes in printed order
     * @throws IllegalArgumentException naming the text when it is not six colon-separated hex pairs
     */
    public static byte[] parseAddress(final String text) {
        if (text.length() != 17) {
            throw new IllegalArgumentException("expected a Bluetooth address AA:BB:CC:DD:EE:FF, got \"" + text + "\"");
        }
        final byte[] out = new byte[BDADDR_LEN];
        for (int i = 0; i < BDADDR_LEN; i++) {
            if (i > 0 && text.charAt(i * 3 - 1) != ':') {
                throw new IllegalArgumentException("expected a Bluetooth address AA:BB:CC:DD:EE:FF, got \"" + text
                        + "\"");
            }
            final int hi = Character.digit(text.charAt(i * 3), 16);
            final int lo = Character.digit(text.charAt(i * 3 + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("expected a Bluetooth address AA:BB:CC:DD:EE:FF, got \"" + text
                        + "\"");
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }

    /** @return {@code AA:BB:CC:DD:EE:FF}, uppercase */
    public static String formatAddress(final byte[] bdaddr) {
        final String hex = HexFormat.of().formatHex(bdaddr).toUpperCase(Locale.ROOT);
        final StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < hex.length(); i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 2);
        }
        return sb.toString();
    }

    /**
     * Opens a non-blocking, close-on-exec L2CAP SOCK_SEQPACKET socket.
     *
     * @throws ErrnoException EAFNOSUPPORT without kernel Bluetooth
     */
    public static int openSocket() throws ErrnoException {
        return Syscalls.socket(AF_BLUETOOTH, SOCK_SEQPACKET | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                BTPROTO_L2CAP);
    }

    /**
     * Binds {@code fd} to {@code (bdaddr, psm, type)}.
     *
     * @throws ErrnoException naming the address
     */
    public static void bind(final int fd, final int psm, final byte[] bdaddr, final int addrType)
            throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(SOCKADDR_SIZE, 2);
            final int len = encode(sa, psm, bdaddr, addrType);
            Syscalls.bind(fd, sa, len, formatAddress(bdaddr) + " psm 0x" + Integer.toHexString(psm));
        }
    }

    /**
     * Starts a connect; a non-blocking socket answers EINPROGRESS, returned as {@code false}.
     *
     * @return {@code true} when connected at once
     * @throws ErrnoException naming the peer
     */
    public static boolean connect(final int fd, final int psm, final byte[] bdaddr, final int addrType)
            throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(SOCKADDR_SIZE, 2);
            final int len = encode(sa, psm, bdaddr, addrType);
            return Syscalls.connect(fd, sa, len, formatAddress(bdaddr) + " psm 0x" + Integer.toHexString(psm));
        }
    }

    /**
     * {@code setsockopt(SOL_BLUETOOTH, BT_RCVMTU, u16)}: the receive MTU to offer in the CoC negotiation.
     *
     * @throws ErrnoException naming the value
     */
    public static void setRecvMtu(final int fd, final int mtu) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(2, 2);
            v.set(ValueLayout.JAVA_SHORT, 0, (short) mtu);
            Syscalls.setsockopt(fd, SOL_BLUETOOTH, BT_RCVMTU, v, "BT_RCVMTU=" + mtu);
        }
    }

    /**
     * {@code setsockopt(SOL_BLUETOOTH, BT_POWER, {force_active = 1})}: stay out of sniff mode. Failure is
     * tolerated (transports.md §5.2).
     *
     * @return 0, or {@code -errno}
     */
    public static int forceActive(final int fd) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(bt_power.layout());
            bt_power.force_active(v, (byte) BT_POWER_FORCE_ACTIVE_ON);
            return Syscalls.setsockoptRaw(fd, SOL_BLUETOOTH, BT_POWER, v);
        }
    }

    /**
     * Reads a {@code u16} Bluetooth socket option ({@link #BT_SNDMTU} or {@link #BT_RCVMTU}).
     *
     * @return the value, or {@code -errno}
     */
    public static int mtuOption(final int fd, final int option) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocate(2, 2);
            final int rc = Syscalls.getsockoptRaw(fd, SOL_BLUETOOTH, option, v);
            return rc < 0 ? rc : Short.toUnsignedInt(v.get(ValueLayout.JAVA_SHORT, 0));
        }
    }
}
