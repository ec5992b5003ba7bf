package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.testing.Hex;

/**
 * The bytes {@link RtNetlink} puts on the socket (transports.md §7.2) and how it reads acknowledgements, with a
 * connected loopback UDP pair standing in for the kernel: the "kernel" side queues its answers before the request
 * is made (the real kernel answers inside the send, so the same order), then reads the request. Plus the real
 * kernel's answer for an interface index that does not exist. No root needed, nothing is configured.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RtNetlinkTest {
    private static final byte[] FD_ADDR = HexFormat.of().parseHex("fd5e1f00aa0122334455667788990011");
    private static final byte[] FD00 = HexFormat.of().parseHex("fd000000000000000000000000000000");

    private Arena arena;
    private int client;
    private int kernel;
    private RtNetlink nl;
    private MemorySegment buf;
    private CallState cs;

    @BeforeEach
    void pair() throws Exception {
        arena = Arena.ofConfined();
        buf = arena.allocate(4096, 8);
        cs = CallState.allocate(arena);
        final MemorySegment a = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
        final MemorySegment b = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
        client = bound(a);
        kernel = bound(b);
        Syscalls.connect(client, b, SockAddrs.IN_SIZE, "kernel side");
        Syscalls.connect(kernel, a, SockAddrs.IN_SIZE, "client side");
        nl = new RtNetlink(client, Arena.ofShared());
    }

    private static int bound(final MemorySegment addr) throws Exception {
        final int fd = Syscalls.socket(Linux.AF_INET, Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                Linux.IPPROTO_UDP);
        final int len = SockAddrs.encode(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), addr, false);
        Syscalls.bind(fd, addr, len, "127.0.0.1:0");
        Syscalls.getsockname(fd, addr);
        return fd;
    }

    @AfterEach
    void close() throws Exception {
        nl.close();   // closes client
        Syscalls.close(kernel);
        arena.close();
    }

    /** Queues an NLMSG_ERROR answer (error 0 = ack) for request {@code seq}. */
    private void answer(final int seq, final int error) {
        final MemorySegment m = arena.allocate(36, 8);
        m.set(JAVA_INT_UNALIGNED, 0, 36);
        m.set(JAVA_SHORT_UNALIGNED, 4, (short) 2);       // NLMSG_ERROR
        m.set(JAVA_INT_UNALIGNED, 8, seq);
        m.set(JAVA_INT_UNALIGNED, 16, error);            // then the 16-byte header of the request (not read)
        assertEquals(36, Syscalls.write(cs, kernel, m, 36));
    }

    /** @return the request the client sent */
    private byte[] request() {
        final long n = Syscalls.read(cs, kernel, buf, buf.byteSize());
        assertTrue(n > 0, "no request: " + n);
        return buf.asSlice(0, n).toArray(JAVA_BYTE);
    }

    @Test
    void addAddressIsTheSpecsMessage() throws Exception {
        answer(1, 0);
        nl.addAddress(7, FD_ADDR, 128, "test");
        final byte[] r = request();
        // nlmsghdr{len 64, RTM_NEWADDR 20, REQUEST|ACK|EXCL|CREATE 0x605, seq 1, pid 0}
        // ifaddrmsg{AF_INET6 10, prefixlen 128, flags 0, scope 0, index 7}
        // IFA_LOCAL (2) 16-byte address, IFA_ADDRESS (1) 16-byte address
        assertEquals("40000000" + "1400" + "0506" + "01000000" + "00000000"
                + "0a800000" + "07000000"
                + "1400" + "0200" + Hex.of(FD_ADDR)
                + "1400" + "0100" + Hex.of(FD_ADDR), Hex.of(r));
    }

    @Test
    void linkMessagesAreTheSpecs() throws Exception {
        answer(1, 0);
        answer(2, 0);
        answer(3, 0);
        nl.setMtu(9, 1280, "mtu");
        // RTM_NEWLINK 16, REQUEST|ACK, ifinfomsg{family 0, type 0, index 9, flags 0, change 0}, IFLA_MTU (4) u32
        assertEquals("28000000" + "1000" + "0500" + "01000000" + "00000000"
                + "00000000" + "09000000" + "00000000" + "00000000"
                + "0800" + "0400" + "00050000", Hex.of(request()));
        nl.setUp(9, "up");
        // flags = change = IFF_UP
        assertEquals("20000000" + "1000" + "0500" + "02000000" + "00000000"
                + "00000000" + "09000000" + "01000000" + "01000000", Hex.of(request()));
        nl.deleteLink(9, "del");
        assertEquals("20000000" + "1100" + "0500" + "03000000" + "00000000"
                + "00000000" + "09000000" + "00000000" + "00000000", Hex.of(request()));
    }

    @Test
    void routeAndRuleAreTheSpecs() throws Exception {
        answer(1, 0);
        answer(2, 0);
        nl.addRoute(9, FD00, 8, "route");
        // RTM_NEWROUTE 24, 0x605; rtmsg{10, dst_len 8, 0, 0, table 254, RTPROT_STATIC 4, universe 0, unicast 1,
        // flags 0}; RTA_DST (1) fd00::, RTA_OIF (4) u32 9
        assertEquals("38000000" + "1800" + "0506" + "01000000" + "00000000"
                + "0a080000" + "fe040001" + "00000000"
                + "1400" + "0100" + Hex.of(FD00)
                + "0800" + "0400" + "09000000", Hex.of(request()));
        nl.addRule(FD00, 8, 5265, RtNetlink.RT_TABLE_MAIN, "rule");
        // RTM_NEWRULE 32; fib_rule_hdr{10, dst_len 8, 0, 0, table 254, 0, 0, FR_ACT_TO_TBL 1, flags 0};
        // FRA_DST (1), FRA_PRIORITY (6) 5265, FRA_TABLE (15) 254
        assertEquals("40000000" + "2000" + "0506" + "02000000" + "00000000"
                + "0a080000" + "fe000001" + "00000000"
                + "1400" + "0100" + Hex.of(FD00)
                + "0800" + "0600" + "91140000"
                + "0800" + "0f00" + "fe000000", Hex.of(request()));
    }

    @Test
    void errorAnswerBecomesErrnoExceptionNamingTheRequest() throws Exception {
        answer(1, -Errno.EEXIST);
        final ErrnoException e = assertThrows(ErrnoException.class,
                () -> nl.addRoute(3, FD00, 8, "fd00::/8 dev fips0"));
        assertEquals(Errno.EEXIST, e.errno());
        assertEquals("RTM_NEWROUTE", e.syscall());
        assertTrue(e.getMessage().contains("fd00::/8 dev fips0"), e.getMessage());
    }

    @Test
    void answersToOtherRequestsAreSkipped() throws Exception {
        answer(77, -Errno.EPERM);   // stale: not ours
        answer(1, 0);
        nl.setUp(3, "up");
        request();
    }

    @Test
    void noAnswerIsATimeout() {
        final ErrnoException e = assertThrows(ErrnoException.class, () -> nl.setUp(3, "dev x up"));
        assertEquals(Errno.ETIMEDOUT, e.errno());
        assertTrue(e.getMessage().contains("no netlink acknowledgement"), e.getMessage());
    }

    @Test
    void realKernelRefusesAnIndexThatDoesNotExist() throws Exception {
        try (RtNetlink real = RtNetlink.open()) {
            final ErrnoException e = assertThrows(ErrnoException.class,
                    () -> real.setMtu(0x7ffffff0, 1280, "dev #2147483632"));
            assertEquals("RTM_NEWLINK", e.syscall());
            // Root: no such device. Without CAP_NET_ADMIN the kernel refuses before looking.
            assertTrue(e.errno() == Errno.ENODEV || e.errno() == Errno.EPERM, e.getMessage());
            assertTrue(e.getMessage().contains("dev #2147483632"), e.getMessage());
        }
        assertEquals(0, RtNetlink.linkIndex("nosuchif" + (System.identityHashCode(this) % 1000)));
        assertTrue(RtNetlink.linkIndex("lo") > 0);
    }
}
