package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The cleartext CP section of an encrypted FSP message (present when the CP flag is set), between the 12-byte
 * header and the ciphertext: {@code src_coords ‖ dest_coords}, each {@code count u16 LE ‖ 16·n}; either may be
 * empty. It is not covered by the AEAD. Transit nodes read it to warm their coordinate caches.
 *
 * @param src  the sender's coordinates
 * @param dest the destination's coordinates
 */
public record FspCpCoords(Coords src, Coords dest) {
    /** Requires both (possibly empty) coordinates. */
    public FspCpCoords {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dest, "dest");
    }

    /** Bytes this section occupies; the ciphertext starts this far after the header. */
    public int encodedSize() {
        return src.encodedSize() + dest.encodedSize();
    }

    /** The section bytes. */
    public byte[] encode() {
        return new Writer(encodedSize()).coords(src).coords(dest).done();
    }

    /**
     * Decodes the section from the start of the window (typically {@link FspHeader#bodyOffset()} to the end of the
     * message); bytes after it are the ciphertext and are left alone. Use {@link #encodedSize()} to skip it.
     */
    public static WireResult<FspCpCoords> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> new FspCpCoords(r.coords(true), r.coords(true)));
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<FspCpCoords> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
