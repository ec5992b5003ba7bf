package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.ErrnoException;

/**
 * A non-blocking eventfd that wakes a loop blocked in {@code poll} on it together with its own descriptor (a
 * transport's receiver, the TUN reader). {@link #wake()} is safe from any thread and does nothing once
 * {@link #close()} has begun, so a late wake-up never writes to a closed or reused descriptor.
 */
public final class WakeFd implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final MemorySegment value = arena.allocate(JAVA_LONG);
    private final CallState state = CallState.allocate(arena);
    private boolean closed;

    private WakeFd(final int fd) {
        this.fd = fd;
    }

    /**
     * @return a new eventfd (EFD_NONBLOCK, EFD_CLOEXEC)
     * @throws ErrnoException when the kernel refuses one
     */
    public static WakeFd open() throws ErrnoException {
        return new WakeFd(Syscalls.eventfd(0, Linux.EFD_NONBLOCK | Linux.EFD_CLOEXEC));
    }

    /** @return the descriptor to poll for readability */
    public int fd() {
        return fd;
    }

    /** Makes the descriptor readable (adds 1 to the counter); any thread. */
    public void wake() {
        synchronized (this) {
            if (closed) {
                return;
            }
            value.set(JAVA_LONG, 0, 1L);
            Syscalls.write(state, fd, value, Long.BYTES);
        }
    }

    /**
     * Closes the descriptor once; later wake-ups do nothing.
     *
     * @return true for the call that closed it, false when it was closed already
     */
    public boolean closeOnce() {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
        }
        Syscalls.closeQuietly(fd);
        arena.close();
        return true;
    }

    /** Same as {@link #closeOnce()}. */
    @Override
    public void close() {
        closeOnce();
    }
}
