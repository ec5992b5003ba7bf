package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 12-byte header of an encrypted FSP message (phase 0, U clear). The 12 bytes are the
 * AEAD associated data; the CP coordinates that may follow are cleartext and not authenticated.
 *
 * <pre>
 *  0        1        2                4                                     12
 *  +--------+--------+----------------+-------------------------------------+
 *  | 0x00   | flags  | payload_len    | counter u64 LE                      |
 *  | ver|ph | CP K   | u16 LE         | (AEAD nonce = 0^4 ‖ counter LE)     |
 *  +--------+--------+----------------+-------------------------------------+
 *  | [CP: src_coords ‖ dest_coords]  | ciphertext of (ts u32 ‖ type ‖ inner_flags ‖ body) ‖ tag(16)
 * </pre>
 *
 * payload_len is the inner plaintext length (no coords, no tag). {@link #wrap} requires at least
 * {@link #MIN_MESSAGE_SIZE} bytes, version 0, phase 0 and U clear, like the reference's parser.
 */
public final class FspHeader {
    /** Offset of the version/phase byte. */
    public static final int VERSION_PHASE_OFFSET = 0;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of payload_len. */
    public static final int PAYLOAD_LEN_OFFSET = 2;
    /** Offset of the counter. */
    public static final int COUNTER_OFFSET = 4;
    /** Header (and AAD) size. */
    public static final int SIZE = 12;
    /** AEAD tag size. */
    public static final int TAG_SIZE = 16;
    /** Smallest encrypted message: header plus tag. */
    public static final int MIN_MESSAGE_SIZE = SIZE + TAG_SIZE;

    private final WireResult<FspHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long msgLen;

    /** Points this view at an FSP message {@code [off, off+len)}. */
    public WireResult<FspHeader> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, MIN_MESSAGE_SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        final int b0 = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off));
        if (b0 >>> 4 != FspPrefix.VERSION) {
            return WireResult.err(WireError.BAD_VERSION);
        }
        if ((b0 & 0x0F) != FspPrefix.PHASE_ESTABLISHED) {
            return WireResult.err(WireError.BAD_PHASE);
        }
        if ((segment.get(ValueLayout.JAVA_BYTE, off + FLAGS_OFFSET) & FspFlags.U) != 0) {
            return WireResult.err(WireError.BAD_FLAGS);
        }
        this.seg = segment;
        this.base = off;
        this.msgLen = len;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<FspHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The flags byte. */
    public int flags() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + FLAGS_OFFSET));
    }

    /** CP: cleartext coordinates follow the header. */
    public boolean coordsPresent() {
        return (flags() & FspFlags.CP) != 0;
    }

    /** K: key epoch. */
    public boolean keyEpoch() {
        return (flags() & FspFlags.K) != 0;
    }

    /** payload_len: the inner plaintext length. */
    public int payloadLen() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + PAYLOAD_LEN_OFFSET));
    }

    /** The 64-bit counter (unsigned). */
    public long counter() {
        return seg.get(Reader.U64, base + COUNTER_OFFSET);
    }

    /** Offset just after the header: the CP coordinates if present, else the ciphertext. */
    public long bodyOffset() {
        return base + SIZE;
    }

    /** Length after the header (coordinates, ciphertext and tag). */
    public long bodyLength() {
        return msgLen - SIZE;
    }

    /** Writes a 12-byte header at {@code off}. */
    public static void write(final MemorySegment dst, final long off, final int flags, final int payloadLen,
            final long counter) {
        // Prefix as one 4-byte store (see FspPrefix.word), then the counter.
        dst.set(Reader.U32, off, FspPrefix.word(FspPrefix.PHASE_ESTABLISHED, flags, payloadLen));
        dst.set(Reader.U64, off + COUNTER_OFFSET, counter);
    }

    /** The 12-byte header as a new array. */
    public static byte[] build(final long counter, final int flags, final int payloadLen) {
        final byte[] out = new byte[SIZE];
        write(MemorySegment.ofArray(out), 0, flags, payloadLen, counter);
        return out;
    }
}
