package net.fips.dataplane.tun;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.TunIoctl;

/**
 * The writing side of a {@link TunDevice}: one whole IP packet per {@code write(2)} from the caller's slot, on
 * the non-blocking descriptor. On a device in virtio-net header mode ({@link TunDevice#vnetHeader()}) every
 * write is a {@code writev} of a 10-byte {@code struct virtio_net_hdr} and the packet: {@link #write} sends an
 * all-zero header (a plain, fully checksummed packet), {@link #writeVnet} the caller's (a coalesced TCP
 * super-segment). Owned by one thread; nothing is allocated per packet.
 */
public final class TunWriter implements VnetOutput {
    private final int fd;
    private final boolean vnet;
    private final CallState cs;
    private final IoVec iov;
    private final PollFds pfd;
    private final MemorySegment zeroHeader;
    private long packets;
    private long bytes;
    private long errors;

    TunWriter(final Arena arena, final int fd, final boolean vnet) {
        this.fd = fd;
        this.vnet = vnet;
        this.cs = CallState.allocate(arena);
        this.iov = new IoVec(arena, 2);
        this.pfd = new PollFds(arena, 1);
        this.zeroHeader = arena.allocate(TunIoctl.VIRTIO_NET_HDR_SIZE);
        zeroHeader.fill((byte) 0);
    }

    /** @return whether writes carry a virtio-net header */
    public boolean vnetHeader() {
        return vnet;
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
    @Override
    public int write(final MemorySegment segment, final long offset, final int length) {
        if (vnet) {
            return writeVnet(zeroHeader, segment, offset, length);
        }
        iov.set(0, segment, offset, length);
        return done(Syscalls.writev(cs, fd, iov.segment(), 1), 0);
    }

    /**
     * Writes one packet behind a virtio-net header (device in header mode only).
     *
     * @param header {@link TunIoctl#VIRTIO_NET_HDR_SIZE} bytes
     * @return {@code length} (the header not counted), or {@code -errno}
     */
    @Override
    public int writeVnet(final MemorySegment header, final MemorySegment segment, final long offset,
                         final int length) {
        iov.set(0, header, 0, TunIoctl.VIRTIO_NET_HDR_SIZE);
        iov.set(1, segment, offset, length);
        return done(Syscalls.writev(cs, fd, iov.segment(), 2), TunIoctl.VIRTIO_NET_HDR_SIZE);
    }

    private int done(final long rc, final int header) {
        if (rc >= 0) {
            packets++;
            bytes += rc - header;
            return (int) rc - header;
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

    /** @return packets written (a coalesced super-segment counts once) */
    public long packets() {
        return packets;
    }

    /** @return bytes written (packets only) */
    public long bytes() {
        return bytes;
    }

    /** @return failed writes other than EAGAIN/EINTR */
    public long errors() {
        return errors;
    }
}
