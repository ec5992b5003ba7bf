package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.gen.fib_rule_hdr;
import net.fips.ffm.linux.gen.ifaddrmsg;
import net.fips.ffm.linux.gen.ifinfomsg;
import net.fips.ffm.linux.gen.linux_h;
import net.fips.ffm.linux.gen.nlmsgerr;
import net.fips.ffm.linux.gen.nlmsghdr;
import net.fips.ffm.linux.gen.rtattr;
import net.fips.ffm.linux.gen.rtmsg;

/**
 * A minimal rtnetlink client ({@code AF_NETLINK}/{@code NETLINK_ROUTE}) for configuring one interface: delete a
 * link, add an address, set the MTU, bring a link up, add a route and a policy rule. Every request carries
 * {@code NLM_F_ACK} and waits for the kernel's {@code NLMSG_ERROR} answer; a non-zero answer becomes an
 * {@link ErrnoException} whose {@link ErrnoException#syscall()} is the message type (e.g. {@code "RTM_NEWADDR"})
 * and whose text names what the request acted on.
 *
 * <p>Message layout (transports.md §7.2): {@code nlmsghdr} (16 bytes) + the type's fixed header
 * ({@code ifinfomsg}, {@code ifaddrmsg}, {@code rtmsg}, {@code fib_rule_hdr}) + {@code rtattr}s, each padded to
 * 4 bytes, all in host byte order. The socket is non-blocking; an answer that does not come within
 * {@link #ACK_TIMEOUT_MS} fails the request with {@code ETIMEDOUT}.
 *
 * <p>Control path only (it allocates a little per request). Not thread-safe: one owner at a time.
 */
public final class RtNetlink implements AutoCloseable {
    /** How long a request waits for its acknowledgement. */
    public static final int ACK_TIMEOUT_MS = 2000;

    /** {@code RTM_NEWLINK}. */
    public static final int RTM_NEWLINK = linux_h.RTM_NEWLINK();
    /** {@code RTM_DELLINK}. */
    public static final int RTM_DELLINK = linux_h.RTM_DELLINK();
    /** {@code RTM_NEWADDR}. */
    public static final int RTM_NEWADDR = linux_h.RTM_NEWADDR();
    /** {@code RTM_NEWROUTE}. */
    public static final int RTM_NEWROUTE = linux_h.RTM_NEWROUTE();
    /** {@code RTM_NEWRULE}. */
    public static final int RTM_NEWRULE = linux_h.RTM_NEWRULE();
    /** {@code RTM_DELRULE}. */
    public static final int RTM_DELRULE = linux_h.RTM_DELRULE();
    /** {@code RT_TABLE_MAIN}. */
    public static final int RT_TABLE_MAIN = linux_h.RT_TABLE_MAIN();

    private static final int NETLINK_ROUTE = linux_h.NETLINK_ROUTE();
    private static final int NLMSG_ERROR = linux_h.NLMSG_ERROR();
    private static final int NLM_F_REQUEST = linux_h.NLM_F_REQUEST();
    private static final int NLM_F_ACK = linux_h.NLM_F_ACK();
    private static final int NLM_F_CREATE = linux_h.NLM_F_CREATE();
    private static final int NLM_F_EXCL = linux_h.NLM_F_EXCL();
    private static final int IFLA_MTU = linux_h.IFLA_MTU();
    private static final int IFA_LOCAL = linux_h.IFA_LOCAL();
    private static final int IFA_ADDRESS = linux_h.IFA_ADDRESS();
    private static final int RTA_DST = linux_h.RTA_DST();
    private static final int RTA_OIF = linux_h.RTA_OIF();
    private static final int FRA_DST = linux_h.FRA_DST();
    private static final int FRA_PRIORITY = linux_h.FRA_PRIORITY();
    private static final int FRA_TABLE = linux_h.FRA_TABLE();
    private static final int IFF_UP = linux_h.IFF_UP();
    private static final int RTPROT_STATIC = linux_h.RTPROT_STATIC();
    private static final int RT_SCOPE_UNIVERSE = linux_h.RT_SCOPE_UNIVERSE();
    private static final int RTN_UNICAST = linux_h.RTN_UNICAST();
    private static final int FR_ACT_TO_TBL = linux_h.FR_ACT_TO_TBL();

