package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import net.fips.ffm.Errno;

/**
 * Finds out, on loopback, whether this kernel accepts UDP GSO ({@code UDP_SEGMENT} cmsg on sendmsg, verified by
 * the receiver seeing the individual segments) and UDP GRO ({@code setsockopt(SOL_UDP, UDP_GRO)}). Never throws:
 * every failure becomes a "no" with the reason.
 */
public final class UdpOffloadProbe {
    private static final int SEGMENT = 64;
    private static final int TAIL = 24;
    private static final int POLL_MS = 1000;

    /**
     * What the probe found.
     *
     * @param gso       whether a GSO train was sent and arrived split into its segments
     * @param gsoReason why not, or what was observed
     * @param gro       whether the kernel accepted {@code UDP_GRO}
     * @param groReason why not, or what was observed
     */
    public record Result(boolean gso, String gsoReason, boolean gro, String groReason) {
    }

    private UdpOffloadProbe() {
    }

    /** @return the probe's findings; never throws */
    public static Result probe() {
        if (!Syscalls.isAvailable()) {
            final String why = "native access unavailable: " + Syscalls.unavailabilityCause();
            return new Result(false, why, false, why);
        }
        boolean gso;
        String gsoReason;
        try {
            gsoReason = probeGso();
            gso = gsoReason.startsWith("ok");
        } catch (final Throwable t) {
            gso = false;
            gsoReason = "probe failed: " + t;
        }
        boolean gro;
        String groReason;
        try {
            groReason = probeGro();
            gro = groReason.startsWith("ok");
        } catch (final Throwable t) {
            gro = false;
            groReason = "probe failed: " + t;
        }
        return new Result(gso, gsoReason, gro, groReason);
    }

    private static int loopbackSocket(final Arena arena, final MemorySegment addr) throws Exception {
        final int fd = Syscalls.socket(Linux.AF_INET, Linux.SOCK_DGRAM | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
                Linux.IPPROTO_UDP);
        try {
            final InetSocketAddress lo = new InetSocketAddress(InetAddress.getByAddress(new byte[]{127, 0, 0, 1}), 0);
            final int len = SockAddrs.encode(lo, addr, false);
            Syscalls.bind(fd, addr, len, "127.0.0.1:0");
            Syscalls.getsockname(fd, addr);
            return fd;
        } catch (final Exception e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    private static String probeGso() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment rxAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final MemorySegment txAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int rx = loopbackSocket(arena, rxAddr);
            int tx = -1;
            try {
                tx = loopbackSocket(arena, txAddr);
                final CallState cs = CallState.allocate(arena);
                final MemorySegment payload = arena.allocate(SEGMENT * 2L);
                final MmsgVector v = new MmsgVector(arena, 1, 2, (int) Cmsg.space(Short.BYTES));
                v.iov(0, 0, payload, 0, SEGMENT);
                v.iov(0, 1, payload, SEGMENT, TAIL);
                v.iovCount(0, 2);
                v.name(0, rxAddr, SockAddrs.IN_SIZE);
                final MemorySegment control = v.controlBuffer(0);
                final long data = Cmsg.put(control, 0, Linux.SOL_UDP, Linux.UDP_SEGMENT, Short.BYTES);
                control.set(JAVA_SHORT_UNALIGNED, data, (short) SEGMENT);
                v.controlLength(0, (int) Cmsg.space(Short.BYTES));
                final int sent = Syscalls.sendmsg(cs, tx, v.msghdr(0), 0);
                if (sent < 0) {
                    return "sendmsg with a UDP_SEGMENT cmsg failed: " + Errno.strerror(-sent)
                            + " (errno " + -sent + ")";
                }
                final int first = receiveOne(arena, cs, rx);
                final int second = receiveOne(arena, cs, rx);
                if (first == SEGMENT && second == TAIL) {
                    return "ok: a " + (SEGMENT + TAIL) + "-byte train arrived as " + first + " + " + second;
                }
                return "a GSO train of " + SEGMENT + " + " + TAIL + " bytes arrived as " + first + ", " + second
                        + " (negative = errno, 0 = nothing within " + POLL_MS + " ms)";
            } finally {
                Syscalls.closeQuietly(rx);
                Syscalls.closeQuietly(tx);
            }
        }
    }

    private static int receiveOne(final Arena arena, final CallState cs, final int fd) {
        final PollFds pfd = new PollFds(arena, 1);
        pfd.set(0, fd, Linux.POLLIN);
        final int ready = pfd.poll(cs, POLL_MS);
        if (ready <= 0) {
            return ready;
        }
        final MemorySegment buf = arena.allocate(2048);
        final MmsgVector v = new MmsgVector(arena, 1, 1, 0);
        v.prepareReceive(0);
        v.iov(0, 0, buf, 0, buf.byteSize());
        return Syscalls.recvmsg(cs, fd, v.msghdr(0), 0);
    }

    private static String probeGro() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment addr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final int fd = loopbackSocket(arena, addr);
            try {
                final int rc = Syscalls.setsockoptIntRaw(fd, Linux.SOL_UDP, Linux.UDP_GRO, 1);
                if (rc < 0) {
                    return "setsockopt(SOL_UDP, UDP_GRO, 1) failed: " + Errno.strerror(-rc) + " (errno " + -rc + ")";
                }
                final int on = Syscalls.getsockoptInt(fd, Linux.SOL_UDP, Linux.UDP_GRO, "UDP_GRO on 127.0.0.1");
                return on != 0 ? "ok: UDP_GRO accepted" : "UDP_GRO reads back as 0 after setting it";
            } finally {
                Syscalls.closeQuietly(fd);
            }
        }
    }
}
