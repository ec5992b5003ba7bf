package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import net.fips.ffm.linux.gen.pollfd;

/**
 * A preallocated {@code struct pollfd} array:
 * <pre>{@code struct pollfd { int fd; short events; short revents; };   // 8 bytes}</pre>
 */
public final class PollFds {
    private static final long SIZE = pollfd.sizeof();
    private static final long FD = pollfd.fd$offset();
    private static final long EVENTS = pollfd.events$offset();
    private static final long REVENTS = pollfd.revents$offset();

    private final MemorySegment array;
    private final int count;

    /**
     * @param allocator the owner's arena
     * @param count     number of entries
     */
    public PollFds(final SegmentAllocator allocator, final int count) {
        this.array = allocator.allocate(SIZE * count, 8);
        this.count = count;
    }

    /** Sets entry {@code i} to wait for {@code events} on {@code fd} and clears its {@code revents}. */
    public void set(final int i, final int fd, final short events) {
        array.set(JAVA_INT, i * SIZE + FD, fd);
        array.set(JAVA_SHORT, i * SIZE + EVENTS, events);
        array.set(JAVA_SHORT, i * SIZE + REVENTS, (short) 0);
    }

    /** @return the events the kernel reported for entry {@code i} */
    public short revents(final int i) {
        return array.get(JAVA_SHORT, i * SIZE + REVENTS);
    }

    /**
     * Polls all entries.
     *
     * @return ready entries, 0 on timeout, or {@code -errno}
     */
    public int poll(final CallState cs, final int timeoutMs) {
        return Syscalls.poll(cs, array, count, timeoutMs);
    }
}
