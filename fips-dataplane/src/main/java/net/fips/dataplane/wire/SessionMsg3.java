package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * SessionMsg3 (FSP phase 3), the XK msg3 carrier; no coordinates.
 * <pre>
 *  0    1    2               4       5               7
 *  | 03 | 00 | payload_len u16 | flags | hs_len u16 LE | handshake
 * </pre>
 * Decoding takes the whole FSP message; bytes after the handshake are ignored.
 *
 * @param flags     reserved flags byte (sent 0)
 * @param handshake the Noise XK msg3 ({@value #XK_SIZE} bytes when well-formed)
 */
public record SessionMsg3(int flags, byte[] handshake) {
    /** Expected Noise XK message size. */
    public static final int XK_SIZE = 73;

    /** Checks ranges and copies the handshake. */
    public SessionMsg3 {
        Links.u8(flags, "flags");
        Links.u16(handshake.length, "handshake length");
        handshake = handshake.clone();
    }

    /** A copy of the Noise message. */
    @Override
    public byte[] handshake() {
        return handshake.clone();
    }

    /** The whole FSP message including the prefix. */
    public byte[] encode() {
        final int body = 1 + 2 + handshake.length;
        return new Writer(FspPrefix.SIZE + body).bytes(FspPrefix.handshakePrefix(FspPrefix.PHASE_MSG3, body))
                .u8(flags).u16(handshake.length).bytes(handshake).done();
    }

    /** Decodes a whole FSP message (prefix included). */
    public static WireResult<SessionMsg3> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            FspHandshakes.prefix(r, FspPrefix.PHASE_MSG3);
            return new SessionMsg3(r.u8(), FspHandshakes.handshake(r));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<SessionMsg3> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof SessionMsg3 s && s.flags == flags && Arrays.equals(s.handshake, handshake);
    }

    @Override
    public int hashCode() {
        return flags * 31 + Arrays.hashCode(handshake);
    }

    @Override
    public String toString() {
        return "SessionMsg3[flags=" + flags + ", handshake=" + handshake.length + " B]";
    }
}
