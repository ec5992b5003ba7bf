package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of a SessionDatagram link message (type 0x00): the routed carrier of FSP messages. Forwarders
 * read and rewrite ttl and path_mtu in place through this view.
 *
 * <pre>
 *  0      1      2             4                    20                   36
 *  +------+------+-------------+--------------------+--------------------+------------------
 *  | 0x00 | ttl  | path_mtu    | src_addr (16)      | dest_addr (16)     | FSP payload ...
 *  |      | u8   | u16 LE      |                    |                    |
 *  +------+------+-------------+--------------------+--------------------+------------------
 * </pre>
 *
 * {@link #wrap} takes the link message from its msg_type byte and requires the 36-byte header; the payload may be
 * empty.
 */
public final class SessionDatagramHeader {
    /** Offset of msg_type (0x00). */
    public static final int TYPE_OFFSET = 0;
    /** Offset of ttl. */
    public static final int TTL_OFFSET = 1;
    /** Offset of path_mtu (u16 LE). */
    public static final int PATH_MTU_OFFSET = 2;
    /** Offset of src_addr. */
    public static final int SRC_OFFSET = 4;
    /** Offset of dest_addr. */
    public static final int DEST_OFFSET = 20;
    /** Header size including msg_type; also the payload offset. */
    public static final int SIZE = 36;
    /** TTL originators use. */
    public static final int DEFAULT_TTL = 64;

    private final WireResult<SessionDatagramHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long msgLen;

    /** Points this view at a link message {@code [off, off+len)}. */
    public WireResult<SessionDatagramHeader> wrap(final MemorySegment segment, final long off, final long len) {
        if (!Reader.windowOk(segment.byteSize(), off, len)) {
            return WireResult.err(WireError.BAD_LENGTH);
        }
        if (len < 1) {
            return WireResult.err(WireError.TRUNCATED);
        }
        if (segment.get(ValueLayout.JAVA_BYTE, off) != LinkMessageType.SESSION_DATAGRAM.code()) {
            return WireResult.err(WireError.BAD_TYPE);
        }
        if (len < SIZE) {
            return WireResult.err(WireError.TRUNCATED);
        }
        this.seg = segment;
        this.base = off;
        this.msgLen = len;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<SessionDatagramHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** Remaining hop count. */
    public int ttl() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + TTL_OFFSET));
    }

    /** Rewrites ttl in place. */
    public void ttl(final int ttl) {
        seg.set(ValueLayout.JAVA_BYTE, base + TTL_OFFSET, (byte) ttl);
    }

    /** Smallest link MTU seen on the path so far. */
    public int pathMtu() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + PATH_MTU_OFFSET));
    }

    /** Rewrites path_mtu in place. */
    public void pathMtu(final int mtu) {
        seg.set(Reader.U16, base + PATH_MTU_OFFSET, (short) mtu);
    }

    /** The source address (allocates; use {@link #srcMatches} on the hot path). */
    public NodeAddr src() {
        return NodeAddr.read(seg, base + SRC_OFFSET);
    }

    /** The destination address (allocates; use {@link #destMatches} on the hot path). */
    public NodeAddr dest() {
        return NodeAddr.read(seg, base + DEST_OFFSET);
    }

    /** True when src_addr equals {@code addr}. */
    public boolean srcMatches(final NodeAddr addr) {
        return addr.matches(seg, base + SRC_OFFSET);
    }

    /** True when dest_addr equals {@code addr}. */
    public boolean destMatches(final NodeAddr addr) {
        return addr.matches(seg, base + DEST_OFFSET);
    }

    /** Offset of the FSP payload in the wrapped segment. */
    public long payloadOffset() {
        return base + SIZE;
    }

    /** FSP payload length. */
    public long payloadLength() {
        return msgLen - SIZE;
    }

    /** Writes a 36-byte header at {@code off}. */
    public static void write(final MemorySegment dst, final long off, final int ttl, final int pathMtu,
            final NodeAddr src, final NodeAddr dest) {
        dst.set(ValueLayout.JAVA_BYTE, off, (byte) LinkMessageType.SESSION_DATAGRAM.code());
        dst.set(ValueLayout.JAVA_BYTE, off + TTL_OFFSET, (byte) ttl);
        dst.set(Reader.U16, off + PATH_MTU_OFFSET, (short) pathMtu);
        src.writeTo(dst, off + SRC_OFFSET);
        dest.writeTo(dst, off + DEST_OFFSET);
    }
}
