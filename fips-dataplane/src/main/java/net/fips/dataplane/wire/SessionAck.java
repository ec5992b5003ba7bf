package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * SessionAck (FSP phase 2), the XK msg2 carrier. Flags are reserved (sent 0). src_coords are the
 * responder's; dest_coords the initiator's, copied from the SessionSetup.
 * <pre>
 *  0    1    2               4       5
 *  | 02 | 00 | payload_len u16 | flags | src_coords | dest_coords | hs_len u16 LE | handshake
 * </pre>
 * payload_len counts everything after the 4-byte prefix. Decoding takes the whole FSP message (prefix included),
 * requires both coordinates to be non-empty and hs_len bytes to be present; bytes after the handshake are ignored and
 * the handshake length is not checked here (receivers ignore anything but {@value #XK_SIZE} bytes).
 *
 * @param flags      the flags byte (u8)
 * @param srcCoords  sender's coordinates (non-empty)
 * @param destCoords destination's coordinates (non-empty)
 * @param handshake  the Noise XK message
 */
public record SessionAck(int flags, Coords srcCoords, Coords destCoords, byte[] handshake) {
    /** Expected Noise XK message size. */
    public static final int XK_SIZE = 57;

    /** Checks ranges and copies the handshake. */
    public SessionAck {
        Objects.requireNonNull(srcCoords, "srcCoords");
        Objects.requireNonNull(destCoords, "destCoords");
        FspHandshakes.check(flags, srcCoords, destCoords, handshake);
        handshake = handshake.clone();
    }

    /** A copy of the Noise message. */
    @Override
    public byte[] handshake() {
        return handshake.clone();
    }

    /** The whole FSP message including the prefix. */
    public byte[] encode() {
        return FspHandshakes.withCoords(FspPrefix.PHASE_MSG2, flags, srcCoords, destCoords, handshake);
    }

    /** Decodes a whole FSP message (prefix included). */
    public static WireResult<SessionAck> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            FspHandshakes.prefix(r, FspPrefix.PHASE_MSG2);
            return new SessionAck(r.u8(), r.coords(false), r.coords(false), FspHandshakes.handshake(r));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<SessionAck> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof SessionAck s && s.flags == flags && s.srcCoords.equals(srcCoords)
                && s.destCoords.equals(destCoords) && Arrays.equals(s.handshake, handshake);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flags, srcCoords, destCoords) * 31 + Arrays.hashCode(handshake);
    }

    @Override
    public String toString() {
        return "SessionAck[flags=" + flags + ", srcCoords=" + srcCoords + ", destCoords=" + destCoords
                + ", handshake=" + handshake.length + " B]";
    }
}
