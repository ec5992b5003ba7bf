package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import net.fips.ffm.NetOrder;
import net.fips.ffm.linux.gen.linux_h;
import net.fips.ffm.linux.gen.sockaddr_in;
import net.fips.ffm.linux.gen.sockaddr_in6;
import net.fips.ffm.linux.gen.sockaddr_storage;

/**
 * Codec between {@link InetSocketAddress} and {@code sockaddr_in} / {@code sockaddr_in6} in caller-provided
 * (preallocated) native memory.
 * <pre>{@code
 * struct sockaddr_in  { sa_family_t sin_family; in_port_t sin_port; struct in_addr sin_addr; char sin_zero[8]; };
 * struct sockaddr_in6 { sa_family_t sin6_family; in_port_t sin6_port; uint32_t sin6_flowinfo;
 *                       struct in6_addr sin6_addr; uint32_t sin6_scope_id; };
 * }</pre>
 * Ports and addresses are network order. On an AF_INET6 socket an IPv4 destination must be written as the
 * IPv4-mapped {@code ::ffff:a.b.c.d} (the kernel rejects AF_INET there); received mapped addresses are decoded back
 * to {@link Inet4Address} so configured and observed addresses compare equal. Scope ids are preserved.
 */
public final class SockAddrs {
    /** {@code AF_INET}. */
    public static final int AF_INET = linux_h.AF_INET();
    /** {@code AF_INET6}. */
    public static final int AF_INET6 = linux_h.AF_INET6();
    /** {@code sizeof(struct sockaddr_in)} (16). */
    public static final int IN_SIZE = (int) sockaddr_in.sizeof();
    /** {@code sizeof(struct sockaddr_in6)} (28). */
    public static final int IN6_SIZE = (int) sockaddr_in6.sizeof();
    /** {@code sizeof(struct sockaddr_storage)} (128): enough for any address. */
    public static final int STORAGE_SIZE = (int) sockaddr_storage.sizeof();

    private static final long IN_PORT = sockaddr_in.sin_port$offset();
    private static final long IN_ADDR = sockaddr_in.sin_addr$offset();
    private static final long IN6_PORT = sockaddr_in6.sin6_port$offset();
    private static final long IN6_ADDR = sockaddr_in6.sin6_addr$offset();
    private static final long IN6_SCOPE = sockaddr_in6.sin6_scope_id$offset();

    private SockAddrs() {
    }

    /**
     * Encodes {@code address} at the start of {@code dst}.
     *
     * @param ipv6Socket whether the socket is AF_INET6 (IPv4 addresses are then written IPv4-mapped)
     * @return the address length to pass to the kernel
     * @throws SockAddrException if the address is unresolved, or IPv6 for an IPv4 socket
     */
    public static int encode(final InetSocketAddress address, final MemorySegment dst, final boolean ipv6Socket)
            throws SockAddrException {
        final InetAddress ip = address.getAddress();
        if (address.isUnresolved() || ip == null) {
            throw new SockAddrException("address " + address.getHostString() + ":" + address.getPort()
                    + " is not resolved to an IP address");
        }
        final int port = address.getPort();
        if (ip instanceof Inet4Address && !ipv6Socket) {
            dst.asSlice(0, IN_SIZE).fill((byte) 0);
            dst.set(JAVA_SHORT_UNALIGNED, 0, (short) AF_INET);
            dst.set(NetOrder.U16_BE, IN_PORT, (short) port);
            MemorySegment.copy(ip.getAddress(), 0, dst, JAVA_BYTE, IN_ADDR, 4);
            return IN_SIZE;
        }
        if (!ipv6Socket) {
            throw new SockAddrException("IPv6 address " + address + " cannot be used on an IPv4 socket");
        }
        dst.asSlice(0, IN6_SIZE).fill((byte) 0);
        dst.set(JAVA_SHORT_UNALIGNED, 0, (short) AF_INET6);
        dst.set(NetOrder.U16_BE, IN6_PORT, (short) port);
        if (ip instanceof Inet4Address) {
            dst.set(JAVA_BYTE, IN6_ADDR + 10, (byte) 0xFF);
            dst.set(JAVA_BYTE, IN6_ADDR + 11, (byte) 0xFF);
            MemorySegment.copy(ip.getAddress(), 0, dst, JAVA_BYTE, IN6_ADDR + 12, 4);
        } else {
            final Inet6Address v6 = (Inet6Address) ip;
            MemorySegment.copy(v6.getAddress(), 0, dst, JAVA_BYTE, IN6_ADDR, 16);
            dst.set(JAVA_INT_UNALIGNED, IN6_SCOPE, v6.getScopeId());
        }
        return IN6_SIZE;
    }

