package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/** Shared layout code of the error signals. */
final class ErrorSignals {
    /** Offset of the body (dest_addr) in the whole message. */
    static final int BODY_OFFSET = FspPrefix.SIZE + 2;

    private ErrorSignals() {
    }

    /** Consumes prefix, msg_type and flags; returns msg_type. */
    static int prefix(final Reader r) throws WireException {
        r.need(BODY_OFFSET);
        final int b0 = r.u8();
        if ((b0 & 0x0F) != FspPrefix.PHASE_ESTABLISHED) {
            throw WireException.of(WireError.BAD_PHASE);
        }
        if ((r.u8() & FspFlags.U) == 0) {
            throw WireException.of(WireError.BAD_FLAGS);
        }
        r.u16();
        final int type = r.u8();
        r.u8();
        return type;
    }

    /** Decodes one specific signal type. */
    static <T extends FspErrorSignal> WireResult<T> decode(final MemorySegment seg, final long off, final long len,
            final Class<T> cls) {
        final WireResult<FspErrorSignal> any = FspErrorSignal.decode(seg, off, len);
        if (any instanceof WireResult.Ok<FspErrorSignal>(final FspErrorSignal v)) {
            return cls.isInstance(v) ? WireResult.ok(cls.cast(v)) : WireResult.err(WireError.BAD_TYPE);
        }
        return WireResult.err(any.errorOrNull());
    }

    /** Writes prefix, msg_type, flags 0, dest and reporter into a writer sized for {@code total} bytes. */
    static Writer start(final int total, final SessionMessageType type, final NodeAddr dest, final NodeAddr rep) {
        return new Writer(total).bytes(FspPrefix.errorPrefix(total - FspPrefix.SIZE)).u8(type.code()).u8(0)
                .addr(dest).addr(rep);
    }
}
