package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.Objects;

import net.fips.ffm.linux.gen.iovec;

/**
 * A preallocated single {@code struct iovec { void *iov_base; size_t iov_len; }} (16 bytes), re-pointed per call
 * at a region of an off-heap segment, so {@link Syscalls#readv}/{@link Syscalls#writev} can read or write one
 * packet at any offset of a pool without making a slice per packet. The base is written as a raw address
 * ({@code segment.address() + offset}), like {@link MmsgVector}: the segment must be native and stay alive
 * for the call.
 */
public final class IoVec {
    private static final long BASE = iovec.iov_base$offset();
    private static final long LEN = iovec.iov_len$offset();

    private static final long SIZE = iovec.layout().byteSize();

    private final MemorySegment segment;

    /** @param allocator the owner's arena */
    public IoVec(final SegmentAllocator allocator) {
        this(allocator, 1);
    }

    /**
     * An array of {@code count} vectors (e.g. a header and a packet for one {@code writev}).
     *
     * @param allocator the owner's arena
     * @param count     entries, at least 1
     */
    public IoVec(final SegmentAllocator allocator, final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("iovec count " + count);
        }
        this.segment = allocator.allocate(iovec.layout(), count);
    }

    /**
     * Points entry {@code index} at {@code length} bytes of {@code target} from {@code offset}.
     *
     * @throws IndexOutOfBoundsException if the region is not inside {@code target} or there is no such entry
     */
    public void set(final int index, final MemorySegment target, final long offset, final long length) {
        Objects.checkFromIndexSize(offset, length, target.byteSize());
        final long base = Objects.checkIndex((long) index, segment.byteSize() / SIZE) * SIZE;
        segment.set(JAVA_LONG, base + BASE, target.address() + offset);
        segment.set(JAVA_LONG, base + LEN, length);
    }

    /**
     * Points the vector at {@code length} bytes of {@code target} from {@code offset}.
     *
     * @throws IndexOutOfBoundsException if the region is not inside {@code target}
     */
    public void set(final MemorySegment target, final long offset, final long length) {
        Objects.checkFromIndexSize(offset, length, target.byteSize());
        segment.set(JAVA_LONG, BASE, target.address() + offset);
        segment.set(JAVA_LONG, LEN, length);
    }

    /** @return the native {@code struct iovec} */
    public MemorySegment segment() {
        return segment;
    }
}
