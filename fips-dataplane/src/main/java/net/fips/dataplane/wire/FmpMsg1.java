package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * FMP handshake packet 1 (Noise IK msg1), 114 bytes:
 * {@code 01 ‖ 00 ‖ payload_len u16 LE (110) ‖ sender_idx u32 LE ‖ noise_msg1(106)}.
 * Decoding requires exactly 114 bytes, version 0, phase 1 and a zero flags byte; payload_len is not checked (the
 * reference does not either) and is rewritten as 110 on encode.
 *
 * @param senderIdx the initiator's receive index
 * @param noise     the 106-byte Noise message
 */
public record FmpMsg1(int senderIdx, byte[] noise) {
    /** Noise msg1 size. */
    public static final int NOISE_SIZE = 106;
    /** Whole packet size. */
    public static final int WIRE_SIZE = FmpPrefix.SIZE + 4 + NOISE_SIZE;

    /** Checks the Noise message size and copies it. */
    public FmpMsg1 {
        if (noise.length != NOISE_SIZE) {
            throw new IllegalArgumentException("IK msg1 is " + NOISE_SIZE + " bytes");
        }
        noise = noise.clone();
    }

    /** A copy of the Noise message. */
    @Override
    public byte[] noise() {
        return noise.clone();
    }

    /** The 114-byte packet. */
    public byte[] encode() {
        return new Writer(WIRE_SIZE).u8(FmpPrefix.PHASE_MSG1).u8(0).u16(WIRE_SIZE - FmpPrefix.SIZE)
                .u32(Integer.toUnsignedLong(senderIdx)).bytes(noise).done();
    }

    /** Decodes a whole packet. */
    public static WireResult<FmpMsg1> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            checkHandshakePrefix(r, len, WIRE_SIZE, FmpPrefix.PHASE_MSG1);
            final int sender = r.i32();
            return new FmpMsg1(sender, r.rest());
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<FmpMsg1> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    static void checkHandshakePrefix(final Reader r, final long len, final int wireSize, final int phase)
            throws WireException {
        if (len < wireSize) {
            throw WireException.of(WireError.TRUNCATED);
        }
        if (len > wireSize) {
            throw WireException.of(WireError.TRAILING);
        }
        final int b0 = r.u8();
        if (b0 >>> 4 != FmpPrefix.VERSION) {
            throw WireException.of(WireError.BAD_VERSION);
        }
        if ((b0 & 0x0F) != phase) {
            throw WireException.of(WireError.BAD_PHASE);
        }
        if (r.u8() != 0) {
            throw WireException.of(WireError.BAD_FLAGS);
        }
        r.u16();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof FmpMsg1 m && m.senderIdx == senderIdx && Arrays.equals(m.noise, noise);
    }

    @Override
    public int hashCode() {
        return 31 * senderIdx + Arrays.hashCode(noise);
    }

    @Override
    public String toString() {
        return "FmpMsg1[senderIdx=" + Integer.toUnsignedString(senderIdx) + "]";
    }
}
