package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Allocation-free view of the 16-byte outer header of an established FMP frame. These 16 bytes are also the AEAD
 * associated data, so flags, payload_len, receiver_idx and counter are all authenticated.
 *
 * <pre>
 *  0        1        2                4                    8                                    16
 *  +--------+--------+----------------+--------------------+------------------------------------+
 *  | 0x00   | flags  | payload_len    | receiver_idx       | counter                            |
 *  | ver|ph | K CE SP| u16 LE         | u32 LE             | u64 LE (AEAD nonce = 0^4 ‖ ctr LE) |
 *  +--------+--------+----------------+--------------------+------------------------------------+
 *  | ciphertext of (timestamp u32 LE ‖ msg_type ‖ body) ‖ tag(16) ...
 * </pre>
 *
 * payload_len counts the inner plaintext and excludes the tag. {@link #wrap} requires the whole frame to be at least
 * {@link #MIN_FRAME_SIZE} bytes (header + tag), version 0 and phase 0, like the reference's parser. Reserved flag bits
 * are ignored, not refused.
 */
public final class FmpEstablishedHeader {
    /** Offset of the version/phase byte (0x00). */
    public static final int VERSION_PHASE_OFFSET = 0;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of payload_len (u16 LE). */
    public static final int PAYLOAD_LEN_OFFSET = 2;
    /** Offset of receiver_idx (u32 LE). */
    public static final int RECEIVER_IDX_OFFSET = 4;
    /** Offset of counter (u64 LE). */
    public static final int COUNTER_OFFSET = 8;
    /** Header size, also the AAD length and the ciphertext offset. */
    public static final int SIZE = 16;
    /** AEAD tag size. */
    public static final int TAG_SIZE = 16;
    /** Smallest parseable frame: header plus tag. */
    public static final int MIN_FRAME_SIZE = SIZE + TAG_SIZE;
    /** Flag bit 0: key epoch (K). */
    public static final int FLAG_KEY_EPOCH = 0x01;
    /** Flag bit 1: congestion experienced (CE). */
    public static final int FLAG_CE = 0x02;
    /** Flag bit 2: MMP spin bit (SP). */
    public static final int FLAG_SPIN = 0x04;

    private final WireResult<FmpEstablishedHeader> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;
    private long frameLen;

    /** Points this view at a whole frame {@code [off, off+len)}. */
    public WireResult<FmpEstablishedHeader> wrap(final MemorySegment segment, final long off, final long len) {
        final WireError error = Reader.viewError(segment, off, len, MIN_FRAME_SIZE);
        if (error != null) {
            return WireResult.err(error);
        }
        final int b0 = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off));
        if (b0 >>> 4 != FmpPrefix.VERSION) {
            return WireResult.err(WireError.BAD_VERSION);
        }
        if ((b0 & 0x0F) != FmpPrefix.PHASE_ESTABLISHED) {
            return WireResult.err(WireError.BAD_PHASE);
        }
        this.seg = segment;
        this.base = off;
        this.frameLen = len;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<FmpEstablishedHeader> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /** The flags byte. */
    public int flags() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base + FLAGS_OFFSET));
    }

    /** The K (key epoch) bit. */
    public boolean keyEpoch() {
        return (flags() & FLAG_KEY_EPOCH) != 0;
    }

    /** The CE (congestion experienced) bit. */
    public boolean congestionExperienced() {
        return (flags() & FLAG_CE) != 0;
    }

    /** The SP (spin) bit. */
    public boolean spin() {
        return (flags() & FLAG_SPIN) != 0;
    }

    /** payload_len: the inner plaintext length. */
    public int payloadLen() {
        return Short.toUnsignedInt(seg.get(Reader.U16, base + PAYLOAD_LEN_OFFSET));
    }

    /** receiver_idx as the raw 32 bits (compare with {@link Integer#toUnsignedLong} for display). */
    public int receiverIdx() {
        return seg.get(Reader.U32, base + RECEIVER_IDX_OFFSET);
    }

    /** The 64-bit send counter (unsigned). */
    public long counter() {
        return seg.get(Reader.U64, base + COUNTER_OFFSET);
    }

    /** Offset of the ciphertext (right after the header) in the wrapped segment. */
    public long ciphertextOffset() {
        return base + SIZE;
    }

    /** Ciphertext length including the tag. */
    public long ciphertextLength() {
        return frameLen - SIZE;
    }

    /** True when payload_len equals the ciphertext length minus the tag, as a well-formed sender writes it. */
    public boolean payloadLenConsistent() {
        return payloadLen() == frameLen - MIN_FRAME_SIZE;
    }

    /** Writes the 16-byte header at {@code off}. */
    public static void write(final MemorySegment dst, final long off, final int flags, final int payloadLen,
            final int receiverIdx, final long counter) {
        // Two 8-byte stores (prefix + receiver index, counter): the same bytes as field by field, with a quarter of
        // the bounds-checked segment accesses on the per-packet path.
        dst.set(Reader.U64, off, Integer.toUnsignedLong(FmpPrefix.word(FmpPrefix.PHASE_ESTABLISHED, flags, payloadLen))
                | (long) receiverIdx << 32);
        dst.set(Reader.U64, off + COUNTER_OFFSET, counter);
    }

    /** The 16-byte header as a new array. */
    public static byte[] build(final int flags, final int payloadLen, final int receiverIdx, final long counter) {
        final byte[] out = new byte[SIZE];
        write(MemorySegment.ofArray(out), 0, flags, payloadLen, receiverIdx, counter);
        return out;
    }
}
