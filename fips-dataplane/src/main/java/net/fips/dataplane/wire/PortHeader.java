package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/**
 * Allocation-free access to the 4-byte port header that starts a DataPacket body (inner msg_type 0x10).
 *
 * <pre>
 *  0                2                4
 *  +----------------+----------------+---------------------
 *  | src_port u16LE | dst_port u16LE | service payload ...
 *  +----------------+----------------+---------------------
 * </pre>
 *
 * Receivers dispatch on dst_port only; port {@value #PORT_IPV6_SHIM} is the IPv6 shim ({@link Ipv6Shim}).
 */
public final class PortHeader {
    /** Offset of src_port. */
    public static final int SRC_PORT_OFFSET = 0;
    /** Offset of dst_port. */
    public static final int DST_PORT_OFFSET = 2;
    /** Header size; also the service payload offset. */
    public static final int SIZE = 4;
    /** The IPv6 shim port. */
    public static final int PORT_IPV6_SHIM = 256;

    private final WireResult<PortHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long bodyLen;

    /** Points this view at a DataPacket body {@code [off, off+len)} of at least 4 bytes. */
    public WireResult<PortHeader> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        this.seg = segment;
        this.base = off;
        this.bodyLen = len;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<PortHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The source port. */
    public int srcPort() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + SRC_PORT_OFFSET));
    }

    /** The destination port. */
    public int dstPort() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + DST_PORT_OFFSET));
    }

    /** Offset of the service payload in the wrapped segment. */
    public long payloadOffset() {
        return base + SIZE;
    }

    /** Service payload length. */
    public long payloadLength() {
        return bodyLen - SIZE;
    }

    /** Writes a port header at {@code off}. */
    public static void write(final MemorySegment dst, final long off, final int srcPort, final int dstPort) {
        dst.set(Reader.U16, off + SRC_PORT_OFFSET, (short) srcPort);
        dst.set(Reader.U16, off + DST_PORT_OFFSET, (short) dstPort);
    }
}
