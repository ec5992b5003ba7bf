package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/**
 * Session PathMtuNotification body (inner msg_type 0x13): {@code path_mtu u16 LE}. Trailing bytes are ignored.
 *
 * @param pathMtu the forward-path MTU the destination observed (u16)
 */
public record PathMtuNotification(int pathMtu) {
    /** Body size. */
    public static final int SIZE = 2;

    /** Checks the range. */
    public PathMtuNotification {
        Links.u16(pathMtu, "path_mtu");
    }

    /** The 2-byte body. */
    public byte[] encode() {
        return new Writer(SIZE).u16(pathMtu).done();
    }

    /** Decodes a body (after the FSP inner header). */
    public static WireResult<PathMtuNotification> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> new PathMtuNotification(r.u16()));
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<PathMtuNotification> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