    /**
     * Decodes a kernel-written address.
     *
     * @param len the address length the kernel reported
     * @return the socket address; IPv4-mapped IPv6 addresses come back as IPv4
     * @throws SockAddrException for an unknown family or a length too short for it
     */
    public static InetSocketAddress decode(final MemorySegment src, final int len) throws SockAddrException {
        if (len < 2 || src.byteSize() < len) {
            throw new SockAddrException("socket address of " + len + " bytes is too short");
        }
        final int family = family(src);
        try {
            if (family == AF_INET) {
                if (len < IN_SIZE - 8) {
                    throw new SockAddrException("AF_INET address of " + len + " bytes is too short");
                }
                final byte[] b = new byte[4];
                MemorySegment.copy(src, JAVA_BYTE, IN_ADDR, b, 0, 4);
                return new InetSocketAddress(InetAddress.getByAddress(b), port(src));
            }
            if (family == AF_INET6) {
                if (len < IN6_SIZE) {
                    throw new SockAddrException("AF_INET6 address of " + len + " bytes is too short");
                }
                final byte[] b = new byte[16];
                MemorySegment.copy(src, JAVA_BYTE, IN6_ADDR, b, 0, 16);
                final int port = port(src);
                if (isV4Mapped(b)) {
                    final byte[] v4 = {b[12], b[13], b[14], b[15]};
                    return new InetSocketAddress(InetAddress.getByAddress(v4), port);
                }
                final int scope = src.get(JAVA_INT_UNALIGNED, IN6_SCOPE);
                return new InetSocketAddress(scope == 0
                        ? InetAddress.getByAddress(b) : Inet6Address.getByAddress(null, b, scope), port);
            }
        } catch (final UnknownHostException e) {
            // getByAddress only throws for a wrong array length, which the checks above rule out.
            throw new SockAddrException("malformed address: " + e.getMessage());
        }
        throw new SockAddrException("unsupported address family " + family);
    }

    /** @return the {@code sa_family} of the address at the start of {@code src} */
    public static int family(final MemorySegment src) {
        return src.get(JAVA_SHORT_UNALIGNED, 0) & 0xFFFF;
    }

    /** @return the host-order port of an AF_INET or AF_INET6 address (same offset in both) */
    public static int port(final MemorySegment src) {
        return src.get(NetOrder.U16_BE, IN_PORT) & 0xFFFF;
    }

    /**
     * Compares two encoded addresses the way the kernel would route to them (family, port, address and, for
     * IPv6, scope id; IPv6 flow info is ignored). Allocation-free, for grouping packets by destination.
     */
    public static boolean sameEndpoint(final MemorySegment a, final int aLen, final MemorySegment b, final int bLen) {
        if (aLen < 2 || bLen < 2 || family(a) != family(b)) {
            return false;
        }
        final int family = family(a);
        if (family == AF_INET && aLen >= 8 && bLen >= 8) {
            return a.get(JAVA_INT_UNALIGNED, 0) == b.get(JAVA_INT_UNALIGNED, 0)
                    && a.get(JAVA_INT_UNALIGNED, IN_ADDR) == b.get(JAVA_INT_UNALIGNED, IN_ADDR);
        }
        if (family == AF_INET6 && aLen >= IN6_SIZE && bLen >= IN6_SIZE) {
            return a.get(JAVA_INT_UNALIGNED, 0) == b.get(JAVA_INT_UNALIGNED, 0)
                    && MemorySegment.mismatch(a, IN6_ADDR, IN6_ADDR + 16, b, IN6_ADDR, IN6_ADDR + 16) == -1
                    && a.get(JAVA_INT_UNALIGNED, IN6_SCOPE) == b.get(JAVA_INT_UNALIGNED, IN6_SCOPE);
        }
        return aLen == bLen && MemorySegment.mismatch(a, 0, aLen, b, 0, bLen) == -1;
    }

    private static boolean isV4Mapped(final byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
    }
}
