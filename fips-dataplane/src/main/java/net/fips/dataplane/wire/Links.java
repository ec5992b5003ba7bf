package net.fips.dataplane.wire;

/** Shared checks for link-message decoders. */
final class Links {
    private Links() {
    }

    /** Consumes the msg_type byte and refuses any other type. */
    static void expectType(final Reader r, final LinkMessageType type) throws WireException {
        if (r.u8() != type.code()) {
            throw WireException.of(WireError.BAD_TYPE);
        }
    }

    static long u32(final long v, final String name) {
        if ((v & ~0xFFFF_FFFFL) != 0) {
            throw new IllegalArgumentException(name + " is u32");
        }
        return v;
    }

    static int u16(final int v, final String name) {
        if ((v & ~0xFFFF) != 0) {
            throw new IllegalArgumentException(name + " is u16");
        }
        return v;
    }

    static int u8(final int v, final String name) {
        if ((v & ~0xFF) != 0) {
            throw new IllegalArgumentException(name + " is u8");
        }
        return v;
    }
}