    private static final int HDR = (int) nlmsghdr.sizeof();
    private static final int RTA_HDR = (int) rtattr.sizeof();
    private static final int SEND_BYTES = 1024;
    private static final int RECV_BYTES = 16384;

    private final int fd;
    private final Arena arena;
    private final MemorySegment out;
    private final MemorySegment in;
    private final CallState cs;
    private final PollFds pfd;
    private int seq;
    private int length;
    private boolean closed;

    /** For tests: any datagram descriptor standing in for the netlink socket. */
    RtNetlink(final int fd, final Arena arena) {
        this.fd = fd;
        this.arena = arena;
        this.out = arena.allocate(SEND_BYTES, 8);
        this.in = arena.allocate(RECV_BYTES, 8);
        this.cs = CallState.allocate(arena);
        this.pfd = new PollFds(arena, 1);
    }

    /**
     * Opens a non-blocking {@code NETLINK_ROUTE} socket (the kernel binds it on the first send).
     *
     * @throws ErrnoException if the socket cannot be made
     */
    public static RtNetlink open() throws ErrnoException {
        final int fd = Syscalls.socket(linux_h.AF_NETLINK(),
                linux_h.SOCK_RAW() | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC, NETLINK_ROUTE);
        return new RtNetlink(fd, Arena.ofShared());
    }

    /**
     * @param name an interface name
     * @return its index, or 0 when no interface has that name
     * @throws ErrnoException for failures other than "no such device"
     */
    public static int linkIndex(final String name) throws ErrnoException {
        try {
            return Syscalls.ifNameToIndex(name);
        } catch (final ErrnoException e) {
            if (e.errno() == Errno.ENODEV || e.errno() == Errno.ENXIO) {
                return 0;
            }
            throw e;
        }
    }

    /**
     * {@code RTM_DELLINK} for an interface.
     *
     * @param what the interface, for the error text
     */
    public void deleteLink(final int index, final String what) throws ErrnoException {
        begin(RTM_DELLINK, 0, (int) ifinfomsg.sizeof());
        out.set(JAVA_INT_UNALIGNED, HDR + ifinfomsg.ifi_index$offset(), index);
        transact("RTM_DELLINK", what);
    }

    /**
     * {@code RTM_NEWADDR} with {@code IFA_LOCAL} and {@code IFA_ADDRESS} set to {@code address}
     * (create, exclusive: an existing identical address is EEXIST).
     *
     * @param address   4 bytes (IPv4) or 16 bytes (IPv6), network order
     * @param prefixLen e.g. 128
     * @param what      the address and interface, for the error text
     */
    public void addAddress(final int index, final byte[] address, final int prefixLen, final String what)
            throws ErrnoException {
        begin(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, (int) ifaddrmsg.sizeof());
        out.set(JAVA_BYTE, HDR + ifaddrmsg.ifa_family$offset(), (byte) family(address));
        out.set(JAVA_BYTE, HDR + ifaddrmsg.ifa_prefixlen$offset(), (byte) prefixLen);
        out.set(JAVA_INT_UNALIGNED, HDR + ifaddrmsg.ifa_index$offset(), index);
        attribute(IFA_LOCAL, address);
        attribute(IFA_ADDRESS, address);
        transact("RTM_NEWADDR", what);
    }

    /**
     * {@code RTM_NEWLINK} with {@code IFLA_MTU}.
     *
     * @param what the interface, for the error text
     */
    public void setMtu(final int index, final int mtu, final String what) throws ErrnoException {
        begin(RTM_NEWLINK, 0, (int) ifinfomsg.sizeof());
        out.set(JAVA_INT_UNALIGNED, HDR + ifinfomsg.ifi_index$offset(), index);
        attributeInt(IFLA_MTU, mtu);
        transact("RTM_NEWLINK", what);
    }

