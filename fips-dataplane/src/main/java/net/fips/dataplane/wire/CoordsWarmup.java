package net.fips.dataplane.wire;

/**
 * Plaintext parts of a standalone CoordsWarmup: an encrypted FSP message with flags = CP only (never K, even after a
 * rekey), cleartext {@code my_coords ‖ dest_coords}, and an inner plaintext with msg_type 0x14 and an empty body
 * ({@code 12 + coords + 22} bytes once sealed). The destination ignores its body, so there is nothing to decode
 * beyond {@link FspCpCoords} and {@link FspInnerHeader}.
 */
public final class CoordsWarmup {
    /** The prefix flags a warmup carries. */
    public static final int FLAGS = FspFlags.CP;
    /** Inner msg_type. */
    public static final int MSG_TYPE = 0x14;

    private CoordsWarmup() {
    }

    /** The 6-byte inner plaintext to seal: timestamp, 0x14, inner flags, empty body. */
    public static byte[] innerPlaintext(final long timestampMs, final int innerFlags) {
        return FspInnerHeader.prepend(timestampMs, MSG_TYPE, innerFlags, new byte[0]);
    }

    /** The cleartext CP section: the sender's coordinates, then the destination's. */
    public static byte[] cpSection(final Coords mine, final Coords dest) {
        return new FspCpCoords(mine, dest).encode();
    }
}
