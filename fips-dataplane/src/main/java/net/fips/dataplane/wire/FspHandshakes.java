package net.fips.dataplane.wire;

/** Shared layout code of the three FSP handshake carriers. */
final class FspHandshakes {
    private FspHandshakes() {
    }

    /**
     * Consumes the 4-byte prefix and checks the phase. The version nibble, the prefix flags and payload_len are not
     * checked, as in the reference's dispatch (only encrypted messages check the version).
     */
    static void prefix(final Reader r, final int phase) throws WireException {
        r.need(FspPrefix.SIZE);
        if ((r.u8() & 0x0F) != phase) {
            throw WireException.of(WireError.BAD_PHASE);
        }
        r.skip(3);
    }

    /** Reads {@code hs_len u16 ‖ handshake}; bytes after it are ignored. */
    static byte[] handshake(final Reader r) throws WireException {
        return r.bytes(r.u16());
    }

    static byte[] withCoords(final int phase, final int flags, final Coords src, final Coords dest,
            final byte[] hs) {
        final int body = 1 + src.encodedSize() + dest.encodedSize() + 2 + hs.length;
        return new Writer(FspPrefix.SIZE + body).bytes(FspPrefix.handshakePrefix(phase, body)).u8(flags)
                .coords(src).coords(dest).u16(hs.length).bytes(hs).done();
    }

    static void check(final int flags, final Coords src, final Coords dest, final byte[] hs) {
        Links.u8(flags, "flags");
        if (src.isEmpty() || dest.isEmpty()) {
            throw new IllegalArgumentException("handshake coordinates must not be empty");
        }
        Links.u16(hs.length, "handshake length");
    }
}