    /**
     * {@code RTM_NEWLINK} with {@code ifi_flags = ifi_change = IFF_UP}.
     *
     * @param what the interface, for the error text
     */
    public void setUp(final int index, final String what) throws ErrnoException {
        begin(RTM_NEWLINK, 0, (int) ifinfomsg.sizeof());
        out.set(JAVA_INT_UNALIGNED, HDR + ifinfomsg.ifi_index$offset(), index);
        out.set(JAVA_INT_UNALIGNED, HDR + ifinfomsg.ifi_flags$offset(), IFF_UP);
        out.set(JAVA_INT_UNALIGNED, HDR + ifinfomsg.ifi_change$offset(), IFF_UP);
        transact("RTM_NEWLINK", what);
    }

    /**
     * {@code RTM_NEWROUTE}: {@code dst/dstLen dev index}, main table, {@code RTPROT_STATIC}, universe scope,
     * unicast (create, exclusive).
     *
     * @param dst  4 or 16 bytes, network order
     * @param what the route, for the error text
     */
    public void addRoute(final int index, final byte[] dst, final int dstLen, final String what)
            throws ErrnoException {
        begin(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, (int) rtmsg.sizeof());
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_family$offset(), (byte) family(dst));
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_dst_len$offset(), (byte) dstLen);
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_table$offset(), (byte) RT_TABLE_MAIN);
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_protocol$offset(), (byte) RTPROT_STATIC);
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_scope$offset(), (byte) RT_SCOPE_UNIVERSE);
        out.set(JAVA_BYTE, HDR + rtmsg.rtm_type$offset(), (byte) RTN_UNICAST);
        attribute(RTA_DST, dst);
        attributeInt(RTA_OIF, index);
        transact("RTM_NEWROUTE", what);
    }

    /**
     * {@code RTM_NEWRULE}: {@code to dst/dstLen lookup table priority priority} (create, exclusive).
     *
     * @param what the rule, for the error text
     * @throws ErrnoException EEXIST when the same rule is already there
     */
    public void addRule(final byte[] dst, final int dstLen, final int priority, final int table,
                        final String what) throws ErrnoException {
        rule(RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, dst, dstLen, priority, table);
        transact("RTM_NEWRULE", what);
    }

    /**
     * {@code RTM_DELRULE} with the same body as {@link #addRule}.
     *
     * @param what the rule, for the error text
     */
    public void deleteRule(final byte[] dst, final int dstLen, final int priority, final int table,
                           final String what) throws ErrnoException {
        rule(RTM_DELRULE, 0, dst, dstLen, priority, table);
        transact("RTM_DELRULE", what);
    }

    private void rule(final int type, final int flags, final byte[] dst, final int dstLen, final int priority,
                      final int table) {
        begin(type, flags, (int) fib_rule_hdr.sizeof());
        out.set(JAVA_BYTE, HDR + fib_rule_hdr.family$offset(), (byte) family(dst));
        out.set(JAVA_BYTE, HDR + fib_rule_hdr.dst_len$offset(), (byte) dstLen);
        out.set(JAVA_BYTE, HDR + fib_rule_hdr.table$offset(), (byte) (table < 256 ? table : 0));
        out.set(JAVA_BYTE, HDR + fib_rule_hdr.action$offset(), (byte) FR_ACT_TO_TBL);
        attribute(FRA_DST, dst);
        attributeInt(FRA_PRIORITY, priority);
        attributeInt(FRA_TABLE, table);
    }

    private static int family(final byte[] address) {
        return switch (address.length) {
            case 4 -> Linux.AF_INET;
            case 16 -> Linux.AF_INET6;
            default -> throw new IllegalArgumentException("address must be 4 or 16 bytes, not " + address.length);
        };
    }

    // ---------------------------------------------------------------- message building

    private void begin(final int type, final int flags, final int fixedHeaderBytes) {
        if (closed) {
            throw new IllegalStateException("rtnetlink socket closed");
        }
        length = HDR + fixedHeaderBytes;
        out.asSlice(0, length).fill((byte) 0);
        out.set(JAVA_SHORT_UNALIGNED, nlmsghdr.nlmsg_type$offset(), (short) type);
        out.set(JAVA_SHORT_UNALIGNED, nlmsghdr.nlmsg_flags$offset(), (short) (NLM_F_REQUEST | NLM_F_ACK | flags));
        out.set(JAVA_INT_UNALIGNED, nlmsghdr.nlmsg_seq$offset(), ++seq);
    }

    private void attribute(final int type, final byte[] payload) {
        final int attrLen = RTA_HDR + payload.length;
        out.set(JAVA_SHORT_UNALIGNED, length, (short) attrLen);
        out.set(JAVA_SHORT_UNALIGNED, length + 2, (short) type);
        MemorySegment.copy(payload, 0, out, JAVA_BYTE, length + RTA_HDR, payload.length);
        final int padded = align4(attrLen);
        out.asSlice(length + attrLen, padded - attrLen).fill((byte) 0);
        length += padded;
    }

    private void attributeInt(final int type, final int value) {
        out.set(JAVA_SHORT_UNALIGNED, length, (short) (RTA_HDR + Integer.BYTES));
        out.set(JAVA_SHORT_UNALIGNED, length + 2, (short) type);
        out.set(JAVA_INT_UNALIGNED, length + RTA_HDR, value);
        length += RTA_HDR + Integer.BYTES;
    }

    private static int align4(final int n) {
        return (n + 3) & ~3;
    }

    // ---------------------------------------------------------------- send + ack

    private void transact(final String op, final String what) throws ErrnoException {
        out.set(JAVA_INT_UNALIGNED, nlmsghdr.nlmsg_len$offset(), length);
        final long sent = Syscalls.write(cs, fd, out, length);
        if (sent < 0) {
            throw Errno.exception(op, (int) -sent, what);
        }
        final int expect = seq;
        while (true) {
            final long n = Syscalls.read(cs, fd, in, RECV_BYTES);
            if (n == Errno.EINTR_NEGATIVE) {
                continue;
            }
            if (n == Errno.EAGAIN_NEGATIVE) {
                pfd.set(0, fd, Linux.POLLIN);
                final int ready = pfd.poll(cs, ACK_TIMEOUT_MS);
                if (ready == 0) {
                    throw Errno.exception(op, Errno.ETIMEDOUT, what + " (no netlink acknowledgement within "
                            + ACK_TIMEOUT_MS + " ms)");
                }
                if (ready < 0 && ready != Errno.EINTR_NEGATIVE) {
                    throw Errno.exception(op, -ready, what + " (polling for the netlink answer)");
                }
                continue;
            }
            if (n < 0) {
                throw Errno.exception(op, (int) -n, what + " (reading the netlink answer)");
            }
            final int answer = findAck(n, expect);
            if (answer == 0) {
                return;
            }
            if (answer < 0) {
                throw Errno.exception(op, -answer, what);
            }
            // answer > 0: nothing for this request in the datagram; read on.
        }
    }

    /** @return 0 for an ack of {@code expect}, {@code -errno} for its error, 1 when the datagram had neither */
    private int findAck(final long n, final int expect) {
        long off = 0;
        while (off + HDR <= n) {
            final int len = in.get(JAVA_INT_UNALIGNED, off + nlmsghdr.nlmsg_len$offset());
            final int type = in.get(JAVA_SHORT_UNALIGNED, off + nlmsghdr.nlmsg_type$offset()) & 0xFFFF;
            final int s = in.get(JAVA_INT_UNALIGNED, off + nlmsghdr.nlmsg_seq$offset());
            if (len < HDR || off + len > n) {
                return 1;
            }
            if (type == NLMSG_ERROR && s == expect && len >= HDR + Integer.BYTES) {
                final int error = in.get(JAVA_INT_UNALIGNED, off + HDR + nlmsgerr.error$offset());
                return error >= 0 ? 0 : error;
            }
            off += align4(len);
        }
        return 1;
    }

    /** Closes the socket. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Syscalls.close(fd);
        } catch (final ErrnoException ignored) {
            // Nothing useful to do: the descriptor is gone either way.
        }
        arena.close();
    }
}
