package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 5-byte inner header at the start of a decrypted FMP frame plaintext.
 *
 * <pre>
 *  0                    4          5
 *  +--------------------+----------+------------------------
 *  | timestamp u32 LE   | msg_type | link message body ...
 *  | (ms since session) |          |
 *  +--------------------+----------+------------------------
 * </pre>
 *
 * The link message (what the codecs in this package decode) starts at {@link #MSG_TYPE_OFFSET}.
 */
public final class FmpInnerHeader {
    /** Offset of the timestamp. */
    public static final int TIMESTAMP_OFFSET = 0;
    /** Offset of msg_type, which is also the first byte of the link message. */
    public static final int MSG_TYPE_OFFSET = 4;
    /** Inner header size. */
    public static final int SIZE = 5;

    private final WireResult<FmpInnerHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long plainLen;

    /** Points this view at a plaintext {@code [off, off+len)} of at least 5 bytes. */
    public WireResult<FmpInnerHeader> wrap(final MemorySegment segment, final long off, final long len) {
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
    public WireResult<FmpInnerHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The sender's timestamp (ms, truncated to 32 bits), unsigned. */
    public long timestamp() {
        return Integer.toUnsignedLong(seg.get(Reader.U32, base + TIMESTAMP_OFFSET));
    }

    /** The link message type byte. */
    public int msgType() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + MSG_TYPE_OFFSET));
    }

    /** Offset of the link message (its msg_type byte) in the wrapped segment. */
    public long messageOffset() {
        return base + MSG_TYPE_OFFSET;
    }

    /** Length of the link message including its msg_type byte. */
    public long messageLength() {
        return plainLen - MSG_TYPE_OFFSET;
    }

    /** {@code timestamp u32 LE ‖ linkMessage}: the plaintext to seal. */
    public static byte[] prepend(final long timestampMs, final byte[] linkMessage) {
        final byte[] out = new byte[MSG_TYPE_OFFSET + linkMessage.length];
        MemorySegment.ofArray(out).set(Reader.U32, 0, (int) timestampMs);
        System.arraycopy(linkMessage, 0, out, MSG_TYPE_OFFSET, linkMessage.length);
        return out;
    }
}
