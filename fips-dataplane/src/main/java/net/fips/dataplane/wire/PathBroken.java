package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * PathBroken error signal (0x21, {@code 40 + 16n} bytes): the transit had coordinates for {@code destAddr} but no
 * route. Tail: {@code count u16 LE ‖ 16·n} last-known coordinates, where count 0 means none.
 *
 * @param destAddr        the unroutable destination
 * @param reporter        the transit router
 * @param lastKnownCoords the transit's coordinates for the destination, possibly empty
 */
public record PathBroken(NodeAddr destAddr, NodeAddr reporter, Coords lastKnownCoords) implements FspErrorSignal {
    /** Size without coordinate entries. */
    public static final int BASE_SIZE = ErrorSignals.BODY_OFFSET + 2 * NodeAddr.SIZE + 2;

    /** Requires addresses and a (possibly empty) coordinate. */
    public PathBroken {
        Objects.requireNonNull(destAddr, "destAddr");
        Objects.requireNonNull(reporter, "reporter");
        Objects.requireNonNull(lastKnownCoords, "lastKnownCoords");
    }

    @Override
    public SessionMessageType type() {
        return SessionMessageType.PATH_BROKEN;
    }

    @Override
    public byte[] encode() {
        return ErrorSignals.start(BASE_SIZE + NodeAddr.SIZE * lastKnownCoords.size(), type(), destAddr, reporter)
                .coords(lastKnownCoords).done();
    }

    /** Decodes a whole FSP message (prefix included); another signal type is {@link WireError#BAD_TYPE}. */
    public static WireResult<PathBroken> decode(final MemorySegment seg, final long off, final long len) {
        return ErrorSignals.decode(seg, off, len, PathBroken.class);
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<PathBroken> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
