package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 4-byte FSP common prefix at the start of every SessionDatagram payload.
 *
 * <pre>
 *  byte 0                 1                2               4
 *  +-----------+----------+----------------+---------------+
 *  | version:4 | phase:4  | flags          | payload_len   |
 *  |   (= 0)   | 0..3     | CP=1 K=2 U=4   | u16 LE        |
 *  +-----------+----------+----------------+---------------+
 * </pre>
 *
 * Phase 0 is an encrypted message (U clear) or a plaintext error signal (U set); 1/2/3 are SessionSetup, SessionAck
 * and SessionMsg3. {@link #wrap} refuses an unknown phase. Like the reference, it does not check the version nibble:
 * only {@link FspHeader} (encrypted messages) does. payload_len is informational; receivers do not validate it.
 */
public final class FspPrefix {
    /** Offset of the version/phase byte. */
    public static final int VERSION_PHASE_OFFSET = 0;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of payload_len. */
    public static final int PAYLOAD_LEN_OFFSET = 2;
    /** Prefix size. */
    public static final int SIZE = 4;
    /** The only FSP version. */
    public static final int VERSION = 0;
    /** Encrypted message or error signal. */
    public static final int PHASE_ESTABLISHED = 0;
    /** SessionSetup (XK msg1). */
    public static final int PHASE_MSG1 = 1;
    /** SessionAck (XK msg2). */
    public static final int PHASE_MSG2 = 2;
    /** SessionMsg3 (XK msg3). */
    public static final int PHASE_MSG3 = 3;

    private final WireResult<FspPrefix> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;

    /** Points this view at an FSP message {@code [off, off+len)}. */
    public WireResult<FspPrefix> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        if ((segment.get(ValueLayout.JAVA_BYTE, off) & 0x0F) > PHASE_MSG3) {
            return WireResult.err(WireError.BAD_PHASE);
        }
        this.seg = segment;
        this.base = off;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<FspPrefix> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The version nibble. */
    public int version() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base)) >>> 4;
    }

    /** The phase nibble. */
    public int phase() {
        return seg.get(ValueLayout.JAVA_BYTE, base) & 0x0F;
    }

    /** The flags byte. */
    public int flags() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + FLAGS_OFFSET));
    }

    /** True for a plaintext error signal (phase 0, U set). */
    public boolean isErrorSignal() {
        return phase() == PHASE_ESTABLISHED && (flags() & FspFlags.U) != 0;
    }

    /** payload_len as written by the sender. */
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

    /** A handshake prefix: phase, flags 0, payload_len = bytes after the prefix. */
    public static byte[] handshakePrefix(final int phase, final int payloadLen) {
        final byte[] out = new byte[SIZE];
        write(MemorySegment.ofArray(out), 0, phase, 0, payloadLen);
        return out;
    }

    /** An error-signal prefix: phase 0, flags U, payload_len = bytes after the prefix. */
    public static byte[] errorPrefix(final int payloadLen) {
        final byte[] out = new byte[SIZE];
        write(MemorySegment.ofArray(out), 0, PHASE_ESTABLISHED, FspFlags.U, payloadLen);
        return out;
    }
}
