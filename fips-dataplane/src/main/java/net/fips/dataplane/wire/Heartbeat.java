package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/** Heartbeat link message (type 0x51): the single byte {@code 51}; any body is ignored, as the reference does. */
public record Heartbeat() {
    /** The only value. */
    public static final Heartbeat INSTANCE = new Heartbeat();

    /** The one-byte link message. */
    public byte[] encode() {
        return new byte[] {(byte) LinkMessageType.HEARTBEAT.code()};
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<Heartbeat> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.HEARTBEAT);
            return INSTANCE;
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<Heartbeat> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
