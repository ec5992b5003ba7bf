package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import net.fips.ffm.linux.gen.iovec;
import net.fips.ffm.linux.gen.mmsghdr;
import net.fips.ffm.linux.gen.msghdr;

/**
 * A preallocated array of {@code struct mmsghdr} for {@code recvmmsg}/{@code sendmmsg}, each entry with its own
 * iovec array, {@code sockaddr_storage} name buffer and control buffer, all carved from one allocation at
 * construction so that nothing is allocated per packet.
 * <pre>{@code
 * struct iovec   { void *iov_base; size_t iov_len; };                                         // 16
 * struct msghdr  { void *msg_name; socklen_t msg_namelen; struct iovec *msg_iov; size_t msg_iovlen;
 *                  void *msg_control; size_t msg_controllen; int msg_flags; };                // 56
 * struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; };                            // 64
 * }</pre>
 * An entry's {@code msg_hdr} is also a valid {@code msghdr} for {@code sendmsg}/{@code recvmsg}
 * ({@link #msghdr(int)}). Pointers are written as raw addresses ({@code segment.address() + offset}), so the
 * hot path builds no slice objects. Not thread-safe: one owner thread.
 */
public final class MmsgVector {
    /** {@code sizeof(struct mmsghdr)}. */
    public static final long MMSGHDR_SIZE = mmsghdr.sizeof();
    /** {@code sizeof(struct iovec)}. */
    public static final long IOVEC_SIZE = iovec.sizeof();

    private static final long HDR = mmsghdr.msg_hdr$offset();
    private static final long MSG_LEN = mmsghdr.msg_len$offset();
    private static final long NAME = HDR + msghdr.msg_name$offset();
    private static final long NAMELEN = HDR + msghdr.msg_namelen$offset();
    private static final long IOV = HDR + msghdr.msg_iov$offset();
    private static final long IOVLEN = HDR + msghdr.msg_iovlen$offset();
    private static final long CONTROL = HDR + msghdr.msg_control$offset();
    private static final long CONTROLLEN = HDR + msghdr.msg_controllen$offset();
    private static final long FLAGS = HDR + msghdr.msg_flags$offset();
    private static final long IOV_BASE = iovec.iov_base$offset();
    private static final long IOV_LEN = iovec.iov_len$offset();

    private final int capacity;
    private final int iovPerMessage;
    private final int controlCapacity;
    private final MemorySegment headers;
    private final MemorySegment iovecs;
    private final MemorySegment names;
    private final MemorySegment controls;
    private final MemorySegment[] nameViews;
    private final MemorySegment[] controlViews;
    private final MemorySegment[] headerViews;
    private final MemorySegment[] tailViews;

