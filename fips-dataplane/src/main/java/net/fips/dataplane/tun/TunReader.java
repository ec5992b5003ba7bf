package net.fips.dataplane.tun;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;

/**
 * The reading side of a {@link TunDevice}: one packet per {@code read(2)} straight into the caller's slot, on a
 * non-blocking descriptor, with a {@code poll} on the descriptor and the device's wake-up eventfd for idle waits.
 * Owned by one thread; its native state is allocated once, so nothing is allocated per packet. The counters are
 * written by that thread only (read them from elsewhere as approximate values).
 */
public final class TunReader {
    private final int fd;
    private final int wakeFd;
    private final CallState cs;
    private final IoVec iov;
    private final PollFds pfd;
    private final MemorySegment eventValue;
    private long packets;
    private long bytes;
    private long truncated;
    private long errors;

    TunReader(final Arena arena, final int fd, final int wakeFd) {
        this.fd = fd;
        this.wakeFd = wakeFd;
        this.cs = CallState.allocate(arena);
        this.iov = new IoVec(arena);
        this.pfd = new PollFds(arena, 2);
        this.eventValue = arena.allocate(Long.BYTES, Long.BYTES);
    }

    /**
     * Reads one packet without waiting.
     *
     * @param segment  the slot's memory (native, e.g. the packet pool)
     * @param offset   where the packet starts in {@code segment}
     * @param capacity room from {@code offset}; give at least the device MTU
     * @return the packet length, or {@code -errno}: {@code -EAGAIN} when nothing is queued; {@code -EMSGSIZE} for a
     *         packet longer than {@code capacity} (the kernel hands over only what fits and reports that much, so a
     *         read that fills the slot is checked against the IP header's length; the packet is consumed and
     *         counted in {@link #truncated()}); see
     *         {@link TunDevice#isDeviceGone} for the errors that mean the device was deleted
     */
    public int read(final MemorySegment segment, final long offset, final int capacity) {
        iov.set(segment, offset, capacity);
        final long rc = Syscalls.readv(cs, fd, iov.segment(), 1);
        if (rc >= 0) {
            if (rc == capacity && declaredLength(segment, offset, capacity) > capacity) {
                truncated++;   // the kernel copied what fitted and says nothing: the IP header tells
                return -Errno.EMSGSIZE;
            }
            packets++;
            bytes += rc;
            return (int) rc;
        }
        if (rc != Errno.EAGAIN_NEGATIVE && rc != Errno.EINTR_NEGATIVE) {
            errors++;
        }
        return (int) rc;
    }

    /** @return the length the IPv6/IPv4 header declares, or 0 when it cannot tell */
    private static int declaredLength(final MemorySegment m, final long off, final int n) {
        if (n < 4) {
            return 0;
        }
        final int version = (m.get(JAVA_BYTE, off) & 0xff) >>> 4;
        if (version == 6 && n >= 6) {
            final int plen = ((m.get(JAVA_BYTE, off + 4) & 0xff) << 8) | (m.get(JAVA_BYTE, off + 5) & 0xff);
            return plen == 0 ? 0 : 40 + plen;   // 0: a jumbogram, not ours to judge
        }
        if (version == 4) {
            return ((m.get(JAVA_BYTE, off + 2) & 0xff) << 8) | (m.get(JAVA_BYTE, off + 3) & 0xff);
        }
        return 0;
    }

    /**
     * Reads one packet, waiting up to {@code timeoutMs} in poll when none is queued.
     *
     * @param timeoutMs 0 = do not wait, -1 = until a packet or {@link TunDevice#wakeup()}
     * @return the packet length; 0 on timeout or wake-up; or {@code -errno} for any other failure
     */
    public int receive(final MemorySegment segment, final long offset, final int capacity, final int timeoutMs) {
        int rc = read(segment, offset, capacity);
        if (rc == Errno.EAGAIN_NEGATIVE || rc == Errno.EINTR_NEGATIVE) {
            if (timeoutMs == 0 || !awaitReadable(timeoutMs)) {
                return 0;
            }
            rc = read(segment, offset, capacity);
            if (rc == Errno.EAGAIN_NEGATIVE || rc == Errno.EINTR_NEGATIVE) {
                return 0;
            }
        }
        return rc;
    }

    /**
     * Waits until a packet is queued, the device reports an error or hang-up, or {@link TunDevice#wakeup()}.
     *
     * @param timeoutMs -1 = no limit
     * @return whether the descriptor is readable (or in error, so the next read reports it); false on timeout or
     *         wake-up
     */
    public boolean awaitReadable(final int timeoutMs) {
        pfd.set(0, fd, Linux.POLLIN);
        pfd.set(1, wakeFd, Linux.POLLIN);
        final int ready = pfd.poll(cs, timeoutMs);
        if (ready <= 0) {
            return false;
        }
        if (pfd.revents(1) != 0) {
            Syscalls.read(cs, wakeFd, eventValue, Long.BYTES);   // reset the eventfd; EAGAIN is harmless
        }
        return (pfd.revents(0) & (Linux.POLLIN | Linux.POLLERR | Linux.POLLHUP | Linux.POLLNVAL)) != 0;
    }

    /** @return packets read */
    public long packets() {
        return packets;
    }

    /** @return bytes read */
    public long bytes() {
        return bytes;
    }

    /** @return packets longer than the slot (reported as {@code -EMSGSIZE}) */
    public long truncated() {
        return truncated;
    }

    /** @return failed reads other than EAGAIN/EINTR */
    public long errors() {
        return errors;
    }
}
