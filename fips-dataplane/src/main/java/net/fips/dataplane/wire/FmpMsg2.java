package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * FMP handshake packet 2 (Noise IK msg2), 69 bytes:
 * {@code 02 ‖ 00 ‖ payload_len u16 LE (65) ‖ sender_idx u32 LE ‖ receiver_idx u32 LE ‖ noise_msg2(57)}.
 * Decoding requires exactly 69 bytes, version 0, phase 2 and a zero flags byte; payload_len is not checked.
 *
 * @param senderIdx   the responder's receive index
 * @param receiverIdx echo of msg1's sender_idx
 * @param noise       the 57-byte Noise message
 */
public record FmpMsg2(int senderIdx, int receiverIdx, byte[] noise) {
    /** Noise msg2 size. */
    public static final int NOISE_SIZE = 57;
    /** Whole packet size. */
    public static final int WIRE_SIZE = FmpPrefix.SIZE + 8 + NOISE_SIZE;

    /** Checks the Noise message size and copies it. */
    public FmpMsg2 {
        if (noise.length != NOISE_SIZE) {
            throw new IllegalArgumentException("IK msg2 is " + NOISE_SIZE + " bytes");
        }
        noise = noise.clone();
    }

    /** A copy of the Noise message. */
    @Override
    public byte[] noise() {
        return noise.clone();
    }

    /** The 69-byte packet. */
    public byte[] encode() {
        return new Writer(WIRE_SIZE).u8(FmpPrefix.PHASE_MSG2).u8(0).u16(WIRE_SIZE - FmpPrefix.SIZE)
                .u32(Integer.toUnsignedLong(senderIdx)).u32(Integer.toUnsignedLong(receiverIdx)).bytes(noise)
                .done();
    }

    /** Decodes a whole packet. */
    public static WireResult<FmpMsg2> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            FmpMsg1.checkHandshakePrefix(r, len, WIRE_SIZE, FmpPrefix.PHASE_MSG2);
            final int sender = r.i32();
            final int receiver = r.i32();
            return new FmpMsg2(sender, receiver, r.rest());
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<FmpMsg2> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof FmpMsg2 m && m.senderIdx == senderIdx && m.receiverIdx == receiverIdx
                && Arrays.equals(m.noise, noise);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * senderIdx + receiverIdx) + Arrays.hashCode(noise);
    }

    @Override
    public String toString() {
        return "FmpMsg2[senderIdx=" + Integer.toUnsignedString(senderIdx) + ", receiverIdx="
                + Integer.toUnsignedString(receiverIdx) + "]";
    }
}
