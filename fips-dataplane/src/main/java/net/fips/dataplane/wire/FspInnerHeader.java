package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 6-byte inner header at the start of a decrypted FSP plaintext.
 *
 * <pre>
 *  0                    4          5             6
 *  +--------------------+----------+-------------+-------------
 *  | timestamp u32 LE   | msg_type | inner_flags | body ...
 *  | (ms since rekey)   | 0x10..14 | SP = 0x01   |
 *  +--------------------+----------+-------------+-------------
 * </pre>
 */
public final class FspInnerHeader {
    /** Offset of the timestamp. */
    public static final int TIMESTAMP_OFFSET = 0;
    /** Offset of msg_type. */
    public static final int MSG_TYPE_OFFSET = 4;
    /** Offset of inner_flags. */
    public static final int INNER_FLAGS_OFFSET = 5;
    /** Inner header size; also the body offset. */
    public static final int SIZE = 6;

    private final WireResult<FspInnerHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long plainLen;

    /** Points this view at a plaintext {@code [off, off+len)} of at least 6 bytes. */
    public WireResult<FspInnerHeader> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        this.seg = segment;
        this.base = off;
        this.plainLen = len;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<FspInnerHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** Sender timestamp in ms (u32). */
    public long timestamp() {
        return Integer.toUnsignedLong(seg.get(Reader.U32, base + TIMESTAMP_OFFSET));
    }

    /** The session message type. */
    public int msgType() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + MSG_TYPE_OFFSET));
    }

    /** The inner flags byte. */
    public int innerFlags() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + INNER_FLAGS_OFFSET));
    }

    /** Offset of the body in the wrapped segment. */
    public long bodyOffset() {
        return base + SIZE;
    }

    /** Body length. */
    public long bodyLength() {
        return plainLen - SIZE;
    }

    /** {@code timestamp u32 LE ‖ msg_type ‖ inner_flags ‖ body}: the plaintext to seal. */
    public static byte[] prepend(final long timestampMs, final int msgType, final int innerFlags, final byte[] body) {
        final byte[] out = new byte[SIZE + body.length];
        final MemorySegment s = MemorySegment.ofArray(out);
        s.set(Reader.U32, TIMESTAMP_OFFSET, (int) timestampMs);
        out[MSG_TYPE_OFFSET] = (byte) msgType;
        out[INNER_FLAGS_OFFSET] = (byte) innerFlags;
        System.arraycopy(body, 0, out, SIZE, body.length);
        return out;
    }
}
