package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Discovery LookupRequest link message (type 0x30), {@code 46 + 16n} bytes:
 * <pre>
 *  0    1               9            25           41    42        44
 *  | 30 | request_id u64 | target(16) | origin(16) | ttl | min_mtu | origin_coords (count u16 ‖ 16·n, n ≥ 1)
 * </pre>
 * Bytes after the coordinates are ignored, as the reference does.
 *
 * @param requestId    random request id (u64, de-duplicates floods)
 * @param target       the node being looked up
 * @param origin       the requester
 * @param ttl          remaining hops (u8)
 * @param minMtu       minimum MTU (u16; the reference sends 0 and never reads it)
 * @param originCoords the requester's coordinate, self first (non-empty)
 */
public record LookupRequest(long requestId, NodeAddr target, NodeAddr origin, int ttl, int minMtu,
        Coords originCoords) {
    /** Size without coordinate entries. */
    public static final int BASE_SIZE = 46;

    /** Checks ranges and the non-empty coordinate. */
    public LookupRequest {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(origin, "origin");
        Links.u8(ttl, "ttl");
        Links.u16(minMtu, "min_mtu");
        if (originCoords.isEmpty()) {
            throw new IllegalArgumentException("origin_coords must not be empty");
        }
    }

    /** Encoded size. */
    public int encodedSize() {
        return BASE_SIZE + NodeAddr.SIZE * originCoords.size();
    }

    /** The link message including msg_type. */
    public byte[] encode() {
        return new Writer(encodedSize()).u8(LinkMessageType.LOOKUP_REQUEST.code()).u64(requestId).addr(target)
                .addr(origin).u8(ttl).u16(minMtu).coords(originCoords).done();
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<LookupRequest> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.LOOKUP_REQUEST);
            r.need(BASE_SIZE - 1);
            return new LookupRequest(r.u64(), r.addr(), r.addr(), r.u8(), r.u16(), r.coords(false));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<LookupRequest> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