    /**
     * @param allocator       the owner's arena
     * @param capacity        number of mmsghdr entries
     * @param iovPerMessage   iovecs per entry (1 for one buffer per datagram; up to 64 for a GSO train)
     * @param controlCapacity control-buffer bytes per entry (0 for none); use {@link Cmsg#space} sums
     */
    public MmsgVector(final SegmentAllocator allocator, final int capacity, final int iovPerMessage,
                      final int controlCapacity) {
        if (capacity < 1 || iovPerMessage < 1 || controlCapacity < 0) {
            throw new IllegalArgumentException("capacity " + capacity + ", iovPerMessage " + iovPerMessage
                    + ", controlCapacity " + controlCapacity);
        }
        this.capacity = capacity;
        this.iovPerMessage = iovPerMessage;
        this.controlCapacity = controlCapacity;
        this.headers = allocator.allocate(MMSGHDR_SIZE * capacity, 8);
        this.iovecs = allocator.allocate(IOVEC_SIZE * iovPerMessage * capacity, 8);
        this.names = allocator.allocate((long) SockAddrs.STORAGE_SIZE * capacity, 8);
        this.controls = allocator.allocate(Math.max(8, (long) controlCapacity * capacity), 8);
        this.nameViews = new MemorySegment[capacity];
        this.controlViews = new MemorySegment[capacity];
        this.headerViews = new MemorySegment[capacity];
        this.tailViews = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            final long h = i * MMSGHDR_SIZE;
            nameViews[i] = names.asSlice((long) i * SockAddrs.STORAGE_SIZE, SockAddrs.STORAGE_SIZE);
            controlViews[i] = controls.asSlice((long) i * controlCapacity, controlCapacity);
            headerViews[i] = headers.asSlice(h, MMSGHDR_SIZE);
            tailViews[i] = headers.asSlice(h);
            headers.set(JAVA_LONG, h + IOV, iovecs.address() + IOVEC_SIZE * iovPerMessage * i);
            headers.set(JAVA_LONG, h + IOVLEN, 1);
        }
    }

    /** @return the mmsghdr array to pass to recvmmsg/sendmmsg */
    public MemorySegment segment() {
        return headers;
    }

    /** @return number of entries */
    public int capacity() {
        return capacity;
    }

    /** @return iovecs available per entry */
    public int iovPerMessage() {
        return iovPerMessage;
    }

    /** @return the array from entry {@code i} on, to resume a partially completed sendmmsg without slicing */
    public MemorySegment from(final int i) {
        return tailViews[i];
    }

    /** @return entry {@code i}'s header, usable as a {@code msghdr} for sendmsg/recvmsg */
    public MemorySegment msghdr(final int i) {
        return headerViews[i];
    }

    /** Points iovec {@code j} of entry {@code i} at {@code len} bytes of {@code segment} from {@code offset}. */
    public void iov(final int i, final int j, final MemorySegment segment, final long offset, final long len) {
        iovAddress(i, j, segment.address() + offset, len);
    }

    /** Points iovec {@code j} of entry {@code i} at a raw native address. */
    public void iovAddress(final int i, final int j, final long address, final long len) {
        final long v = IOVEC_SIZE * ((long) iovPerMessage * i + j);
        iovecs.set(JAVA_LONG, v + IOV_BASE, address);
        iovecs.set(JAVA_LONG, v + IOV_LEN, len);
    }

    /** Sets how many of entry {@code i}'s iovecs are used. */
    public void iovCount(final int i, final int count) {
        headers.set(JAVA_LONG, i * MMSGHDR_SIZE + IOVLEN, count);
    }

    /** Prepares entry {@code i} for receiving: full name and control buffers, flags cleared. */
    public void prepareReceive(final int i) {
        final long h = i * MMSGHDR_SIZE;
        headers.set(JAVA_LONG, h + NAME, nameViews[i].address());
        headers.set(JAVA_INT, h + NAMELEN, SockAddrs.STORAGE_SIZE);
        headers.set(JAVA_LONG, h + CONTROL, controlCapacity == 0 ? 0 : controlViews[i].address());
        headers.set(JAVA_LONG, h + CONTROLLEN, controlCapacity);
        headers.set(JAVA_INT, h + FLAGS, 0);
        headers.set(JAVA_INT, h + MSG_LEN, 0);
    }

    /** Sets entry {@code i}'s destination to an already encoded address (or none when {@code len == 0}). */
    public void name(final int i, final MemorySegment address, final int len) {
        final long h = i * MMSGHDR_SIZE;
        headers.set(JAVA_LONG, h + NAME, len == 0 ? 0 : address.address());
        headers.set(JAVA_INT, h + NAMELEN, len);
    }

    /** Sets how many bytes of entry {@code i}'s control buffer to send (0 for none). */
    public void controlLength(final int i, final int len) {
        final long h = i * MMSGHDR_SIZE;
        headers.set(JAVA_LONG, h + CONTROL, len == 0 ? 0 : controlViews[i].address());
        headers.set(JAVA_LONG, h + CONTROLLEN, len);
    }

    /** @return entry {@code i}'s own name buffer (a {@code sockaddr_storage}) */
    public MemorySegment nameBuffer(final int i) {
        return nameViews[i];
    }

    /** @return entry {@code i}'s own control buffer */
    public MemorySegment controlBuffer(final int i) {
        return controlViews[i];
    }

    /** @return the {@code msg_namelen} the kernel left in entry {@code i} */
    public int nameLength(final int i) {
        return headers.get(JAVA_INT, i * MMSGHDR_SIZE + NAMELEN);
    }

    /** @return the {@code msg_controllen} the kernel left in entry {@code i} */
    public long controlLengthReceived(final int i) {
        return headers.get(JAVA_LONG, i * MMSGHDR_SIZE + CONTROLLEN);
    }

    /** @return {@code msg_flags} of entry {@code i} (MSG_TRUNC, MSG_CTRUNC) */
    public int flags(final int i) {
        return headers.get(JAVA_INT, i * MMSGHDR_SIZE + FLAGS);
    }

    /** @return {@code msg_len} of entry {@code i}: bytes received or sent */
    public int messageLength(final int i) {
        return headers.get(JAVA_INT, i * MMSGHDR_SIZE + MSG_LEN);
    }
}
