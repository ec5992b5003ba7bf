package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * CoordsRequired error signal (0x20, 38 bytes, payload_len 34): the transit has no coordinates for
 * {@code destAddr}. Layout in {@link FspErrorSignal}; no tail.
 *
 * @param destAddr the unroutable destination
 * @param reporter the transit router
 */
public record CoordsRequired(NodeAddr destAddr, NodeAddr reporter) implements FspErrorSignal {
    /** Whole message size. */
    public static final int SIZE = ErrorSignals.BODY_OFFSET + 2 * NodeAddr.SIZE;

    /** Requires both addresses. */
    public CoordsRequired {
        Objects.requireNonNull(destAddr, "destAddr");
        Objects.requireNonNull(reporter, "reporter");
    }

    @Override
    public SessionMessageType type() {
        return SessionMessageType.COORDS_REQUIRED;
    }

    @Override
    public byte[] encode() {
        return ErrorSignals.start(SIZE, type(), destAddr, reporter).done();
    }

    /** Decodes a whole FSP message (prefix included); another signal type is {@link WireError#BAD_TYPE}. */
    public static WireResult<CoordsRequired> decode(final MemorySegment seg, final long off, final long len) {
        return ErrorSignals.decode(seg, off, len, CoordsRequired.class);
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<CoordsRequired> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
