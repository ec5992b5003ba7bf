package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 4-byte FMP (link layer) common prefix that starts every packet on a transport.
 *
 * <pre>
 *  byte 0                 1         2               4
 *  +-----------+----------+---------+---------------+
 *  | version:4 | phase:4  | flags   | payload_len   |
 *  |   (= 0)   | 0/1/2    |         | u16 LE        |
 *  +-----------+----------+---------+---------------+
 * </pre>
 *
 * Phase 0 is an established (encrypted) frame, 1 is IK msg1, 2 is IK msg2. {@link #wrap} refuses a version other
 * than 0 and an unknown phase, which the reference drops silently.
 */
public final class FmpPrefix {
    /** Offset of the version/phase byte. */
    public static final int VERSION_PHASE_OFFSET = 0;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of payload_len (u16 LE). */
    public static final int PAYLOAD_LEN_OFFSET = 2;
    /** Size of the prefix. */
    public static final int SIZE = 4;
    /** The only FMP version. */
    public static final int VERSION = 0;
    /** Established (encrypted) frame. */
    public static final int PHASE_ESTABLISHED = 0;
    /** Noise IK message 1. */
    public static final int PHASE_MSG1 = 1;
    /** Noise IK message 2. */
    public static final int PHASE_MSG2 = 2;

    private final WireResult<FmpPrefix> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;

    /** Points this view at {@code [off, off+len)}; checks length ≥ 4, version 0 and a known phase. */
    public WireResult<FmpPrefix> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        final int b0 = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off));
        if (b0 >>> 4 != VERSION) {
            return WireResult.err(WireError.BAD_VERSION);
        }
        if ((b0 & 0x0F) > PHASE_MSG2) {
            return WireResult.err(WireError.BAD_PHASE);
        }
        this.seg = segment;
        this.base = off;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<FmpPrefix> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The phase nibble. */
    public int phase() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base)) & 0x0F;
    }

    /** The flags byte. */
    public int flags() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + FLAGS_OFFSET));
    }

    /** payload_len: bytes after the prefix for handshakes, inner plaintext length (no tag) for frames. */
    public int payloadLen() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + PAYLOAD_LEN_OFFSET));
    }

    /** Writes a prefix at {@code off}. */
    public static void write(final MemorySegment dst, final long off, final int phase, final int flags,
            final int payloadLen) {
        dst.set(Reader.U32, off, word(phase, flags, payloadLen));
    }

    /**
     * The 4 prefix bytes as one little-endian word (version/phase, flags, payload length LE), so that a header
     * writer stores them with its next field in one access instead of three.
     */
    static int word(final int phase, final int flags, final int payloadLen) {
        return (VERSION << 4 | phase & 0x0F) | (flags & 0xFF) << 8 | (payloadLen & 0xFFFF) << 16;
    }
}
