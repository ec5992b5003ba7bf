package net.fips.dataplane.tun;

import java.lang.foreign.MemorySegment;

/** Where {@link TunCoalescer} writes: a {@link TunWriter} in virtio-net header mode, or a test's recorder. */
public interface VnetOutput {
    /**
     * One plain packet (behind an all-zero header).
     *
     * @return {@code length}, or {@code -errno}
     */
    int write(MemorySegment segment, long offset, int length);

    /**
     * One packet behind {@code header} ({@link net.fips.ffm.linux.TunIoctl#VIRTIO_NET_HDR_SIZE} bytes).
     *
     * @return {@code length}, or {@code -errno}
     */
    int writeVnet(MemorySegment header, MemorySegment segment, long offset, int length);
}
