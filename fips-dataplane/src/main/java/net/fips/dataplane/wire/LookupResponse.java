package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * Discovery LookupResponse link message (type 0x31), {@code 93 + 16n} bytes:
 * <pre>
 *  0    1               9            25             27                                   27+2+16n
 *  | 31 | request_id u64 | target(16) | path_mtu u16 | target_coords (count u16 ‖ 16·n) | proof(64)
 * </pre>
 * The proof is the target's BIP-340 signature over SHA-256 of {@link #proofBytes()}; path_mtu is not covered because
 * transit nodes lower it. Verification happens elsewhere. Bytes after the proof are ignored.
 *
 * @param requestId    the request being answered (u64)
 * @param target       the responding target
 * @param pathMtu      smallest MTU on the reverse path so far (u16)
 * @param targetCoords the target's coordinate, self first (non-empty)
 * @param proof        64-byte BIP-340 signature
 */
public record LookupResponse(long requestId, NodeAddr target, int pathMtu, Coords targetCoords, byte[] proof) {
    /** Size without coordinate entries. */
    public static final int BASE_SIZE = 93;
    /** Signature size. */
    public static final int PROOF_SIZE = 64;

    /** Checks ranges and copies the proof. */
    public LookupResponse {
        Objects.requireNonNull(target, "target");
        Links.u16(pathMtu, "path_mtu");
        if (targetCoords.isEmpty()) {
            throw new IllegalArgumentException("target_coords must not be empty");
        }
        if (proof.length != PROOF_SIZE) {
            throw new IllegalArgumentException("proof is 64 bytes");
        }
        proof = proof.clone();
    }

    /** A copy of the proof signature. */
    @Override
    public byte[] proof() {
        return proof.clone();
    }

    /** The same response with another path_mtu (what a transit node forwards). */
    public LookupResponse withPathMtu(final int mtu) {
        return new LookupResponse(requestId, target, mtu, targetCoords, proof);
    }

    /** The signed bytes: {@code request_id u64 LE ‖ target(16) ‖ count u16 LE ‖ 16·n}. */
    public byte[] proofBytes() {
        return proofBytes(requestId, target, targetCoords);
    }

    /** The signed bytes for the given fields (what a target signs before building the response). */
    public static byte[] proofBytes(final long requestId, final NodeAddr target, final Coords coords) {
        return new Writer(8 + NodeAddr.SIZE + coords.encodedSize()).u64(requestId).addr(target).coords(coords)
                .done();
    }

    /** Encoded size. */
    public int encodedSize() {
        return BASE_SIZE + NodeAddr.SIZE * targetCoords.size();
    }

    /** The link message including msg_type. */
    public byte[] encode() {
        return new Writer(encodedSize()).u8(LinkMessageType.LOOKUP_RESPONSE.code()).u64(requestId).addr(target)
                .u16(pathMtu).coords(targetCoords).bytes(proof).done();
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<LookupResponse> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.LOOKUP_RESPONSE);
            r.need(BASE_SIZE - 1);
            return new LookupResponse(r.u64(), r.addr(), r.u16(), r.coords(false), r.bytes(PROOF_SIZE));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<LookupResponse> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof LookupResponse x && x.requestId == requestId && x.target.equals(target)
                && x.pathMtu == pathMtu && x.targetCoords.equals(targetCoords) && Arrays.equals(x.proof, proof);
    }

    @Override
    public int hashCode() {
        return Objects.hash(requestId, target, pathMtu, targetCoords) * 31 + Arrays.hashCode(proof);
    }

    @Override
    public String toString() {
        return "LookupResponse[requestId=" + Long.toUnsignedString(requestId) + ", target=" + target + ", pathMtu="
                + pathMtu + ", targetCoords=" + targetCoords + "]";
    }
}
