package net.fips.dataplane.tun;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.UnixSeqPacket;

/**
 * A TUN device without the kernel's TUN driver: a connected {@code AF_UNIX SOCK_SEQPACKET} pair (which keeps packet
 * boundaries, as a TUN descriptor does), one end wrapped as a {@link TunDevice} ({@link TunDevice#overDescriptor})
 * for the data plane, the other end ({@link #kernelRead}, {@link #kernelWrite}) playing the kernel's side: what is
 * written there is read by the device's reader as if the kernel had routed it into {@code fips0}, and what the data
 * plane writes to the device is read there. With {@link TunConfig#offload()} both directions carry the 10-byte
 * virtio-net header, as on a device in header mode. For the daemon's ahead-of-time training ({@link StandInTcpStream}
 * drives a TCP stream's packets through it) and for tests.
 *
 * <p>The device is handed to a data plane, which closes it; {@link #close()} closes the kernel end only. The kernel
 * side is used by one thread.
 */
public final class TunStandIn implements AutoCloseable {
    private final TunDevice device;
    private final int kernelFd;
    private final Arena arena = Arena.ofShared();
    private final CallState cs = CallState.allocate(arena);

    private TunStandIn(final TunDevice device, final int kernelFd) {
        this.device = device;
        this.kernelFd = kernelFd;
    }

    /**
     * Opens the pair and the device over its first end.
     *
     * @param config the device settings (name, MTU, the node's address, offload); no interface is made
     * @throws TunException when the sockets or the device's eventfd cannot be made
     */
    public static TunStandIn open(final TunConfig config) throws TunException {
        final int[] pair;
        try {
            pair = UnixSeqPacket.pair();
        } catch (final ErrnoException e) {
            throw new TunException(TunException.Reason.CONFIGURE_FAILED, "open a socket pair", e.errno(),
                    "TUN stand-in: " + e.getMessage(), e);
        }
        try {
            return new TunStandIn(TunDevice.overDescriptor(pair[0], config), pair[1]);
        } catch (final TunException | RuntimeException e) {
            Syscalls.closeQuietly(pair[1]);   // overDescriptor closed pair[0]
            throw e;
        }
    }

    /** @return the device end, for {@code DataPlane.attachTun} (or a node's TUN opener) */
    public TunDevice device() {
        return device;
    }

    /** @return the kernel end's descriptor (non-blocking), for polling */
    public int kernelFd() {
        return kernelFd;
    }

    /**
     * Hands one packet (with its virtio-net header in header mode) to the device's reader.
     *
     * @return {@code length}, or {@code -errno} ({@code -EAGAIN} while the device end's queue is full)
     */
    public long kernelWrite(final MemorySegment frame, final long length) {
        return Syscalls.write(cs, kernelFd, frame, length);
    }

    /**
     * Takes one packet the data plane wrote to the device (with its virtio-net header in header mode).
     *
     * @return its length, or {@code -errno} ({@code -EAGAIN} when none is queued)
     */
    public long kernelRead(final MemorySegment frame, final long capacity) {
        return Syscalls.read(cs, kernelFd, frame, capacity);
    }

    /** Closes the kernel end (the data plane's reads then fail as on a deleted device). Idempotent. */
    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            Syscalls.closeQuietly(kernelFd);
            arena.close();
        }
    }
}
