package net.fips.dataplane.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;

/**
 * The socket waits the batched datagram transports share (UDP, Ethernet): {@link #readable} sleeps in
 * {@code poll} on a socket and the transport's wake-up eventfd, {@link #writable} on a full socket's send buffer.
 * Owned by one thread (it uses that thread's {@link CallState}); all native memory is allocated at construction,
 * so neither wait allocates.
 */
public final class SocketWait {
    private final CallState cs;
    private final int wakeFd;
    private final PollFds readPoll;
    private final PollFds writePoll;
    private final MemorySegment eventValue;

    /**
     * @param arena  where the poll vectors live
     * @param cs     the owning thread's call state
     * @param wakeFd the eventfd that ends a {@link #readable} wait, or -1 when this side never waits to read
     */
    public SocketWait(final Arena arena, final CallState cs, final int wakeFd) {
        this.cs = cs;
        this.wakeFd = wakeFd;
        this.readPoll = wakeFd >= 0 ? new PollFds(arena, 2) : null;
        this.writePoll = new PollFds(arena, 1);
        this.eventValue = wakeFd >= 0 ? arena.allocate(Long.BYTES, Long.BYTES) : null;
    }

    /**
     * Waits until {@code sock} is readable or the wake-up descriptor fires (which is then reset).
     *
     * @param sock      the socket; a negative one (none open) is ignored by poll, so this waits for the wake-up only
     * @param timeoutMs the most to wait; -1 without limit
     * @return whether the socket is readable (or has an error to read)
     */
    public boolean readable(final int sock, final int timeoutMs) {
        final PollFds pfd = readPoll;
        pfd.set(0, sock, Linux.POLLIN);
        pfd.set(1, wakeFd, Linux.POLLIN);
        final int ready = pfd.poll(cs, timeoutMs);
        if (ready <= 0) {
            return false;
        }
        if (pfd.revents(1) != 0) {
            Syscalls.read(cs, wakeFd, eventValue, Long.BYTES);   // reset the eventfd; EAGAIN is harmless
        }
        return (pfd.revents(0) & (Linux.POLLIN | Linux.POLLERR)) != 0;
    }

    /**
     * Waits until {@code sock}'s send buffer has room.
     *
     * @return whether it has (false on timeout)
     */
    public boolean writable(final int sock, final int timeoutMs) {
        writePoll.set(0, sock, Linux.POLLOUT);
        return writePoll.poll(cs, timeoutMs) > 0;
    }
}
