package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * MtuExceeded error signal (0x22, 40 bytes, payload_len 36): a link on the path to {@code destAddr} cannot carry
 * the packet. Tail: {@code mtu u16 LE}.
 *
 * @param destAddr the destination
 * @param reporter the transit router
 * @param mtu      the limiting transport MTU (u16)
 */
public record MtuExceeded(NodeAddr destAddr, NodeAddr reporter, int mtu) implements FspErrorSignal {
    /** Whole message size. */
    public static final int SIZE = ErrorSignals.BODY_OFFSET + 2 * NodeAddr.SIZE + 2;

    /** Requires addresses and a u16 MTU. */
    public MtuExceeded {
        Objects.requireNonNull(destAddr, "destAddr");
        Objects.requireNonNull(reporter, "reporter");
        Links.u16(mtu, "mtu");
    }

    @Override
    public SessionMessageType type() {
        return SessionMessageType.MTU_EXCEEDED;
    }

    @Override
    public byte[] encode() {
        return ErrorSignals.start(SIZE, type(), destAddr, reporter).u16(mtu).done();
    }

    /** Decodes a whole FSP message (prefix included); another signal type is {@link WireError#BAD_TYPE}. */
    public static WireResult<MtuExceeded> decode(final MemorySegment seg, final long off, final long len) {
        return ErrorSignals.decode(seg, off, len, MtuExceeded.class);
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<MtuExceeded> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
