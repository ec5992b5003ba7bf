package net.fips.dataplane.tun;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;

/**
 * The writing side of a {@link TunDevice}: one whole IP packet per {@code write(2)} from the caller's slot, on
 * the non-blocking descriptor. Owned by one thread; nothing is allocated per packet.
 */
public final class TunWriter {
    private final int fd;
    private final CallState cs;
    private final IoVec iov;
    private final PollFds pfd;
    private long packets;
    private long bytes;
    private long errors;

    TunWriter(final Arena arena, final int fd) {
        this.fd = fd;
        this.cs = CallState.allocate(arena);
        this.iov = new IoVec(arena);
        this.pfd = new PollFds(arena, 1);
    }

    /**
     * Writes one packet; the kernel delivers it as if it had arrived on the interface.
     *
     * @param segment the slot's memory (native, e.g. the packet pool)
     * @param offset  where the packet starts
     * @param length  its length
     * @return {@code length}, or {@code -errno} ({@code -EAGAIN} if the kernel cannot take it now; EINVAL and
     *         friends for a malformed packet, which is counted and dropped)
     */
    public int write(final MemorySegment segment, final long offset, final int length) {
        iov.set(segment, offset, length);
        final long rc = Syscalls.writev(cs, fd, iov.segment(), 1);
        if (rc >= 0) {
            packets++;
            bytes += rc;
            return (int) rc;
        }
        if (rc != Errno.EAGAIN_NEGATIVE && rc != Errno.EINTR_NEGATIVE) {
            errors++;
        }
        return (int) rc;
    }

    /**
     * Waits until the descriptor is writable (after an {@code -EAGAIN}).
     *
     * @param timeoutMs -1 = no limit
     * @return whether it is writable (or in error); false on timeout
     */
    public boolean awaitWritable(final int timeoutMs) {
        pfd.set(0, fd, Linux.POLLOUT);
        return pfd.poll(cs, timeoutMs) > 0;
    }

    /** @return packets written */
    public long packets() {
        return packets;
    }

    /** @return bytes written */
    public long bytes() {
        return bytes;
    }

    /** @return failed writes other than EAGAIN/EINTR */
    public long errors() {
        return errors;
    }
}
